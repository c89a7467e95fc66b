/**
 * A worker frozen mid-run (SIGSTOP: a long GC pause, a paused VM) past its job locks, on one host,
 * while the workers of the other hosts take its jobs over; then resumed (SIGCONT). It wakes up
 * in the middle of what it was doing and finishes it: fetches, nights, deliveries. Postgres keeps
 * the first night of each site, Redis refuses the late job moves, and the resumed worker counts
 * them as lost jobs.
 */
import { expect } from 'vitest';
import { JOB_LOCK_MS } from './harness/cluster.js';
import { deliveredCount, isRunning, lostJobsOf, receivedWebhooks } from './harness/nights.js';
import { SITES, describeFault } from './harness/suite.js';

describeFault('a worker frozen past its locks, mid-run, then resumed', {
  fault: (victim) => ({
    name: `the worker of ${victim.name} frozen`,
    inject: async (c) => void c.workers.get(victim.name)!.child.kill('SIGSTOP'),
    heal: async (c) => void c.workers.get(victim.name)!.child.kill('SIGCONT'),
  }),
  holdMs: 4 * JOB_LOCK_MS,
  async check(c, result, victim) {
    expect(result.doneAtHeal, 'the other hosts went on while it was frozen').toBeGreaterThan(result.doneAtFault);
    expect(isRunning(c.workers.get(victim.name)!)).toBe(true);
    const stored = [...result.nightsStored.values()].reduce((a, b) => a + b, 0);
    expect(stored, 'nights stored, summed over the hosts').toBe(SITES);
    expect(await lostJobsOf(c, victim, result), 'jobs the frozen worker lost').toBeGreaterThan(0);
    expect(receivedWebhooks(c).ids).toBe(await deliveredCount(c));
  },
});
