/** What a stored batch adds to its runs' rows: the nights counted, and the retries waited for (run-counters.ts). */
import type pg from 'pg';
import type { SiteNight } from '../../night/rows.js';
import { createLateDigests, updateRunCounters } from '../run-counters.js';
import type { RunCounterUpdate, ScheduledWait } from '../run-counters.js';
import type { FailedAttemptRow } from '../../night/rows.js';
import type { StoreResult } from './store-result.js';

type RunUpdate = RunCounterUpdate & { stored: number[]; waits: ScheduledWait[] };

function bump(counts: RunCounterUpdate['counts'], group: string, key: string): void {
  const g = (counts[group] ??= {});
  g[key] = (g[key] ?? 0) + 1;
}

/** Each run's update: its nights stored with their outcome, policy and change counts, and its sites' latest waits. */
function runUpdates(fresh: readonly SiteNight[], attempts: readonly FailedAttemptRow[]): Map<number, RunUpdate> {
  const byRun = new Map<number, RunUpdate>();
  const runOf = (runId: number) => byRun.get(runId) ?? byRun.set(runId, { runId, done: 0, counts: {}, stored: [], waits: [] }).get(runId)!;
  for (const n of fresh) {
    const run = runOf(n.runId);
    run.done += 1;
    run.stored.push(n.siteId);
    bump(run.counts, 'outcome', n.snapshot.outcome);
    bump(run.counts, 'policy', n.snapshot.policy);
    for (const kind of n.change?.kinds ?? []) bump(run.counts, 'change', kind);
  }
  // A site's later attempt (a higher number) is its wait now.
  for (const a of [...attempts].sort((x, y) => x.attempt - y.attempt)) {
    const { waits } = runOf(a.runId);
    const i = waits.findIndex((w) => w.siteId === a.siteId);
    const wait = { siteId: a.siteId, until: a.retryUntil, holdsRun: a.holdsRun };
    if (i >= 0) waits[i] = wait;
    else waits.push(wait);
  }
  return byRun;
}

/**
 * The runs' counters and waits, once per run, under each run row's lock (runs in id order, the
 * one order every writer takes them in). A run this completes is to finish; a completed run
 * whose last late site came in gets its late digests, in this transaction.
 */
export async function countRuns(db: pg.PoolClient, fresh: readonly SiteNight[], attempts: readonly FailedAttemptRow[], result: StoreResult): Promise<void> {
  for (const [runId, update] of [...runUpdates(fresh, attempts)].sort((a, b) => a[0] - b[0])) {
    const { complete, lateSettled } = await updateRunCounters(db, update);
    if (complete) result.runsToFinish.push(runId);
    if (lateSettled) result.deliveryIds.push(...(await createLateDigests(db, runId)));
  }
}
