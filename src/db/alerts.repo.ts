/**
 * Alerts and their deliveries. Both are idempotent on a `dedupe_key` (habit 5): a diff job that
 * runs twice, or a re-run of a night, raises no alert twice and queues no delivery twice, yet
 * gets back every row it would have written, so it can still make sure each delivery is queued.
 *
 * A delivery's life: `pending` -> `delivered`, or `pending` -> `failed` once retries are given
 * up. `markDelivered` and `markAttemptFailed` each count one attempt; `markFailed` counts none
 * (call it after the last `markAttemptFailed`, or for a permanent error after recording it).
 */
import { and, asc, eq, inArray, ne, not, sql } from 'drizzle-orm';
import type { Executor } from './client.js';
import type { AlertChannel } from './channels.repo.js';
import { alertChannels, alertDeliveries, alerts, auditRuns, sites } from './schema.js';
import { SEVERITIES } from '../night/vocabulary.js';

export type Alert = typeof alerts.$inferSelect;
export type AlertSeverityName = Alert['severity'];
export type AlertDelivery = typeof alertDeliveries.$inferSelect;

/** An alert to raise: `dedupeKey` decides whether it exists already. */
export type AlertInput = Pick<typeof alerts.$inferInsert, 'dedupeKey' | 'runId' | 'siteId' | 'severity' | 'kind' | 'title' | 'details'>;

/** An alert with its site's origin (null for run-level alerts or a removed site). */
export type AlertWithOrigin = Alert & { origin: string | null };

export interface Written<T> {
  /** Rows this call created, in input order. */
  inserted: T[];
  /** Rows that existed already (same dedupe key), in input order. */
  existing: T[];
}

/**
 * One alert to one channel, or the digest of a run to one channel: the run's digest when it
 * completes, or its late digest (`late`), once the sites that were pending then are in (issue 26).
 */
export type DeliveryTarget = { channelId: number; alertId: number } | { channelId: number; digestRunId: number; late?: boolean };

/**
 * Which of a run's alerts: all of them; those of a digest (`main`: every site but the late ones);
 * those of the late digest (`late`: the sites that were pending when the run completed).
 */
export type RunAlertsPart = 'all' | 'main' | 'late';

/** A site the run did not wait for: when its retry was due as the run completed. */
export interface LateSite {
  siteId: number;
  origin: string | null;
  until: Date;
}

export interface DeliveryWithContext {
  delivery: AlertDelivery;
  channel: AlertChannel;
  /**
   * The alert of a single delivery, or for a digest every alert of the run at or above the
   * channel's minimum severity.
   */
  alerts: AlertWithOrigin[];
  /** Set for digests. */
  digestRunId: number | null;
  /** A late digest (its alerts: the late sites'). */
  late: boolean;
  /** For digests: the sites that were pending when the run completed (the late digest's sites). */
  lateSites: LateSite[];
}

/** `ch<id>:alert<id>` / `ch<id>:run<id>:digest` / `ch<id>:run<id>:late-digest`, as the schema documents. */
export function deliveryDedupeKey(target: DeliveryTarget): string {
  if ('alertId' in target) return `ch${target.channelId}:alert${target.alertId}`;
  return `ch${target.channelId}:run${target.digestRunId}:${target.late ? 'late-digest' : 'digest'}`;
}

/** A late digest's delivery, known by its dedupe key. */
export function isLateDigestKey(dedupeKey: string): boolean {
  return dedupeKey.endsWith(':late-digest');
}

/** The severities at least as severe as `min` (critical > warning > info). */
export function severitiesAtLeast(min: AlertSeverityName): AlertSeverityName[] {
  return SEVERITIES.slice(0, SEVERITIES.indexOf(min) + 1);
}

function inOrder<T>(keys: readonly string[], rows: readonly T[], keyOf: (row: T) => string): T[] {
  const byKey = new Map(rows.map((r) => [keyOf(r), r]));
  return keys.flatMap((k) => (byKey.has(k) ? [byKey.get(k)!] : []));
}

/** Alerts with their site's origin, for a caller to filter and order. */
function alertsWithOrigin(db: Executor) {
  return db
    .select({ alert: alerts, origin: sites.origin })
    .from(alerts)
    .leftJoin(sites, eq(sites.id, alerts.siteId))
    .$dynamic();
}

/** Raising alerts and reading a run's. */
function alertRows(db: Executor) {
  return {
    /**
     * A run's alerts at or above `minSeverity`, most severe first, then by origin and kind: all, or
     * a digest's part of them (the late sites' alerts go in the late digest, the others in the run's).
     */
    async alertsOfRun(runId: number, minSeverity: AlertSeverityName = 'info', part: RunAlertsPart = 'all'): Promise<AlertWithOrigin[]> {
      const late = sql`exists (select 1 from ${auditRuns} r where r.id = ${alerts.runId} and coalesce((r.counts -> 'late') ? ${alerts.siteId}::text, false))`;
      const rows = await alertsWithOrigin(db)
        .where(
          and(
            eq(alerts.runId, runId),
            inArray(alerts.severity, severitiesAtLeast(minSeverity)),
            part === 'all' ? undefined : part === 'late' ? late : not(late),
          ),
        )
        .orderBy(asc(alerts.severity), asc(sites.origin), asc(alerts.kind), asc(alerts.id));
      return rows.map((r) => ({ ...r.alert, origin: r.origin }));
    },

    /** The sites that were pending when the run completed, with when their retry was due then, by origin. */
    async lateSitesOf(runId: number): Promise<LateSite[]> {
      const result = await db.execute<{ site_id: number; origin: string | null; until: string }>(sql`
        select l.key::int as site_id, s.origin, l.value #>> '{}' as until
        from ${auditRuns} r, jsonb_each(coalesce(r.counts -> 'late', '{}'::jsonb)) l
        left join ${sites} s on s.id = l.key::int
        where r.id = ${runId}
        order by s.origin, l.key::int`);
      return result.rows.map((r) => ({ siteId: Number(r.site_id), origin: r.origin, until: new Date(r.until) }));
    },

    /** Raises alerts; one whose dedupe key exists is not written again but is returned in `existing`. */
    async insertAlerts(drafts: readonly AlertInput[]): Promise<Written<Alert>> {
      const unique = [...new Map(drafts.map((d) => [d.dedupeKey, d])).values()];
      if (unique.length === 0) return { inserted: [], existing: [] };
      const keys = unique.map((d) => d.dedupeKey);
      const inserted = await db.insert(alerts).values(unique).onConflictDoNothing({ target: alerts.dedupeKey }).returning();
      const insertedKeys = new Set(inserted.map((a) => a.dedupeKey));
      const rest = keys.filter((k) => !insertedKeys.has(k));
      const existing = rest.length === 0 ? [] : await db.select().from(alerts).where(inArray(alerts.dedupeKey, rest));
      const keyOf = (a: Alert) => a.dedupeKey;
      return { inserted: inOrder(keys, inserted, keyOf), existing: inOrder(rest, existing, keyOf) };
    },
  };
}

type AlertRows = ReturnType<typeof alertRows>;

/** Reading deliveries: one with what sending it needs, and the pending ones. */
function deliveryReads(db: Executor, runAlerts: Pick<AlertRows, 'alertsOfRun' | 'lateSitesOf'>) {
  return {
    /** A delivery with what sending it needs; null when it (or its channel) was deleted. */
    async getDelivery(id: number): Promise<DeliveryWithContext | null> {
      const rows = await db
        .select({ delivery: alertDeliveries, channel: alertChannels })
        .from(alertDeliveries)
        .innerJoin(alertChannels, eq(alertChannels.id, alertDeliveries.channelId))
        .where(eq(alertDeliveries.id, id))
        .limit(1);
      const row = rows[0];
      if (!row) return null;
      const { delivery, channel } = row;
      if (delivery.alertId !== null) {
        const found = await alertsWithOrigin(db).where(eq(alerts.id, delivery.alertId)).limit(1);
        return { delivery, channel, alerts: found.map((r) => ({ ...r.alert, origin: r.origin })), digestRunId: null, late: false, lateSites: [] };
      }
      const runId = delivery.runId;
      const late = isLateDigestKey(delivery.dedupeKey);
      if (runId === null) return { delivery, channel, alerts: [], digestRunId: null, late, lateSites: [] };
      return { delivery, channel, alerts: await runAlerts.alertsOfRun(runId, channel.minSeverity, late ? 'late' : 'main'), digestRunId: runId, late, lateSites: await runAlerts.lateSitesOf(runId) };
    },

    /** Pending deliveries, oldest first, at most `limit`: what reconciling the alerts queue looks at. */
    async pendingDeliveries(limit: number): Promise<{ id: number; attempts: number }[]> {
      return db
        .select({ id: alertDeliveries.id, attempts: alertDeliveries.attempts })
        .from(alertDeliveries)
        .where(eq(alertDeliveries.status, 'pending'))
        .orderBy(asc(alertDeliveries.id))
        .limit(limit);
    },
  };
}

/** Queueing deliveries and recording how their attempts went. */
function deliveryWrites(db: Executor) {
  async function deliveriesByKey(keys: readonly string[]): Promise<AlertDelivery[]> {
    if (keys.length === 0) return [];
    return db.select().from(alertDeliveries).where(inArray(alertDeliveries.dedupeKey, [...keys]));
  }

  return {
    /** Queues deliveries (status pending); one whose dedupe key exists is returned in `existing`. */
    async createDeliveries(targets: readonly DeliveryTarget[]): Promise<Written<AlertDelivery>> {
      const rows = [
        ...new Map(
          targets.map((t) => {
            const dedupeKey = deliveryDedupeKey(t);
            const row = 'alertId' in t ? { channelId: t.channelId, alertId: t.alertId, dedupeKey } : { channelId: t.channelId, runId: t.digestRunId, dedupeKey };
            return [dedupeKey, row] as const;
          }),
        ).values(),
      ];
      if (rows.length === 0) return { inserted: [], existing: [] };
      const keys = rows.map((r) => r.dedupeKey);
      const inserted = await db.insert(alertDeliveries).values(rows).onConflictDoNothing({ target: alertDeliveries.dedupeKey }).returning();
      const insertedKeys = new Set(inserted.map((d) => d.dedupeKey));
      const rest = keys.filter((k) => !insertedKeys.has(k));
      const keyOf = (d: AlertDelivery) => d.dedupeKey;
      return { inserted: inOrder(keys, inserted, keyOf), existing: inOrder(rest, await deliveriesByKey(rest), keyOf) };
    },

    /** Counts the attempt that succeeded. A delivery already delivered is left as it is. */
    async markDelivered(id: number, httpStatus: number | null, at: Date = new Date()): Promise<AlertDelivery | null> {
      const rows = await db
        .update(alertDeliveries)
        .set({
          status: 'delivered',
          attempts: sql`${alertDeliveries.attempts} + 1`,
          lastStatus: httpStatus,
          lastError: null,
          deliveredAt: at,
        })
        .where(and(eq(alertDeliveries.id, id), ne(alertDeliveries.status, 'delivered')))
        .returning();
      return rows[0] ?? null;
    },

    /** Counts a failed attempt of a pending delivery, keeping its error and HTTP status. */
    async markAttemptFailed(id: number, error: string, httpStatus: number | null): Promise<AlertDelivery | null> {
      const rows = await db
        .update(alertDeliveries)
        .set({ attempts: sql`${alertDeliveries.attempts} + 1`, lastError: error, lastStatus: httpStatus })
        .where(and(eq(alertDeliveries.id, id), eq(alertDeliveries.status, 'pending')))
        .returning();
      return rows[0] ?? null;
    },

    /** Gives a pending delivery up (no attempt counted); `error` replaces the last error when given. */
    async markFailed(id: number, error?: string): Promise<AlertDelivery | null> {
      const rows = await db
        .update(alertDeliveries)
        .set({ status: 'failed', ...(error !== undefined ? { lastError: error } : {}) })
        .where(and(eq(alertDeliveries.id, id), eq(alertDeliveries.status, 'pending')))
        .returning();
      return rows[0] ?? null;
    },
  };
}

export function createAlertsRepo(db: Executor) {
  const runAlerts = alertRows(db);
  return { ...runAlerts, ...deliveryReads(db, runAlerts), ...deliveryWrites(db) };
}

export type AlertsRepo = ReturnType<typeof createAlertsRepo>;
