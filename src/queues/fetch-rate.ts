/**
 * The optional global fetch rate (ROBOTS_AUDIT_FETCH_RATE_PER_SECOND): at most N fetches started
 * per second across every worker process, counted in Redis per wall-clock second. Off by default:
 * politeness is per host (one request at a time, host-lock.ts), and a rate over all hosts would
 * only slow an audit of many distinct hosts.
 */
import type { Redis } from 'ioredis';

export interface FetchRate {
  /** Resolves when a fetch may start. */
  take(signal?: AbortSignal): Promise<void>;
}

export const UNLIMITED: FetchRate = { take: () => Promise.resolve() };

const COUNT_IN_SECOND = `local n = redis.call('incr', KEYS[1]) if n == 1 then redis.call('pexpire', KEYS[1], 2000) end return n`;

export function createFetchRate(redis: Redis, prefix: string, perSecond: number, now: () => number = Date.now): FetchRate {
  if (perSecond <= 0) return UNLIMITED;
  return {
    async take(signal) {
      for (;;) {
        signal?.throwIfAborted();
        const second = Math.floor(now() / 1000);
        const n = Number(await redis.eval(COUNT_IN_SECOND, 1, `${prefix}:fetch-rate:${second}`));
        if (n <= perSecond) return;
        // This second is used up: wait for the next one (plus a little spread, so waiters do not all come at once).
        const wait = (second + 1) * 1000 - now() + Math.floor(Math.random() * 50);
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, wait)));
      }
    },
  };
}
