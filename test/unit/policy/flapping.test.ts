/**
 * flappingNight: a site that comes back to a version it had within K nights, or whose
 * confirmation fetch disagrees, flaps until one version holds for M nights in a row.
 */
import { describe, expect, it } from 'vitest';
import { flappingNight, type FlappingEvent, type FlappingState } from '../../../src/policy/flapping.js';

const NIGHT_0 = new Date('2026-06-01T03:00:00Z');
const at = (day: number) => new Date(NIGHT_0.getTime() + day * 24 * 3600 * 1000);
const EMPTY: FlappingState = { versions: [], since: null, stableNights: 0 };

/** Replays nights (a version per night, `x/y` for two answers that disagree, `-` for no body); the events. */
function replay(nights: string[], start: FlappingState = EMPTY): { events: FlappingEvent[]; state: FlappingState } {
  let state = start;
  const events: FlappingEvent[] = [];
  nights.forEach((n, day) => {
    const [sha, disagreeing] = n.split('/');
    const r = flappingNight(state, { runId: day + 1, runAt: at(day), sha256: sha === '-' ? null : sha!, disagreeing: disagreeing ?? null });
    events.push(r.event);
    state = r.state;
  });
  return { events, state };
}

describe('flapping: starts, continues, settles', () => {
  it.each<[string, string[], FlappingEvent[]]>([
    ['a site that never changes', ['A', 'A', 'A', 'A', 'A', 'A'], ['none', 'none', 'none', 'none', 'none', 'none']],
    ['a site that changes once and keeps it', ['A', 'A', 'B', 'B', 'B', 'B'], ['none', 'none', 'none', 'none', 'none', 'none']],
    ['A on odd nights, B on even nights', ['A', 'B', 'A', 'B', 'A', 'B'], ['none', 'none', 'started', 'continues', 'continues', 'continues']],
    ['two answers that disagree from the first change', ['A', 'A/B', 'A/B', 'A/B', 'A/B', 'A/B'], ['none', 'started', 'continues', 'continues', 'continues', 'continues']],
    ['back to A, then A holds M = 3 nights', ['A', 'B', 'A', 'A', 'A', 'A'], ['none', 'none', 'started', 'continues', 'settled', 'none']],
    ['nights without a body change nothing', ['A', 'B', '-', 'A', '-', 'B'], ['none', 'none', 'none', 'started', 'continues', 'continues']],
    ['a version older than K = 7 nights is no return', ['A', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'A'], ['none', 'none', 'none', 'none', 'none', 'none', 'none', 'none', 'none', 'none']],
  ])('%s', (_what, nights, events) => {
    expect(replay(nights).events).toEqual(events);
  });

  it('K = 0 turns it off: every night is an ordinary one', () => {
    let state = EMPTY;
    const events = ['A', 'B', 'A', 'B'].map((sha, day) => {
      const r = flappingNight(state, { runId: day + 1, runAt: at(day), sha256: sha, disagreeing: day === 3 ? 'A' : null }, { windowNights: 0, settleNights: 3 });
      state = r.state;
      return r.event;
    });
    expect(events).toEqual(['none', 'none', 'none', 'none']);
  });

  it('keeps transitions only: a night on the version in force adds no entry', () => {
    expect(replay(['A', 'A', 'A']).state.versions.map((v) => v.sha256)).toEqual(['A']);
    expect(replay(['A', 'B', 'A']).state.versions.map((v) => v.sha256)).toEqual(['A', 'B', 'A']);
  });

  it('a change undone (one return that holds) settles quietly; a spell that kept changing does not', () => {
    const undone = ['A', 'B', 'A', 'A', 'A'];
    let state = EMPTY;
    const quiet = undone.map((sha, day) => {
      const r = flappingNight(state, { runId: day + 1, runAt: at(day), sha256: sha, disagreeing: null });
      state = r.state;
      return r.quiet;
    });
    expect(quiet).toEqual([false, false, false, false, true]);
    state = replay(['A', 'B', 'A', 'B', 'B']).state;
    expect(flappingNight(state, { runId: 6, runAt: at(5), sha256: 'B', disagreeing: null })).toMatchObject({ event: 'settled', quiet: false });
    state = replay(['A', 'A/B', 'A', 'A']).state;
    expect(flappingNight(state, { runId: 5, runAt: at(4), sha256: 'A', disagreeing: null })).toMatchObject({ event: 'settled', quiet: false });
  });

  it('names the versions in rotation and the night it started', () => {
    const r = flappingNight(replay(['A', 'B']).state, { runId: 3, runAt: at(2), sha256: 'A', disagreeing: null });
    expect(r).toMatchObject({ event: 'started', cause: 'returned', rotation: ['A', 'B'] });
    expect(r.state.since).toEqual(at(2));
  });
});
