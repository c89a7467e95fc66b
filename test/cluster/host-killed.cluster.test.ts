/**
 * A whole worker host killed mid-run (SIGKILL to every process of its namespace: the machine lost
 * its power), its worker started again once the others have taken its jobs over. Its batches are
 * found stalled and fail at once (BATCH_MAX_STALLS 0), their sites go on one by one; its site
 * jobs get one more process. The survivors' metrics count the failed batches.
 */
import { expect } from 'vitest';
import { JOB_LOCK_MS } from './harness/cluster.js';
import { deliveredCount, isRunning, receivedWebhooks } from './harness/nights.js';
import { SITES, describeFault } from './harness/suite.js';

describeFault('a worker host killed mid-run, started again later', {
  fault: (victim) => ({
    name: `${victim.name} killed`,
    inject: async (c) => {
      const worker = c.workers.get(victim.name)!;
      c.net.killHost(victim);
      await worker.exited;
      expect(c.net.pids(victim)).toEqual([]);
    },
    heal: async (c) => void (await c.startWorker(victim)),
  }),
  holdMs: 4 * JOB_LOCK_MS,
  async check(c, result, victim) {
    expect(result.doneAtHeal, 'the other hosts went on without it').toBeGreaterThan(result.doneAtFault);
    expect(isRunning(c.workers.get(victim.name)!)).toBe(true);
    // What the dead worker stored died with its counters; the rest were stored once each.
    const stored = [...result.nightsStored.values()].reduce((a, b) => a + b, 0);
    expect(stored).toBeLessThanOrEqual(SITES);
    expect(stored).toBeGreaterThanOrEqual(SITES - result.doneAtFault);
    // The survivors found its batches stalled and failed them, their sites handed on.
    let failedBatches = 0;
    for (const host of c.workerHosts) {
      if (host === victim) continue;
      const m = await c.metrics(c.workers.get(host.name)!);
      failedBatches += m?.sum('robots_audit_jobs_total', { queue: 'fetch', result: 'failed' }) ?? 0;
    }
    expect(failedBatches, 'stalled batches failed by the survivors (all nights so far)').toBeGreaterThan(0);
    expect(receivedWebhooks(c).ids).toBe(await deliveredCount(c));
  },
});
