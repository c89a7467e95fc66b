/**
 * Starting and ending audit runs. A run is created once per run key (a second scheduler firing
 * finds it and adds nothing new) with the list of its sites; they are queued as batch jobs with
 * deterministic ids. A run ends when every one of its sites has its night stored, or was skipped
 * (removed while the run went on) or failed for good (a job that used up its retries): a job that
 * failed never holds its run open. Reconciling re-queues, one site job each, the sites that lost
 * their jobs (a Redis restart, say).
 */
import type { Job, Queue } from 'bullmq';
import { sql } from 'drizzle-orm';
import type { AuditRun, Repos } from '../db/index.js';
import { auditRuns } from '../db/schema.js';
import type { Executor } from '../db/client.js';
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
  const { repos } = deps;

  async function enqueueBatches(runId: number, siteIds: readonly number[]): Promise<void> {
    const jobs = [];
    for (let i = 0, batch = 0; i < siteIds.length; i += deps.batchSize, batch++) {
      const data = { runId, batch, siteIds: siteIds.slice(i, i + deps.batchSize) };
      jobs.push({ name: JOBS.fetchSites, data, opts: { jobId: jobIds.fetchSites(data) } });
    }
    for (let i = 0; i < jobs.length; i += ENQUEUE_BATCH) await deps.fetchQueue.addBulk(jobs.slice(i, i + ENQUEUE_BATCH));
  }

  async function enqueueSites(runId: number, siteIds: readonly number[]): Promise<void> {
    for (let i = 0; i < siteIds.length; i += ENQUEUE_BATCH) {
      await deps.siteQueue.addBulk(
        siteIds.slice(i, i + ENQUEUE_BATCH).map((siteId) => {
          const data = { runId, siteId };
          return { name: JOBS.fetchSite, data, opts: { jobId: jobIds.fetchSite(data) } };
        }),
      );
    }
  }

  /**
   * Creates the run (or finds it) and queues its sites. A run found running gets the sites it is
   * missing queued again; one found completed with failed sites is reopened for them.
   */
  async function startRun(input: StartRunInput): Promise<{ run: AuditRun; created: boolean; enqueued: number }> {
    let portfolioId: number | null = null;
    if (input.portfolio !== null) {
      const portfolio = await repos.portfolios.findPortfolio(input.portfolio);
      if (!portfolio) throw new UnknownPortfolioError(input.portfolio);
      portfolioId = portfolio.id;
    }
    const existing = await repos.runs.findRunByKey(input.runKey);
    if (existing) {
      const reopened = existing.status === 'completed' && Object.keys(existing.counts.failed ?? {}).length > 0 ? await reopen(existing.id) : existing;
      if (reopened.status !== 'running') return { run: reopened, created: false, enqueued: 0 };
      const { sites } = await requeueMissing(reopened, { retryFailedJobs: true });
      return { run: reopened, created: false, enqueued: sites };
    }
    const sites = await repos.sites.enabledSitesForRun({ portfolioId });
    const siteIds = sites.map((s) => s.id);
    const { run, created } = await repos.runs.createRun({
      runKey: input.runKey,
      trigger: input.trigger,
      runAt: input.runAt,
      portfolioId,
      sitesTotal: siteIds.length,
      siteIds,
      startedAt: deps.now(),
    });
    if (!created) return { run, created, enqueued: (await requeueMissing(run, { retryFailedJobs: false })).sites };
    await enqueueBatches(run.id, siteIds);
    if (run.sitesTotal === 0) await finishIfComplete(run.id);
    return { run, created, enqueued: siteIds.length };
  }

  /** A completed run with failed sites goes back to running, its failures forgotten, to try them again. */
  async function reopen(runId: number): Promise<AuditRun> {
    const rows = await deps.db
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
  async function missingSites(run: AuditRun): Promise<number[]> {
    const members = run.siteIds ?? (await repos.sites.enabledSitesForRun({ portfolioId: run.portfolioId })).map((s) => s.id);
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
   * Gives every missing site of a running run a live job. A site job that is waiting, delayed or
   * active is left alone; one that failed for good counts the site as failed (or, when asked, is
   * tried again); a missing one (lost with Redis' state, or its batch failed) is queued.
   */
  async function requeueMissing(run: AuditRun, options: { retryFailedJobs: boolean }): Promise<Requeued> {
    const done: Requeued = { sites: 0, failed: 0 };
    const queue: number[] = [];
    for (const siteId of await missingSites(run)) {
      const job = (await deps.siteQueue.getJob(jobIds.fetchSite({ runId: run.id, siteId }))) as Job | undefined;
      const state = job ? await job.getState() : 'missing';
      if (state === 'failed' && !options.retryFailedJobs) {
        await markSiteFailed(run.id, siteId, job?.failedReason ?? 'failed');
        done.failed += 1;
      } else if (state === 'failed' || state === 'completed' || state === 'missing' || state === 'unknown') {
        if (job && (state === 'failed' || state === 'completed')) await job.remove();
        queue.push(siteId);
      }
    }
    await enqueueSites(run.id, queue);
    done.sites = queue.length;
    return done;
  }

  /** A site removed while the run went on: counted as skipped so the run can still end. */
  async function markSiteSkipped(runId: number, siteId: number): Promise<void> {
    await markSite(runId, siteId, 'skipped');
  }

  /** A site whose job failed for good: counted as failed so the run can still end. */
  async function markSiteFailed(runId: number, siteId: number, _reason: string): Promise<void> {
    await markSite(runId, siteId, 'failed');
  }

  async function markSite(runId: number, siteId: number, group: 'skipped' | 'failed'): Promise<void> {
    // Not when its night is stored after all (a late duplicate job): it is done, not failed.
    await deps.db.execute(sql`
      update audit_runs r set counts = jsonb_set(r.counts, ${`{${group}}`}::text[],
                                                 coalesce(r.counts -> ${group}, '{}'::jsonb) || jsonb_build_object(${String(siteId)}::text, 1))
      where r.id = ${runId}
        and not exists (select 1 from snapshots n where n.site_id = ${siteId} and n.run_id = ${runId} and n.run_at = r.run_at)`);
  }

  /**
   * Ends the run when every site is done, skipped or failed. The digests of digest channels are
   * created first (idempotent rows), so that a run seen as completed always has them; then one
   * statement switches the run to completed, and only the caller whose statement did it gets the
   * run back.
   */
  async function finishIfComplete(runId: number): Promise<AuditRun | null> {
    const run = await repos.runs.getRun(runId);
    if (!run || run.status !== 'running') return null;
    const skipped = Object.keys(run.counts.skipped ?? {}).length;
    const failed = Object.keys(run.counts.failed ?? {}).length;
    if (run.sitesDone + skipped + failed < run.sitesTotal) return null;
    await createDigests(runId);
    const finished = await deps.db
      .update(auditRuns)
      .set({ status: 'completed', finishedAt: deps.now() })
      .where(sql`${auditRuns.id} = ${runId} and ${auditRuns.status} = 'running'`)
      .returning();
    return finished[0] ?? null;
  }

  /** One digest delivery per enabled digest channel that has alerts in the run at its minimum severity. */
  async function createDigests(runId: number): Promise<void> {
    const channels = (await repos.channels.enabledChannels()).filter((c) => c.digest);
    const targets = [];
    for (const c of channels) {
      if ((await repos.alerts.alertsOfRun(runId, c.minSeverity)).length > 0) targets.push({ channelId: c.id, digestRunId: runId });
    }
    await repos.alerts.createDeliveries(targets);
  }

  /** Re-queues what lost jobs left undone for a running run, then ends it if it is complete. */
  async function reconcile(runId: number): Promise<Requeued> {
    const run = await repos.runs.getRun(runId);
    if (!run || run.status !== 'running') return { sites: 0, failed: 0 };
    const done = await requeueMissing(run, { retryFailedJobs: false });
    await finishIfComplete(run.id);
    return done;
  }

  return { startRun, finishIfComplete, markSiteSkipped, markSiteFailed, reconcile, missingSites };
}

export type RunLifecycle = ReturnType<typeof createRunLifecycle>;
