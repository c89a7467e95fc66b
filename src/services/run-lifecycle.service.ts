/**
 * Starting and ending audit runs. A run is created once per run key (a second scheduler firing
 * finds it and adds nothing new); its fetch jobs carry deterministic ids, so enqueueing again
 * after a crash or a Redis restart only adds the jobs that are missing. A run ends when every
 * site's snapshot has been diffed (sites removed while it ran are counted as skipped).
 */
import type { Queue } from 'bullmq';
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
  repos: Pick<Repos, 'runs' | 'sites' | 'portfolios' | 'snapshots' | 'channels' | 'alerts' | 'changes'>;
  fetchQueue: Pick<Queue, 'addBulk'>;
  diffQueue: Pick<Queue, 'addBulk'>;
  now: () => Date;
}

export function createRunLifecycle(deps: RunLifecycleDeps) {
  const { repos } = deps;

  async function enqueueFetches(runId: number, siteIds: number[]): Promise<void> {
    for (let i = 0; i < siteIds.length; i += ENQUEUE_BATCH) {
      const batch = siteIds.slice(i, i + ENQUEUE_BATCH).map((siteId) => {
        const data = { runId, siteId };
        return { name: JOBS.fetchSite, data, opts: { jobId: jobIds.fetchSite(data) } };
      });
      await deps.fetchQueue.addBulk(batch);
    }
  }

  /** Creates the run (or finds it) and enqueues a fetch job per site that has no snapshot yet. */
  async function startRun(input: StartRunInput): Promise<{ run: AuditRun; created: boolean; enqueued: number }> {
    let portfolioId: number | null = null;
    if (input.portfolio !== null) {
      const portfolio = await repos.portfolios.findPortfolio(input.portfolio);
      if (!portfolio) throw new UnknownPortfolioError(input.portfolio);
      portfolioId = portfolio.id;
    }
    const existing = await repos.runs.findRunByKey(input.runKey);
    if (existing) {
      const missing = await sitesWithoutSnapshot(existing);
      await enqueueFetches(existing.id, missing);
      return { run: existing, created: false, enqueued: missing.length };
    }
    const sites = await repos.sites.enabledSitesForRun({ portfolioId });
    const { run, created } = await repos.runs.createRun({
      runKey: input.runKey,
      trigger: input.trigger,
      runAt: input.runAt,
      portfolioId,
      sitesTotal: sites.length,
      startedAt: deps.now(),
    });
    const siteIds = created ? sites.map((s) => s.id) : await sitesWithoutSnapshot(run);
    await enqueueFetches(run.id, siteIds);
    if (run.sitesTotal === 0) await finishIfComplete(run.id);
    return { run, created, enqueued: siteIds.length };
  }

  /** The run's sites (its portfolio's enabled sites, as now) that have no snapshot in it. */
  async function sitesWithoutSnapshot(run: AuditRun): Promise<number[]> {
    const sites = await repos.sites.enabledSitesForRun({ portfolioId: run.portfolioId });
    const rows = await deps.db.execute<{ site_id: number }>(sql`select site_id from snapshots where run_id = ${run.id}`);
    const done = new Set(rows.rows.map((r) => Number(r.site_id)));
    return sites.map((s) => s.id).filter((id) => !done.has(id));
  }

  /** A site removed while the run went on: counted as skipped so the run can still end. */
  async function markSiteSkipped(runId: number, siteId: number): Promise<void> {
    await deps.db
      .update(auditRuns)
      .set({ counts: sql`jsonb_set(${auditRuns.counts}, '{skipped}', coalesce(${auditRuns.counts} -> 'skipped', '{}'::jsonb) || jsonb_build_object(${String(siteId)}::text, 1))` })
      .where(sql`${auditRuns.id} = ${runId}`);
  }

  /**
   * Ends the run when every site is diffed or skipped. The digests of digest channels are
   * created first (idempotent rows), so that a run seen as completed always has them; then one
   * statement switches the run to completed with its counts and end time, and only the caller
   * whose statement did it gets the run back.
   */
  async function finishIfComplete(runId: number): Promise<AuditRun | null> {
    const run = await repos.runs.getRun(runId);
    if (!run || run.status !== 'running') return null;
    // Called after every diff: the counter answers from the run's row; only when it says "all
    // done" is it confirmed that no snapshot (of a site added while the run went on) waits.
    const skipped = Object.keys(run.counts.skipped ?? {}).length;
    if (run.sitesDiffed + skipped < run.sitesTotal || (await repos.changes.hasUndiffed(runId))) return null;
    await createDigests(runId);
    const counts = await repos.runs.computeCounts(runId);
    const finished = await deps.db
      .update(auditRuns)
      .set({
        status: 'completed',
        finishedAt: deps.now(),
        counts: sql`${auditRuns.counts} || ${JSON.stringify(counts)}::jsonb`,
      })
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

  /** Re-enqueues what a lost job (Redis restart, killed worker) left undone for a running run. */
  async function reconcile(runId: number): Promise<{ fetches: number; diffs: number }> {
    const run = await repos.runs.getRun(runId);
    if (!run || run.status !== 'running') return { fetches: 0, diffs: 0 };
    const missing = await sitesWithoutSnapshot(run);
    await enqueueFetches(run.id, missing);
    const undiffed = await repos.changes.undiffedSiteIds(run.id);
    for (let i = 0; i < undiffed.length; i += ENQUEUE_BATCH) {
      await deps.diffQueue.addBulk(
        undiffed.slice(i, i + ENQUEUE_BATCH).map((siteId) => {
          const data = { runId: run.id, siteId };
          return { name: JOBS.diffSite, data, opts: { jobId: jobIds.diffSite(data) } };
        }),
      );
    }
    await finishIfComplete(run.id);
    return { fetches: missing.length, diffs: undiffed.length };
  }

  return { startRun, finishIfComplete, markSiteSkipped, reconcile };
}

export type RunLifecycle = ReturnType<typeof createRunLifecycle>;
