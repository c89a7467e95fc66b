/**
 * Audit runs. `run_key` is the idempotency key: creating the run of a night twice (two scheduler
 * firings, a retried job) returns the first row.
 */
import { eq, getTableColumns, sql } from 'drizzle-orm';
import type { Executor } from './client.js';
import type { RunCounts } from './schema.js';
import { auditRuns } from './schema.js';

export type AuditRun = typeof auditRuns.$inferSelect;
/** A run without its site list: what progress and completion need (the list is ~6 bytes a site). */
export type RunProgress = Omit<AuditRun, 'siteIds'>;

const { siteIds: _siteIds, ...withoutSiteIds } = getTableColumns(auditRuns);
/** Every column of audit_runs but the site list. */
export const progressColumns = withoutSiteIds;

export interface RunTally {
  done: number;
  skipped: number;
  failed: number;
  /** Sites waiting for a retry the run does not wait for (policy/run-hold.ts). */
  pending: number;
  /** Sites waiting for a retry, pending ones included. */
  waiting: number;
  total: number;
}

/**
 * A run's progress from its row: nights stored, sites skipped (removed while it ran) or failed
 * for good, and those waiting for a retry (issue 26).
 */
export function tallyOf(run: Pick<RunProgress, 'sitesDone' | 'sitesTotal' | 'counts'>): RunTally {
  return {
    done: run.sitesDone,
    skipped: Object.keys(run.counts.skipped ?? {}).length,
    failed: Object.keys(run.counts.failed ?? {}).length,
    pending: Object.keys(run.counts.pending ?? {}).length,
    waiting: Object.keys(run.counts.waiting ?? {}).length,
    total: run.sitesTotal,
  };
}
export type CreateRunInput = Pick<typeof auditRuns.$inferInsert, 'runKey' | 'trigger' | 'runAt'> &
  Partial<Pick<typeof auditRuns.$inferInsert, 'portfolioId' | 'startedAt' | 'sitesTotal' | 'siteIds'>>;

/** Reading runs: by id or key, with or without their site list, and their totals. */
function runReads(db: Executor) {
  return {
    async getRun(id: number): Promise<AuditRun | null> {
      const rows = await db.select().from(auditRuns).where(eq(auditRuns.id, id)).limit(1);
      return rows[0] ?? null;
    },

    /**
     * The run without `site_ids`: for whatever polls a run (`audit --wait`, the end of a run), since a
     * run of 100,000 sites carries a list of ~600 KB that Postgres would send and pg parse each time.
     */
    async getRunProgress(id: number): Promise<RunProgress | null> {
      const rows = await db.select(progressColumns).from(auditRuns).where(eq(auditRuns.id, id)).limit(1);
      return rows[0] ?? null;
    },

    async findRunByKey(runKey: string): Promise<AuditRun | null> {
      const rows = await db.select().from(auditRuns).where(eq(auditRuns.runKey, runKey)).limit(1);
      return rows[0] ?? null;
    },

    /** Totals of a run from its rows: snapshots by outcome and by policy, changes by kind. */
    async computeCounts(runId: number): Promise<RunCounts> {
      const result = await db.execute<{ group: string; key: string; n: string }>(sql`
        select 'outcome' as "group", outcome::text as key, count(*) as n from snapshots where run_id = ${runId} group by outcome
        union all
        select 'policy', policy::text, count(*) from snapshots where run_id = ${runId} group by policy
        union all
        select 'change', kind, count(*) from snapshot_changes, unnest(kinds) as kind where run_id = ${runId} group by kind`);
      const counts: Record<string, Record<string, number>> = {};
      for (const row of result.rows) (counts[row.group] ??= {})[row.key] = Number(row.n);
      return counts;
    },

    /** Runs not yet finished, oldest first. */
    runningRuns(): Promise<RunProgress[]> {
      return db.select(progressColumns).from(auditRuns).where(eq(auditRuns.status, 'running')).orderBy(auditRuns.id);
    },

    /** Completed runs with a site still waiting for its retry (pending: issue 26), oldest first. */
    completedRunsWithWaits(): Promise<RunProgress[]> {
      return db
        .select(progressColumns)
        .from(auditRuns)
        .where(sql`${auditRuns.status} = 'completed' and ${auditRuns.counts} ? 'waiting'`)
        .orderBy(auditRuns.id);
    },
  };
}

type RunReads = ReturnType<typeof runReads>;

/** Creating, starting, counting and finishing runs. */
function runWrites(db: Executor, reads: Pick<RunReads, 'findRunByKey' | 'computeCounts'>) {
  return {
    /**
     * Creates the run unless its key exists; returns the row either way. A new row's site list is
     * the one given, not sent back (at 1,000,000 sites, ~7 MB that pg would parse again).
     */
    async createRun(input: CreateRunInput): Promise<{ run: AuditRun; created: boolean }> {
      const rows = await db.insert(auditRuns).values(input).onConflictDoNothing({ target: auditRuns.runKey }).returning(progressColumns);
      if (rows[0]) return { run: { ...rows[0], siteIds: input.siteIds ?? null }, created: true };
      const existing = await reads.findRunByKey(input.runKey);
      if (!existing) throw new Error(`run ${input.runKey} neither inserted nor found`);
      return { run: existing, created: false };
    },

    /** Sets `started_at` the first time only. */
    async markStarted(runId: number, at: Date = new Date()): Promise<void> {
      await db
        .update(auditRuns)
        .set({ startedAt: sql`coalesce(${auditRuns.startedAt}, ${at.toISOString()}::timestamptz)` })
        .where(eq(auditRuns.id, runId));
    },

    /**
     * Merges count groups into the run's `counts`: each given group's keys are set (not added),
     * so calling it twice with the same numbers changes nothing.
     */
    async addCounts(runId: number, counts: RunCounts): Promise<void> {
      const delta = sql`${JSON.stringify(counts)}::jsonb`;
      const current = auditRuns.counts;
      await db
        .update(auditRuns)
        .set({
          counts: sql`(
            select coalesce(jsonb_object_agg(k, case when ${delta} ? k
                                                     then coalesce(${current} -> k, '{}'::jsonb) || (${delta} -> k)
                                                     else ${current} -> k end), '{}'::jsonb)
            from (select jsonb_object_keys(${current}) union select jsonb_object_keys(${delta})) as keys(k))`,
        })
        .where(eq(auditRuns.id, runId));
    },

    /**
     * Ends a run: status, `finished_at` (the first time only) and counts recomputed from the
     * run's rows, so finishing twice gives the same result.
     */
    async finishRun(runId: number, options: { status: 'completed' | 'failed'; finishedAt?: Date }): Promise<AuditRun> {
      const counts = await reads.computeCounts(runId);
      const at = (options.finishedAt ?? new Date()).toISOString();
      const rows = await db
        .update(auditRuns)
        .set({
          status: options.status,
          finishedAt: sql`coalesce(${auditRuns.finishedAt}, ${at}::timestamptz)`,
          counts: sql`${auditRuns.counts} || ${JSON.stringify(counts)}::jsonb`,
        })
        .where(eq(auditRuns.id, runId))
        .returning();
      if (!rows[0]) throw new Error(`no run ${runId}`);
      return rows[0];
    },
  };
}

export function createRunsRepo(db: Executor) {
  const reads = runReads(db);
  return { ...reads, ...runWrites(db, reads) };
}

export type RunsRepo = ReturnType<typeof createRunsRepo>;
