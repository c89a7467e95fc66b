/**
 * A worker host cut off from Redis only, mid-run: it still reaches Postgres and the sites, so it
 * goes on fetching, computing and storing nights while its job locks expire and the other hosts
 * take its jobs over. Healed once they have. Besides what every night must leave (harness/), the
 * cut-off worker lives on, Redis refuses its late results, and its metrics count them as lost
 * jobs; the nights stored, summed over the hosts' metrics, are the sites: none twice.
 */
import { expect } from 'vitest';
import { JOB_LOCK_MS } from './harness/cluster.js';
import { deliveredCount, isRunning, lostJobsOf, receivedWebhooks } from './harness/nights.js';
import { SITES, describeFault } from './harness/suite.js';

describeFault('a worker host cut off from Redis only, mid-run, then healed', {
  fault: (victim) => ({
    name: `${victim.name} cut off from Redis`,
    inject: async (c) => c.net.cutOff(victim, c.redis.addresses),
    heal: async (c) => c.net.heal(victim),
  }),
  // Past its locks (the stall check runs every lock period), while the others go on.
  holdMs: 4 * JOB_LOCK_MS,
  async check(c, result, victim) {
    expect(result.doneAtHeal, 'the other hosts went on while it was cut off').toBeGreaterThan(result.doneAtFault);
    const worker = c.workers.get(victim.name)!;
    expect(isRunning(worker)).toBe(true);
    // Its outage log said Redis went away and came back; Postgres never went away.
    expect(worker.log()).toMatch(/"msg":"Redis at [^"]* unreachable/);
    expect(worker.log()).toMatch(/"msg":"Redis at [^"]* reachable again/);
    expect(worker.log()).not.toMatch(/"msg":"Postgres at [^"]* unreachable/);
    const stored = [...result.nightsStored.values()].reduce((a, b) => a + b, 0);
    expect(stored, 'nights stored, summed over the hosts').toBe(SITES);
    expect(await lostJobsOf(c, victim, result), 'jobs the cut-off worker lost').toBeGreaterThan(0);
    expect(receivedWebhooks(c).ids).toBe(await deliveredCount(c));
  },
});
