/**
 * Reading what nights wrote about changes and alerts: a run's progress, the deliveries still
 * pending of a site's night or of a run, and the text diff shown with an alert.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from './client.js';
import { progressColumns, tallyOf } from './runs.repo.js';
import type { RunTally } from './runs.repo.js';
import { alertDeliveries, alerts, auditRuns, snapshotChanges } from './schema.js';

export type Change = typeof snapshotChanges.$inferSelect;

export function createChangesRepo(db: Executor) {
  return {
    /** Progress of a run, from its row (without its site list). */
    async runProgress(runId: number): Promise<RunTally> {
      const rows = await db.select(progressColumns).from(auditRuns).where(eq(auditRuns.id, runId)).limit(1);
      return rows[0] ? tallyOf(rows[0]) : { done: 0, skipped: 0, failed: 0, pending: 0, waiting: 0, total: 0 };
    },

    /** The change record of a site's night, if anything changed. */
    async changeOf(runId: number, siteId: number): Promise<Change | null> {
      const rows = await db
        .select()
        .from(snapshotChanges)
        .where(and(eq(snapshotChanges.siteId, siteId), eq(snapshotChanges.runId, runId)))
        .limit(1);
      return rows[0] ?? null;
    },
  };
}

export type ChangesRepo = ReturnType<typeof createChangesRepo>;

/** Pending deliveries of the alerts of one site's night (to queue them after the night is stored). */
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
    .where(and(eq(snapshotChanges.siteId, siteId), eq(snapshotChanges.runId, runId)))
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
