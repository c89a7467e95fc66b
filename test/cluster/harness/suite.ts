/**
 * One fault, three nights in a row on one cluster (the "each at least 3 times in a row"):
 * night 0 is the baseline, every site new; nights 1-3 each change every site's file and break
 * something mid-run, each time on another worker host where the fault has a victim. After each,
 * what every night must leave (nights.ts), then the file's own checks.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startCluster } from './cluster.js';
import type { Cluster } from './cluster.js';
import { expectWholeNight, nightWithFault, receivedWebhooks } from './nights.js';
import type { Fault, NightResult } from './nights.js';
import type { Host } from './netns.js';

export const SITES = 240;
export const NIGHTS = [1, 2, 3];

export interface FaultSuite {
  /** The fault of night `n`, given its victim (the worker host whose turn it is). */
  fault(victim: Host, n: number): Fault;
  /** How long the fault lasts, at least, ms. */
  holdMs: number;
  /** Share of the sites done before the fault (default a third). */
  faultAt?: number;
  /** Heal only once this holds of the sites done (and `holdMs` has passed). */
  healWhen?: (done: number) => boolean;
  /** The file's own checks of a night, after the common ones. */
  check(c: Cluster, result: NightResult, victim: Host): Promise<void>;
  /** Extra environment for every robots-audit process of the cluster. */
  env?: Record<string, string>;
}

export function describeFault(title: string, suite: FaultSuite): void {
  let c: Cluster;
  beforeAll(async () => {
    c = await startCluster({ sites: SITES, ...(suite.env ? { env: suite.env } : {}) });
    await nightWithFault(c, 0, { name: 'nothing', inject: async () => {}, heal: async () => {} }, { holdMs: 0 });
  });
  afterAll(async () => {
    await c?.close();
  });
  describe(title, () => {
    it.each(NIGHTS)('night %i: the run completes, one ordinary night per site, each alert stored and delivered once', async (n) => {
      const victim = c.workerHosts[n % c.workerHosts.length]!;
      const result = await nightWithFault(c, n, suite.fault(victim, n), {
        holdMs: suite.holdMs,
        ...(suite.faultAt === undefined ? {} : { faultAt: suite.faultAt }),
        ...(suite.healWhen ? { healWhen: suite.healWhen } : {}),
      });
      await expectWholeNight(c, result.runId);
      await suite.check(c, result, victim);
      // What the night went through, for the run's log (and the operations guide's figures).
      const { ids, repeats } = receivedWebhooks(c);
      console.info(
        `${title}, night ${n}: fault at ${result.doneAtFault}/${SITES} sites, healed at ${result.doneAtHeal}; ` +
          `nights stored per host ${JSON.stringify(Object.fromEntries(result.nightsStored))}, jobs lost ${JSON.stringify(Object.fromEntries(result.jobsLost))}; ` +
          `webhooks ${ids} ids, ${repeats} sent again`,
      );
    });
  });
}
