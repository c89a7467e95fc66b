/**
 * When to try again within a run after a fetch that did not reach the site.
 * Pure: the worker turns the answer into a BullMQ backoff.
 */
import type { FetchOutcome } from './fetch-outcome.js';
import { isUnreachable } from './fetch-outcome.js';

export interface RetrySchedule {
  /** Delay before the 2nd, 3rd, ... attempt, seconds (ROBOTS_AUDIT_RETRY_DELAYS). */
  delaysSeconds: readonly number[];
  /** "503 is retried more often": each delay is divided by this factor for a 503. */
  factor503: number;
  /** Upper bound on a server's Retry-After, seconds (ROBOTS_AUDIT_RETRY_AFTER_CAP). */
  retryAfterCapSeconds: number;
}

export interface FailedAttempt {
  /** 1-based number of the attempt that just finished. */
  attempt: number;
  outcome: FetchOutcome;
  status: number | null;
  retryAfterSeconds: number | null;
}

/** Never retry sooner than this, even when a server says Retry-After: 0. */
export const MIN_RETRY_DELAY_MS = 100;

/**
 * Milliseconds to wait before the next attempt, or null when this attempt is final: the site
 * was reached (any outcome but a 5xx or network failure), or the schedule is used up.
 */
export function nextRetryDelayMs(schedule: RetrySchedule, failed: FailedAttempt): number | null {
  if (!isUnreachable(failed.outcome)) return null;
  const base = schedule.delaysSeconds[failed.attempt - 1];
  if (base === undefined) return null;
  let seconds = failed.status === 503 ? base / schedule.factor503 : base;
  // A server that says when to come back is honoured, up to the cap.
  if (failed.retryAfterSeconds !== null) seconds = Math.min(failed.retryAfterSeconds, schedule.retryAfterCapSeconds);
  return Math.max(MIN_RETRY_DELAY_MS, Math.round(seconds * 1000));
}

/** How many attempts a run makes at most for one site. */
export function maxAttempts(schedule: RetrySchedule): number {
  return schedule.delaysSeconds.length + 1;
}
