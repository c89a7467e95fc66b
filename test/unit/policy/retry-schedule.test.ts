import { describe, expect, it } from 'vitest';
import { maxAttempts, nextRetryDelayMs } from '../../../src/policy/index.js';
import type { FetchOutcome } from '../../../src/policy/index.js';

const schedule = { delaysSeconds: [30, 120, 600], factor503: 4, retryAfterCapSeconds: 3600 };

describe('R-13 / R-15: retries within a run', () => {
  it.each<[string, number, FetchOutcome, number | null, number | null, number | null]>([
    ['first 500 waits the first delay', 1, 'server_error', 500, null, 30_000],
    ['second 500 waits the second delay', 2, 'server_error', 500, null, 120_000],
    ['the schedule used up: final', 4, 'server_error', 500, null, null],
    ['503 is retried sooner (R-13)', 1, 'server_error', 503, null, 7_500],
    ['network failures are retried (R-15)', 3, 'network_error', null, null, 600_000],
    ['Retry-After is honoured', 1, 'server_error', 503, 7, 7_000],
    ['Retry-After is capped', 1, 'server_error', 503, 86_400, 3_600_000],
    ['Retry-After: 0 still waits a little', 1, 'server_error', 503, 0, 100],
    ['ok is never retried', 1, 'ok', 200, null, null],
    ['a 4xx is never retried (R-12)', 1, 'unavailable', 404, null, null],
    ['429 is not a server error (D-4)', 1, 'rate_limited', 429, 60, null],
    ['a redirect limit is final (R-11)', 1, 'redirect_limit', 301, null, null],
  ])('%s', (_name, attempt, outcome, status, retryAfterSeconds, expected) => {
    expect(nextRetryDelayMs(schedule, { attempt, outcome, status, retryAfterSeconds })).toBe(expected);
  });

  it('makes one attempt more than there are delays', () => {
    expect(maxAttempts(schedule)).toBe(4);
    expect(maxAttempts({ ...schedule, delaysSeconds: [] })).toBe(1);
  });
});
