/**
 * A worker host cut off from everything mid-run (its cable pulled at the switch: no Redis, no
 * Postgres, no sites), then plugged back once the others have taken its jobs over. Its open
 * connections hang meanwhile, and come back to life with it: queries and job moves that were
 * waiting go out late. Postgres keeps the first night stored of each site, Redis refuses the late
 * results; the worker lives on and counts them as lost jobs.
 */
import { expect } from 'vitest';
import { JOB_LOCK_MS } from './harness/cluster.js';
import { deliveredCount, isRunning, lostJobsOf, receivedWebhooks } from './harness/nights.js';
import { SITES, describeFault } from './harness/suite.js';

describeFault('a worker host cut off from the network, mid-run, then healed', {
  fault: (victim) => ({
    name: `${victim.name} unplugged`,
    inject: async (c) => c.net.unplug(victim),
    heal: async (c) => c.net.heal(victim),
  }),
  holdMs: 4 * JOB_LOCK_MS,
  async check(c, result, victim) {
    expect(result.doneAtHeal, 'the other hosts went on while it was away').toBeGreaterThan(result.doneAtFault);
    const worker = c.workers.get(victim.name)!;
    expect(isRunning(worker)).toBe(true);
    // Its outage log said both went away and came back.
    for (const service of ['Redis', 'Postgres']) {
      expect(worker.log()).toMatch(new RegExp(`"msg":"${service} at [^"]* unreachable`));
      expect(worker.log()).toMatch(new RegExp(`"msg":"${service} at [^"]* reachable again`));
    }
    const stored = [...result.nightsStored.values()].reduce((a, b) => a + b, 0);
    expect(stored, 'nights stored, summed over the hosts').toBe(SITES);
    expect(await lostJobsOf(c, victim, result), 'jobs the unplugged worker lost').toBeGreaterThan(0);
    expect(receivedWebhooks(c).ids).toBe(await deliveredCount(c));
  },
});
