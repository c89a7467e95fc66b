/**
 * The demo's nights: each one the run `robots-audit audit --wait --at <night>` would make (the
 * same run key, the same pipeline), but all of them through one runtime and one set of workers,
 * so that a night costs its work and not a start-up: 46 nights fit in the demo's minute.
 */
import { sql } from 'drizzle-orm';
import { tallyOf } from '../db/runs.repo.js';
import { firstPendingBody } from '../db/portability.repo.js';
import { PORTABILITY_VERSION } from '../robots/profiles/portability.js';
import type { Runtime } from '../services/runtime.js';
import { followRun, runKeyFor, summarizeRun } from './commands/audit.command.js';
import type { RunSummary } from './commands/audit.command.js';

/** How often a night's run is looked at: short, as a demo night takes a few hundred milliseconds. */
export const DEMO_POLL_MS = 20;

export interface NightAlert {
  severity: string;
  kind: string;
  title: string;
}

export interface ReplayedNight {
  summary: RunSummary;
  /** Sites whose night differs from their previous one (a first fetch is not a change). */
  changedSites: number;
  /** The night's alerts of at least `warning`, most severe first. */
  alerts: NightAlert[];
}

/** Starts the night's run and waits until it has ended; a stalled run is reconciled as `audit --wait` does. */
export async function replayNight(rt: Runtime, night: Date): Promise<ReplayedNight> {
  const { run } = await rt.lifecycle.startRun({ runKey: runKeyFor(night, null, new Date()), trigger: 'manual', runAt: night, portfolio: null });
  const ended = run.status === 'running' ? await followRun(rt, run.id, DEMO_POLL_MS) : run;
  const failed = tallyOf(ended).failed;
  if (ended.status !== 'completed' || failed > 0) throw new Error(`the run of ${night.toISOString()} ended ${ended.status} with ${failed} failed sites`);
  const alerts = await rt.db.db.execute<{ severity: string; kind: string; title: string }>(
    sql`select severity::text, kind, title from alerts where run_id = ${run.id} and severity in ('critical', 'warning') order by severity, kind, title`,
  );
  const changed = await rt.db.db.execute<{ n: string }>(
    sql`select count(*) as n from snapshot_changes where run_id = ${run.id} and not ('first_seen' = any(kinds))`,
  );
  return { summary: await summarizeRun(rt, ended, failed), changedSites: Number(changed.rows[0]?.n ?? 0), alerts: alerts.rows };
}

const counts = (c: Record<string, number>) =>
  Object.entries(c)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');

/** One line a night: `2023-09-01 03:00   6 sites  ok 6 | changed 2 | flips 12 | alerts warning 3`. */
export function nightLine(night: Date, { summary: s, changedSites: changed }: Pick<ReplayedNight, 'summary' | 'changedSites'>): string {
  const firstSeen = s.changes.first_seen ?? 0;
  const parts = [
    `${night.toISOString().slice(0, 16).replace('T', ' ')}  ${String(s.run.sites).padStart(2)} sites  ${counts(s.outcomes)}`,
    ...(firstSeen > 0 ? [`first seen ${firstSeen}`] : []),
    ...(changed > 0 ? [`changed ${changed}`] : []),
    ...(s.flips > 0 ? [`flips ${s.flips}`] : []),
    ...(Object.keys(s.alerts).length > 0 ? [`alerts ${counts(s.alerts)}`] : []),
  ];
  return parts.join(' | ');
}

/** Waits (bounded) until no delivery is pending: every alert delivered, or given up. */
export async function settleDeliveries(rt: Runtime, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = (await rt.repos.alerts.pendingDeliveries(1)).length;
    if (pending === 0 || Date.now() > deadline) return pending;
    await new Promise((resolve) => setTimeout(resolve, DEMO_POLL_MS * 5));
  }
}

/**
 * Waits (bounded) until every body the nights stored has its portability findings: the analysis
 * jobs the completed runs queued (issue 26), run by the demo's workers. Whatever is left when the
 * time is up is analysed here, as a worker would, so that `report portability` has it.
 */
export async function settleAnalysis(rt: Runtime, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = await firstPendingBody(rt.db.pool, PORTABILITY_VERSION);
    const jobs = await rt.queues.analysis.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    if (pending === null && Object.values(jobs).every((n) => n === 0)) return;
    if (Date.now() > deadline) {
      await rt.analysis.analysePending(Number.POSITIVE_INFINITY);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, DEMO_POLL_MS * 5));
  }
}
