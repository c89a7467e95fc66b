/**
 * Postgres restarted mid-run (a fast shutdown, then started again), under three worker hosts and
 * the scheduler: every pooled connection breaks at once, across hosts. Transactions in flight
 * fail and their jobs are retried; every process lives on, and the nights stored, summed over the
 * hosts' metrics, are the sites: none twice.
 */
import { expect } from 'vitest';
import { deliveredCount, isRunning, receivedWebhooks } from './harness/nights.js';
import { SITES, describeFault } from './harness/suite.js';

describeFault('Postgres restarted mid-run', {
  fault: () => ({
    name: 'postgres restarted',
    inject: async (c) => c.postgres.restart(),
    heal: async () => {},
  }),
  holdMs: 0,
  async check(c, result) {
    for (const w of c.workers.values()) expect(isRunning(w)).toBe(true);
    expect(isRunning(c.scheduler)).toBe(true);
    const stored = [...result.nightsStored.values()].reduce((a, b) => a + b, 0);
    expect(stored, 'nights stored, summed over the hosts').toBe(SITES);
    expect(receivedWebhooks(c).ids).toBe(await deliveredCount(c));
  },
});
