/**
 * The optional global fetch rate (ROBOTS_AUDIT_FETCH_RATE_PER_SECOND) against the real Redis: at
 * most N fetches start in any wall-clock second, across every process sharing the prefix; off
 * (0), nothing waits.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchRate, UNLIMITED } from '../../../src/queues/fetch-rate.js';
import { cleanupPrefix, uniquePrefix } from '../../helpers/test-queue.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
let redis: Redis;
let other: Redis;
const prefix = uniquePrefix();

beforeAll(() => {
  redis = new Redis(REDIS_URL);
  other = new Redis(REDIS_URL);
});
afterAll(async () => {
  redis.disconnect();
  other.disconnect();
  await cleanupPrefix(REDIS_URL, prefix);
});

describe('global fetch rate', () => {
  // The limiter counts each grant in the wall-clock second it asked in; the fetch starts when
  // Redis's reply arrives, a few milliseconds later, possibly across the second's boundary. So the
  // property checked on start times is the one a rate of 5 per second guarantees whatever that
  // delay: eleven starts need three seconds' allowances, so any eleven span about a second or
  // more (less the reply's delay, allowed 300 ms on a noisy machine; a limit twice too high would let
  // eleven starts fall within a few milliseconds).
  it('two "processes" sharing 5 a second: any eleven of 15 fetch starts span about a second or more', async () => {
    const a = createFetchRate(redis, prefix, 5);
    const b = createFetchRate(other, prefix, 5);
    const starts: number[] = [];
    await Promise.all(Array.from({ length: 15 }, (_, i) => (i % 2 ? a : b).take().then(() => starts.push(Date.now()))));
    starts.sort((x, y) => x - y);
    for (let i = 0; i + 10 < starts.length; i++) expect(starts[i + 10]! - starts[i]!).toBeGreaterThanOrEqual(700);
  });

  it('each second grants at most its allowance, whoever asks', async () => {
    // A fixed clock: every take asks in the same second, so exactly 5 of 8 are granted at once and
    // the other three wait (for a second that, on this clock, never comes).
    const fixed = () => 1_000_000;
    const a = createFetchRate(redis, `${prefix}-fixed`, 5, fixed);
    const b = createFetchRate(other, `${prefix}-fixed`, 5, fixed);
    const controller = new AbortController();
    let granted = 0;
    const takes = Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).take(controller.signal).then(() => granted++, () => undefined));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(granted).toBe(5);
    controller.abort(new Error('done'));
    await Promise.all(takes);
  });

  it('0 means no limit: the same object that never waits', () => {
    expect(createFetchRate(redis, prefix, 0)).toBe(UNLIMITED);
  });

  it('an aborted wait ends with the abort, not a fetch', async () => {
    const rate = createFetchRate(redis, `${prefix}-abort`, 1);
    await rate.take();
    const controller = new AbortController();
    const waiting = rate.take(controller.signal);
    controller.abort(new Error('batch deadline'));
    // The wait is a timer: the next loop turn sees the abort.
    await expect(waiting).rejects.toThrow('batch deadline');
  });
});
