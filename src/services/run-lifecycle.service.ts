/**
 * Starting and ending audit runs. A run is created once per run key (a second scheduler firing
 * finds it and adds nothing new) with the list of its sites; they are queued as batch jobs with
 * deterministic ids. A run ends when every one of its sites has its night stored, or was skipped
 * (removed while the run went on) or failed for good (a job that used up its retries), or is
 * pending: waiting for a retry due past ROBOTS_AUDIT_RUN_HOLD_SECONDS (issue 26), which holds that
 * site only. A job that failed never holds its run open, nor does one site's long wait. The
 * pending sites of a completed run come in later (their nights, then the run's late digest).
 * Reconciling re-queues, one site job each, the sites that lost their jobs (a Redis restart,
 * say), a waiting one due when its retry was: in running runs, and in completed runs with
 * pending sites.
 */
import type { Job, Queue } from 'bullmq';
import { sql } from 'drizzle-orm';
import type pg from 'pg';
import type { AuditRun, Repos, RunProgress } from '../db/index.js';
import { progressColumns, tallyOf } from '../db/runs.repo.js';
import { auditRuns } from '../db/schema.js';
import type { Executor } from '../db/client.js';
import { inTransaction } from '../db/transaction.js';
import { createLateDigests, markRunSite, runSettledSql } from '../db/run-counters.js';
import { msUntil, runSettled } from '../policy/run-hold.js';
import { JOBS, jobIds } from '../queues/contracts.js';

/** Jobs added per addBulk call: large enough to be fast, small enough for Redis' request size. */
export const ENQUEUE_BATCH = 1_000;

export interface StartRunInput {
  runKey: string;
  trigger: 'scheduled' | 'manual';
  /** The run's policy clock (`audit --at`). */
  runAt: Date;
  portfolio: string | null;
}

export class UnknownPortfolioError extends Error {
  constructor(name: string) {
    super(`no portfolio named "${name}"`);
    this.name = 'UnknownPortfolioError';
  }
}

export interface RunLifecycleDeps {
  db: Executor;
  /** The same database, for the statements that share night-store's plain SQL (run-counters.ts). */
  pool: pg.Pool;
  repos: Pick<Repos, 'runs' | 'sites' | 'portfolios' | 'channels' | 'alerts'>;
  fetchQueue: Pick<Queue, 'addBulk'>;
  siteQueue: Pick<Queue, 'addBulk' | 'getJob'>;
  /** Sites per batch job. */
  batchSize: number;
  now: () => Date;
}

export interface Requeued {
  /** Sites queued again (a site job each). */
  sites: number;
  /** Sites whose site job had failed for good: counted as failed, so the run can end. */
  failed: number;
}

export function createRunLifecycle(deps: RunLifecycleDeps) {
  return {
    startRun: (input: StartRunInput) => startRun(deps, input),
    finishIfComplete: (runId: number) => finishIfComplete(deps, runId),
    markSiteSkipped: (runId: number, siteId: number) => markSiteSkipped(deps, runId, siteId),
    markSiteFailed: (runId: number, siteId: number, reason: string) => markSiteFailed(deps, runId, siteId, reason),
    reconcile: (runId: number) => reconcile(deps, runId),
    missingSites: (run: AuditRun) => missingSites(deps, run),
  };
}

async function enqueueBatches(deps: RunLifecycleDeps, runId: number, siteIds: readonly number[]): Promise<void> {
  const jobs = [];
  for (let i = 0, batch = 0; i < siteIds.length; i += deps.batchSize, batch++) {
    const data = { runId, batch, siteIds: siteIds.slice(i, i + deps.batchSize) };
    jobs.push({ name: JOBS.fetchSites, data, opts: { jobId: jobIds.fetchSites(data) } });
  }
  for (let i = 0; i < jobs.length; i += ENQUEUE_BATCH) await deps.fetchQueue.addBulk(jobs.slice(i, i + ENQUEUE_BATCH));
}

/** A site job each; one waiting for its retry (`waiting`: site id -> ISO time) starts when that is due. */
async function enqueueSites(deps: RunLifecycleDeps, runId: number, siteIds: readonly number[], waiting: Readonly<Record<string, string>> = {}): Promise<void> {
  const now = deps.now();
  for (let i = 0; i < siteIds.length; i += ENQUEUE_BATCH) {
    await deps.siteQueue.addBulk(
      siteIds.slice(i, i + ENQUEUE_BATCH).map((siteId) => {
        const data = { runId, siteId };
        const until = waiting[String(siteId)];
        const delay = until === undefined ? 0 : Math.round(msUntil(new Date(until), now));
        return { name: JOBS.fetchSite, data, opts: { jobId: jobIds.fetchSite(data), ...(delay > 0 ? { delay } : {}) } };
      }),
    );
  }
}

/**
 * Creates the run (or finds it) and queues its sites. A run found running gets the sites it is
 * missing queued again; one found completed with failed sites is reopened for them.
 */
async function startRun(deps: RunLifecycleDeps, input: StartRunInput): Promise<{ run: AuditRun; created: boolean; enqueued: number }> {
  const { repos } = deps;
  let portfolioId: number | null = null;
  if (input.portfolio !== null) {
    const portfolio = await repos.portfolios.findPortfolio(input.portfolio);
    if (!portfolio) throw new UnknownPortfolioError(input.portfolio);
    portfolioId = portfolio.id;
  }
  const existing = await repos.runs.findRunByKey(input.runKey);
  if (existing) {
    const reopened = existing.status === 'completed' && Object.keys(existing.counts.failed ?? {}).length > 0 ? await reopen(deps.db, existing.id) : existing;
    if (reopened.status !== 'running') return { run: reopened, created: false, enqueued: 0 };
    const { sites } = await requeueMissing(deps, reopened, { retryFailedJobs: true });
    return { run: reopened, created: false, enqueued: sites };
  }
  const siteIds = await repos.sites.enabledSiteIdsForRun({ portfolioId });
  const { run, created } = await repos.runs.createRun({
    runKey: input.runKey,
    trigger: input.trigger,
    runAt: input.runAt,
    portfolioId,
    sitesTotal: siteIds.length,
    siteIds,
    startedAt: deps.now(),
  });
  if (!created) return { run, created, enqueued: (await requeueMissing(deps, run, { retryFailedJobs: false })).sites };
  await enqueueBatches(deps, run.id, siteIds);
  if (run.sitesTotal === 0) await finishIfComplete(deps, run.id);
  return { run, created, enqueued: siteIds.length };
}

/** A completed run with failed sites goes back to running, its failures forgotten, to try them again. */
async function reopen(db: Executor, runId: number): Promise<AuditRun> {
  const rows = await db
    .update(auditRuns)
    .set({ status: 'running', finishedAt: null, counts: sql`${auditRuns.counts} - 'failed'` })
    .where(sql`${auditRuns.id} = ${runId}`)
    .returning();
  return rows[0]!;
}

/**
 * The run's sites without a stored night that were neither skipped nor failed: its site list
 * (or, for a run older than that list, its scope's enabled sites) minus what is stored.
 */
async function missingSites(deps: RunLifecycleDeps, run: AuditRun): Promise<number[]> {
  const members = run.siteIds ?? (await deps.repos.sites.enabledSiteIdsForRun({ portfolioId: run.portfolioId }));
  if (members.length === 0) return [];
  const rows = await deps.db.execute<{ id: number }>(sql`
    select m.id from unnest(${`{${members.join(',')}}`}::int[]) as m(id)
    where not exists (select 1 from snapshots n where n.site_id = m.id and n.run_at = ${run.runAt.toISOString()}::timestamptz and n.run_id = ${run.id})
      and not (coalesce(${run.counts.skipped ? JSON.stringify(run.counts.skipped) : '{}'}::jsonb, '{}'::jsonb) ? m.id::text)
      and not (coalesce(${run.counts.failed ? JSON.stringify(run.counts.failed) : '{}'}::jsonb, '{}'::jsonb) ? m.id::text)
      and exists (select 1 from sites s where s.id = m.id)
    order by m.id`);
  return rows.rows.map((r) => Number(r.id));
}

/**
 * Gives every missing site of a run a live job (of a completed run: its pending sites). A site
 * job that is waiting, delayed or active is left alone; one that failed for good counts the site
 * as failed (or, when asked, is tried again); a missing one (lost with Redis' state, or its batch
 * failed) is queued, due when its retry is if it was waiting for one.
 */
async function requeueMissing(deps: RunLifecycleDeps, run: AuditRun, options: { retryFailedJobs: boolean }): Promise<Requeued> {
  const done: Requeued = { sites: 0, failed: 0 };
  const queue: number[] = [];
  const waiting = run.counts.waiting ?? {};
  let missing = await missingSites(deps, run);
  if (run.status !== 'running') missing = missing.filter((siteId) => waiting[String(siteId)] !== undefined);
  for (const siteId of missing) {
    const job = (await deps.siteQueue.getJob(jobIds.fetchSite({ runId: run.id, siteId }))) as Job | undefined;
    const state = job ? await job.getState() : 'missing';
    if (state === 'failed' && !options.retryFailedJobs) {
      await markSiteFailed(deps, run.id, siteId, job?.failedReason ?? 'failed');
      done.failed += 1;
    } else if (state === 'failed' || state === 'completed' || state === 'missing' || state === 'unknown') {
      if (job && (state === 'failed' || state === 'completed')) await job.remove();
      queue.push(siteId);
    }
  }
  await enqueueSites(deps, run.id, queue, waiting);
  done.sites = queue.length;
  return done;
}

/** A site removed while the run went on: counted as skipped so the run can still end. */
async function markSiteSkipped(deps: RunLifecycleDeps, runId: number, siteId: number): Promise<void> {
  await markSite(deps.pool, runId, siteId, 'skipped');
}

/** A site whose job failed for good: counted as failed so the run can still end. */
async function markSiteFailed(deps: RunLifecycleDeps, runId: number, siteId: number, _reason: string): Promise<void> {
  await markSite(deps.pool, runId, siteId, 'failed');
}

/**
 * Counts the site (not when its night is stored after all: a late duplicate job is done, not
 * failed), and takes it off the run's waits; the last late site of a completed run brings its
 * late digests, in the same transaction (queued by whoever finishes the run's jobs).
 */
async function markSite(pool: pg.Pool, runId: number, siteId: number, group: 'skipped' | 'failed'): Promise<void> {
  await inTransaction(pool, async (client) => {
    const { lateSettled } = await markRunSite(client, runId, siteId, group);
    if (lateSettled) await createLateDigests(client, runId);
  });
}

/**
 * Ends the run when every site is done, skipped, failed or pending (its retry due past the
 * hold). The digests of digest channels are created first (idempotent rows), so that a run
 * seen as completed always has them; then one statement switches the run to completed (checking
 * again, under the row's lock, that it is settled) and records its pending sites as late; only
 * the caller whose statement did it gets the run back.
 */
async function finishIfComplete(deps: RunLifecycleDeps, runId: number): Promise<RunProgress | null> {
  const run = await deps.repos.runs.getRunProgress(runId);
  if (!run || run.status !== 'running') return null;
  if (!runSettled(tallyOf(run))) return null;
  await createDigests(deps.repos, runId);
  const counts = auditRuns.counts;
  const finished = await deps.db
    .update(auditRuns)
    .set({
      status: 'completed',
      finishedAt: deps.now(),
      // The pending sites' alerts go in the late digest, not this run's digest.
      counts: sql`case when ${counts} ? 'pending'
                       then ${counts} || jsonb_build_object('late', coalesce(${counts} -> 'late', '{}'::jsonb) || (${counts} -> 'pending'))
                       else ${counts} end`,
    })
    .where(sql`${auditRuns.id} = ${runId} and ${auditRuns.status} = 'running' and ${sql.raw(runSettledSql('audit_runs'))}`)
    .returning(progressColumns);
  const done = finished[0] ?? null;
  // A pending site whose night came in between the two is not late: its alerts are the digest's.
  if (done) await createDigests(deps.repos, runId);
  // What the run's nights added to the overview's counts, one row a group again (migration 0022).
  if (done) await deps.db.execute(sql`select robots_audit_fold_site_counts()`);
  return done;
}

/**
 * One digest delivery per enabled digest channel that has alerts in the run at its minimum
 * severity (the late sites' apart: they go in the late digest).
 */
async function createDigests(repos: RunLifecycleDeps['repos'], runId: number): Promise<void> {
  const channels = (await repos.channels.enabledChannels()).filter((c) => c.digest);
  const targets = [];
  for (const c of channels) {
    if ((await repos.alerts.alertsOfRun(runId, c.minSeverity, 'main')).length > 0) targets.push({ channelId: c.id, digestRunId: runId });
  }
  await repos.alerts.createDeliveries(targets);
}

/**
 * Re-queues what lost jobs left undone: for a running run, then ends it if it is complete; for
 * a completed run, its pending sites (a site whose job is lost is never lost with it).
 */
async function reconcile(deps: RunLifecycleDeps, runId: number): Promise<Requeued> {
  const run = await deps.repos.runs.getRun(runId);
  if (!run) return { sites: 0, failed: 0 };
  if (run.status === 'completed' && run.counts.waiting) return requeueMissing(deps, run, { retryFailedJobs: false });
  if (run.status !== 'running') return { sites: 0, failed: 0 };
  const done = await requeueMissing(deps, run, { retryFailedJobs: false });
  await finishIfComplete(deps, run.id);
  return done;
}

export type RunLifecycle = ReturnType<typeof createRunLifecycle>;
