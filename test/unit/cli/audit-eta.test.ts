import { describe, expect, it } from 'vitest';
import { etaText, runKeyFor } from '../../../src/cli/commands/audit.command.js';

describe('audit --wait: ETA of the progress bar', () => {
  it.each([
    [0, 5, '0s'],
    [10, 0, '-'],
    [10, Number.NaN, '-'],
    [45, 1, '45s'],
    [200, 1, '3m20s'],
    [3720, 1, '1h02m'],
    [100_000, 50, '33m20s'],
  ])('%i sites left at %f/s -> %s', (remaining, rate, expected) => expect(etaText(remaining, rate)).toBe(expected));
});

describe('audit --at: the run key names the night', () => {
  const now = new Date('2026-11-22T01:00:00Z');
  it('the same --at gives the same key (a replayed night is the same run)', () => {
    const at = new Date('2026-03-01T03:00:00Z');
    expect(runKeyFor(at, null, now)).toBe('at-2026-03-01T03:00:00.000Z');
    expect(runKeyFor(at, 'retail', now)).toBe('at-2026-03-01T03:00:00.000Z-retail');
  });
  it('without --at every run is new', () => {
    expect(runKeyFor(null, null, now)).not.toBe(runKeyFor(null, null, now));
    expect(runKeyFor(null, null, now)).toMatch(/^manual-2026-11-22T01:00:00\.000Z-[0-9a-f]{8}$/);
  });
});
