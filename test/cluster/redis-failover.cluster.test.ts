/**
 * The Redis primary killed mid-run (SIGKILL): the three Sentinels agree it is down (after 1 s,
 * quorum 2) and promote the replica; every process follows through its REDIS_URL
 * (`redis+sentinel://...`), reconnecting to the new primary. Replication is asynchronous, so the
 * last writes the old primary took may be gone: a job finished there may run again (Postgres has
 * its night already) and a job added there may be missing (the scheduler's reconcile loop adds it
 * again). The old primary is started again afterwards and comes back as a replica.
 */
import { expect } from 'vitest';
import { deliveredCount, isRunning, receivedWebhooks } from './harness/nights.js';
import { describeFault } from './harness/suite.js';

let killed = '';
let primaryBefore = '';

describeFault('the Redis primary killed mid-run: Sentinel promotes the replica', {
  fault: () => ({
    name: 'the redis primary killed',
    inject: async (c) => {
      primaryBefore = await c.redis.primary();
      killed = await c.redis.killPrimary();
    },
    heal: async (c) => c.redis.revive(killed),
  }),
  holdMs: 0,
  async check(c) {
    expect(await c.redis.primary(), 'another primary').not.toBe(primaryBefore);
    for (const w of c.workers.values()) expect(isRunning(w)).toBe(true);
    expect(isRunning(c.scheduler)).toBe(true);
    // Every process said it lost Redis, and that it had it back.
    for (const p of [...c.workers.values(), c.scheduler]) {
      expect(p.log(), p.host.name).toMatch(/redis at .* unreachable/i);
      expect(p.log(), p.host.name).toMatch(/redis at .* reachable again/i);
    }
    expect(receivedWebhooks(c).ids).toBe(await deliveredCount(c));
  },
});
