/**
 * Issue 26: which waits hold a run (ROBOTS_AUDIT_RUN_HOLD_SECONDS), when a run is over for
 * everyone, when a retry is due, and how a wait is said.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RUN_HOLD_SECONDS,
  durationText,
  holdsRun,
  maxAttempts,
  msUntil,
  nextRetryDelayMs,
  noticeableWait,
  runSettled,
  scheduledRetry,
  waitReasonText,
} from '../../../src/policy/index.js';
import type { RunSitesTally, WaitReason } from '../../../src/policy/index.js';

const defaults = { delaysSeconds: [30, 120, 600], factor503: 4, retryAfterCapSeconds: 3600 };
const AT = new Date('2026-11-23T03:00:00.000Z');

describe('which retries hold their run', () => {
  it.each<[string, number, number, boolean]>([
    ['a retry within the hold', 30_000, 900, true],
    ['a retry due exactly at the hold', 900_000, 900, true],
    ['a retry due a millisecond past the hold', 900_001, 900, false],
    ["a server's Retry-After at the cap (3,600 s)", 3_600_000, 900, false],
    ['hold 0: not even the shortest retry', 100, 0, false],
    ['a long hold waits for an hour', 3_600_000, 7_200, true],
  ])('%s (%i ms, hold %i s) -> holds: %s', (_name, delayMs, holdSeconds, expected) => {
    expect(holdsRun(delayMs, holdSeconds)).toBe(expected);
  });

  it('the default schedule fits in the default hold: an unreachable site still holds its run, every attempt of it', () => {
    for (let attempt = 1; attempt < maxAttempts(defaults); attempt++) {
      for (const status of [500, 503]) {
        const delay = nextRetryDelayMs(defaults, { attempt, outcome: 'server_error', status, retryAfterSeconds: null })!;
        expect(holdsRun(delay, DEFAULT_RUN_HOLD_SECONDS), `attempt ${attempt}, ${status}`).toBe(true);
      }
    }
  });

  it("the user's case: 503 with Retry-After 99999999999 waits the cap, past the hold: it holds its site only", () => {
    const delay = nextRetryDelayMs(defaults, { attempt: 1, outcome: 'server_error', status: 503, retryAfterSeconds: 99_999_999_999 })!;
    expect(delay).toBe(3_600_000);
    expect(holdsRun(delay, DEFAULT_RUN_HOLD_SECONDS)).toBe(false);
  });
});

describe('when a retry is due', () => {
  it.each<[string, number, number, string, boolean]>([
    ['30 s after the failure', 30_000, 900, '2026-11-23T03:00:30.000Z', true],
    ['an hour after it', 3_600_000, 900, '2026-11-23T04:00:00.000Z', false],
    ['the shortest retry', 100, 900, '2026-11-23T03:00:00.100Z', true],
  ])('%s', (_name, delayMs, hold, until, holds) => {
    expect(scheduledRetry(AT, delayMs, hold)).toEqual({ until: new Date(until), holdsRun: holds });
  });

  it.each<[string, string, number]>([
    ['still to come', '2026-11-23T03:01:00.000Z', 60_000],
    ['due now', '2026-11-23T03:00:00.000Z', 0],
    ['past due: 0, never negative', '2026-11-23T02:59:00.000Z', 0],
  ])('milliseconds until it: %s', (_name, until, ms) => {
    expect(msUntil(new Date(until), AT)).toBe(ms);
  });
});

describe('when a run is over for everyone', () => {
  const tally = (t: Partial<RunSitesTally>): RunSitesTally => ({ total: 10, done: 0, skipped: 0, failed: 0, pending: 0, ...t });
  it.each<[string, Partial<RunSitesTally>, boolean]>([
    ['every night stored', { done: 10 }, true],
    ['stored, skipped and failed', { done: 8, skipped: 1, failed: 1 }, true],
    ['one site pending: done for the others', { done: 9, pending: 1 }, true],
    ['one site under way, or waiting within the hold', { done: 9 }, false],
    ['one pending, one under way', { done: 8, pending: 1 }, false],
    ['a run of no site', { total: 0 }, true],
  ])('%s -> %s', (_name, t, expected) => {
    expect(runSettled(tally(t))).toBe(expected);
  });
});

describe('which waits audit --wait names', () => {
  it.each<[string, number, boolean]>([
    ['the shortest retry (Retry-After: 0)', 100, false],
    ['exactly the notice threshold', 5_000, false],
    ['a 503 retried after 7.5 s', 7_500, true],
    ['an hour', 3_600_000, true],
  ])('%s -> %s', (_name, ms, expected) => {
    expect(noticeableWait(AT, new Date(AT.getTime() + ms))).toBe(expected);
  });
});

describe('a wait in words', () => {
  const reason = (r: Partial<WaitReason>): WaitReason => ({
    outcome: 'server_error',
    status: 503,
    errorCode: null,
    retryAfterSeconds: null,
    retryAfterCapSeconds: 3600,
    attempt: 1,
    attempts: 4,
    ...r,
  });
  it.each<[string, Partial<WaitReason>, string]>([
    ["the user's case", { retryAfterSeconds: 99_999_999_999 }, '503 with Retry-After 99999999999 s (capped at 3600 s); attempt 2 of 4 next'],
    ['a Retry-After within the cap', { retryAfterSeconds: 120 }, '503 with Retry-After 120 s; attempt 2 of 4 next'],
    ['the schedule, no Retry-After', { status: 500, attempt: 2 }, '500; attempt 3 of 4 next'],
    ['a network failure', { outcome: 'network_error', status: null, errorCode: 'ECONNRESET', attempt: 3 }, 'ECONNRESET; attempt 4 of 4 next'],
  ])('%s', (_name, r, text) => {
    expect(waitReasonText(reason(r))).toBe(text);
  });

  it.each<[number, string]>([
    [45_000, '45s'],
    [200_000, '3m20s'],
    [3_720_000, '1h02m'],
    [1, '1s'],
  ])('%i ms -> %s', (ms, text) => {
    expect(durationText(ms)).toBe(text);
  });
});
