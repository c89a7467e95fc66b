/**
 * What the diff worker writes for a site's night: the change record, every verdict, the flips,
 * and the mark that the snapshot is done. Written in one transaction by the caller; every insert
 * is idempotent on its natural key, so a retried diff job adds nothing.
 */
import { and, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Executor } from './client.js';
import { alertDeliveries, alerts, auditRuns, snapshotChanges, snapshots, verdictFlips, verdicts } from './schema.js';

export type ChangeInput = typeof snapshotChanges.$inferInsert;
export type VerdictInput = typeof verdicts.$inferInsert;
export type FlipInput = typeof verdictFlips.$inferInsert;
export type Verdict = typeof verdicts.$inferSelect;

export function createChangesRepo(db: Executor) {
  return {
    async insertChange(input: ChangeInput): Promise<void> {
      await db.insert(snapshotChanges).values(input).onConflictDoNothing({ target: snapshotChanges.snapshotId });
    },

    async insertVerdicts(rows: VerdictInput[]): Promise<void> {
      // Chunks keep each statement under Postgres's 65,535 bind parameters (5 per row).
      for (let i = 0; i < rows.length; i += 5_000) {
        await db.insert(verdicts).values(rows.slice(i, i + 5_000)).onConflictDoNothing();
      }
    },

    async insertFlips(rows: FlipInput[]): Promise<void> {
      for (let i = 0; i < rows.length; i += 2_000) {
        await db.insert(verdictFlips).values(rows.slice(i, i + 2_000)).onConflictDoNothing();
      }
    },

    /** The verdicts of some tracked URLs in one run (the previous night of a site). */
    async verdictsOf(runId: number, trackedUrlIds: number[]): Promise<Verdict[]> {
      if (trackedUrlIds.length === 0) return [];
      return db
        .select()
        .from(verdicts)
        .where(and(eq(verdicts.runId, runId), inArray(verdicts.trackedUrlId, trackedUrlIds)));
    },

    /**
     * Marks a snapshot as diffed and counts it in its run's `sites_diffed`, the first time only
     * (one statement; the diff transaction's last, so the run's row stays locked briefly).
     */
    async markDiffed(snapshotId: number, at: Date): Promise<void> {
      await db.execute(sql`
        with marked as (
          update ${snapshots} set diffed_at = ${at.toISOString()}::timestamptz
          where ${snapshots.id} = ${snapshotId} and ${snapshots.diffedAt} is null
          returning run_id)
        update ${auditRuns} set sites_diffed = sites_diffed + 1 where ${auditRuns.id} in (select run_id from marked)`);
    },

    /** Whether a snapshot of the run still waits for its diff (the partial index answers at once). */
    async hasUndiffed(runId: number): Promise<boolean> {
      const rows = await db.execute(sql`select 1 from ${snapshots} where ${snapshots.runId} = ${runId} and ${snapshots.diffedAt} is null limit 1`);
      return rows.rows.length > 0;
    },

    /** Progress of a run: snapshots stored and snapshots diffed. */
    async runProgress(runId: number): Promise<{ snapshots: number; diffed: number }> {
      const [all] = await db.select({ n: count() }).from(snapshots).where(eq(snapshots.runId, runId));
      const [open] = await db
        .select({ n: count() })
        .from(snapshots)
        .where(and(eq(snapshots.runId, runId), isNull(snapshots.diffedAt)));
      const total = all?.n ?? 0;
      return { snapshots: total, diffed: total - (open?.n ?? 0) };
    },

    /** Snapshots of a run still owed a diff (to re-enqueue after a lost job). */
    async undiffedSiteIds(runId: number): Promise<number[]> {
      const rows = await db
        .select({ siteId: snapshots.siteId })
        .from(snapshots)
        .where(and(eq(snapshots.runId, runId), isNull(snapshots.diffedAt)));
      return rows.map((r) => r.siteId);
    },
  };
}

export type ChangesRepo = ReturnType<typeof createChangesRepo>;

/** Pending deliveries of the alerts of one site's night (to queue them after the diff commits). */
export async function pendingDeliveryIds(db: Executor, runId: number, siteId: number): Promise<number[]> {
  const rows = await db
    .select({ id: alertDeliveries.id })
    .from(alertDeliveries)
    .innerJoin(alerts, eq(alerts.id, alertDeliveries.alertId))
    .where(and(eq(alerts.runId, runId), eq(alerts.siteId, siteId), eq(alertDeliveries.status, 'pending')));
  return rows.map((r) => r.id);
}

/** The text diff of a site's night, shown with its alerts. */
export async function textDiffOf(db: Executor, runId: number, siteId: number): Promise<string | null> {
  const rows = await db
    .select({ textDiff: snapshotChanges.textDiff })
    .from(snapshotChanges)
    .where(and(eq(snapshotChanges.runId, runId), eq(snapshotChanges.siteId, siteId)))
    .limit(1);
  return rows[0]?.textDiff ?? null;
}

/** Every pending delivery of a run: its alerts' and its digests'. */
export async function pendingDeliveriesOfRun(db: Executor, runId: number): Promise<number[]> {
  const rows = await db.execute<{ id: string }>(sql`
    select d.id from alert_deliveries d left join alerts a on a.id = d.alert_id
    where d.status = 'pending' and (d.run_id = ${runId} or a.run_id = ${runId})`);
  return rows.rows.map((r) => Number(r.id));
}
