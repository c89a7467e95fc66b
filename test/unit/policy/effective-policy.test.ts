import { describe, expect, it } from 'vitest';
import { effectivePolicy, UNREACHABLE_FALLBACK_DAYS } from '../../../src/policy/index.js';
import type { FetchOutcome, PolicyReason } from '../../../src/policy/index.js';

const day = 24 * 3600 * 1000;
const t0 = new Date('2026-01-01T03:00:00Z');
const at = (days: number) => new Date(t0.getTime() + days * day);

describe('R-10..R-15, D-4: outcome class -> policy for a reachable history', () => {
  it.each<[FetchOutcome, string, string]>([
    ['ok', 'rules', 'R-10'],
    ['redirect_limit', 'allow_all', 'R-11'],
    ['unavailable', 'allow_all', 'R-12'],
    ['rate_limited', 'allow_all', 'D-4'],
    ['server_error', 'disallow_all', 'R-13'],
    ['network_error', 'disallow_all', 'R-15'],
  ])('%s -> %s (%s)', (outcome, kind, reason) => {
    const p = effectivePolicy({ outcome, now: t0, unreachableSince: null, lastReachable: { snapshotId: 1, outcome: 'ok' } });
    expect(p.kind).toBe(kind);
    expect(p.reason).toBe(reason);
    expect(p.fallback).toBe(false);
  });

  it('ok takes the rules of the current fetch and ends any streak', () => {
    const p = effectivePolicy({ outcome: 'ok', now: at(40), unreachableSince: t0, lastReachable: null });
    expect(p.rulesFrom).toBe('current');
    expect(p.unreachableSince).toBeNull();
  });
});

describe('D-3: the unreachable timeline', () => {
  it('a first failure starts the streak now and disallows everything', () => {
    const p = effectivePolicy({ outcome: 'server_error', now: t0, unreachableSince: null, lastReachable: { snapshotId: 7, outcome: 'ok' } });
    expect(p).toEqual({ kind: 'disallow_all', reason: 'R-13', rulesFrom: null, unreachableSince: t0, fallback: false });
  });

  it.each([
    [1, 'disallow_all', false],
    [29, 'disallow_all', false],
    [UNREACHABLE_FALLBACK_DAYS, 'disallow_all', false], // exactly 30 days is not "more than 30"
    [30.01, 'rules', true],
    [31, 'rules', true],
    [400, 'rules', true],
  ])('day %s of a 5xx streak with a last good copy -> %s', (days, kind, fallback) => {
    const p = effectivePolicy({ outcome: 'server_error', now: at(days), unreachableSince: t0, lastReachable: { snapshotId: 7, outcome: 'ok' } });
    expect(p.kind).toBe(kind);
    expect(p.fallback).toBe(fallback);
    expect(p.unreachableSince).toEqual(t0);
    if (fallback) {
      expect(p.reason).toBe('D-3');
      expect(p.rulesFrom).toEqual({ snapshotId: 7 });
    }
  });

  it('R-14: more than 30 days with no good copy ever -> full allow', () => {
    const p = effectivePolicy({ outcome: 'network_error', now: at(31), unreachableSince: t0, lastReachable: null });
    expect(p).toMatchObject({ kind: 'allow_all', reason: 'D-3', fallback: true, rulesFrom: null });
  });

  it('more than 30 days after a 404 -> the cached state is "no robots.txt": full allow', () => {
    const p = effectivePolicy({ outcome: 'server_error', now: at(31), unreachableSince: t0, lastReachable: { snapshotId: 3, outcome: 'unavailable' } });
    expect(p).toMatchObject({ kind: 'allow_all', reason: 'D-3', fallback: true });
  });

  it('a network error inside the window keeps its own reason (R-15)', () => {
    const p = effectivePolicy({ outcome: 'network_error', now: at(3), unreachableSince: t0, lastReachable: null });
    expect(p).toMatchObject({ kind: 'disallow_all', reason: 'R-15' });
  });

  it('a 4xx ends the streak', () => {
    const p = effectivePolicy({ outcome: 'unavailable', now: at(45), unreachableSince: t0, lastReachable: null });
    expect(p.unreachableSince).toBeNull();
  });
});

describe('challenged: the last known policy stands, unverified (no verdict flips)', () => {
  it.each<[string, { kind: 'rules' | 'allow_all' | 'disallow_all'; reason: PolicyReason; rulesFrom: { snapshotId: number } | null } | null, string, unknown]>([
    ['rules of the last good night', { kind: 'rules', reason: 'R-10', rulesFrom: { snapshotId: 7 } }, 'rules', { snapshotId: 7 }],
    ['full allow of a 404 site', { kind: 'allow_all', reason: 'R-12', rulesFrom: null }, 'allow_all', null],
    ['full disallow of a 5xx streak', { kind: 'disallow_all', reason: 'R-13', rulesFrom: null }, 'disallow_all', null],
    ['a first night: nothing known, read as the 4xx it was (R-12)', null, 'allow_all', null],
  ])('%s', (_what, previous, kind, rulesFrom) => {
    const p = effectivePolicy<number>({ outcome: 'challenged', now: t0, unreachableSince: null, lastReachable: null, previous });
    expect(p).toMatchObject({ kind, reason: 'challenged', rulesFrom, fallback: false, unreachableSince: null });
  });
});
