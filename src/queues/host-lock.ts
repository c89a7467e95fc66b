/**
 * Per-host politeness across every worker process: never more than one request at a time to
 * one host. A Redis key per host name, set with NX and an expiry (so a killed worker cannot
 * hold a host forever), released only by the holder that set it.
 */
import type { Redis } from 'ioredis';

const RELEASE_IF_HOLDER = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export interface HostLock {
  /** True when this holder now has the host; false when another request to it is under way. */
  acquire(host: string, holder: string, ttlMs: number): Promise<boolean>;
  release(host: string, holder: string): Promise<void>;
}

export function createHostLock(redis: Redis, prefix: string): HostLock {
  const key = (host: string) => `${prefix}:host-lock:${host.toLowerCase()}`;
  return {
    async acquire(host, holder, ttlMs) {
      const ok = await redis.set(key(host), holder, 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX');
      return ok === 'OK';
    },
    async release(host, holder) {
      await redis.eval(RELEASE_IF_HOLDER, 1, key(host), holder);
    },
  };
}
