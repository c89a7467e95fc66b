/**
 * The nights' alerts (`alerts`, idempotent on their dedupe key) and their deliveries to the
 * enabled per-alert channels at or above each channel's minimum severity (`alert_deliveries`).
 */
import type pg from 'pg';
import type { AlertDraft } from '../../night/alerts.js';
import type { SiteNight } from '../../night/rows.js';
import { deliveryDedupeKey, severitiesAtLeast } from '../alerts.repo.js';
import type { AlertSeverityName } from '../alerts.repo.js';
import { pgArray } from '../pg-array.js';
import { pgJson, pgText } from '../pg-text.js';
import { unnestInsert, unnestValues } from '../pg-unnest.js';
import type { ColumnMap } from '../pg-unnest.js';
import { insertOrSelect } from './insert-or-select.js';

/** An alert of a site, filed under a run (the night it is about). */
export interface SiteAlert {
  runId: number;
  siteId: number;
  draft: AlertDraft;
}

const ALERT_COLUMNS: ColumnMap<SiteAlert> = [
  { name: 'dedupe_key', type: 'text', value: (a) => a.draft.dedupeKey },
  { name: 'run_id', type: 'int', value: (a) => a.runId },
  { name: 'site_id', type: 'int', value: (a) => a.siteId },
  { name: 'severity', type: 'alert_severity', value: (a) => a.draft.severity },
  { name: 'kind', type: 'text', value: (a) => a.draft.kind },
  { name: 'title', type: 'text', value: (a) => pgText(a.draft.title) },
  { name: 'details', type: 'jsonb', value: (a) => pgJson(a.draft.details) },
];

const INSERT_ALERTS = unnestInsert('alerts', ALERT_COLUMNS, 'on conflict (dedupe_key) do nothing returning id, severity, dedupe_key');

/** An alert raised, now or before (bigint ids come back as text). */
interface AlertDbRow {
  id: string;
  severity: AlertSeverityName;
  dedupe_key: string;
}

/** Raises the nights' alerts; returns the deliveries created, to queue after the commit. */
export async function raiseAlerts(db: pg.PoolClient, fresh: readonly SiteNight[]): Promise<number[]> {
  return raiseSiteAlerts(
    db,
    fresh.flatMap((n) => n.alerts.map((draft): SiteAlert => ({ runId: n.runId, siteId: n.siteId, draft }))),
  );
}

/**
 * Raises alerts (a second time adds nothing: their dedupe keys) with their deliveries; the
 * deliveries created, to queue after the commit. The nights' and the log imports' alike.
 */
export async function raiseSiteAlerts(db: pg.PoolClient, drafts: readonly SiteAlert[]): Promise<number[]> {
  if (drafts.length === 0) return [];
  const alerts = await insertOrSelect(
    db,
    {
      insert: { name: 'night-insert-alerts', text: INSERT_ALERTS, values: unnestValues(ALERT_COLUMNS, drafts) },
      select: { name: 'night-alert-ids', text: 'select id, severity, dedupe_key from alerts where dedupe_key = any($1::text[])' },
      nameOf: (a: AlertDbRow) => a.dedupe_key,
      keyOf: (key) => key,
    },
    new Map(drafts.map((d) => [d.draft.dedupeKey, d.draft.dedupeKey])),
  );
  return deliver(db, alerts);
}

/** Creates the alerts' deliveries (idempotent on their dedupe key); the ids of those created. */
async function deliver(db: pg.PoolClient, alerts: readonly AlertDbRow[]): Promise<number[]> {
  const { rows: channels } = await db.query<{ id: number; min_severity: AlertSeverityName }>({
    name: 'night-alert-channels',
    text: 'select id, min_severity from alert_channels where enabled and not digest order by id',
  });
  const targets = channels.flatMap((c) => alerts.filter((a) => severitiesAtLeast(c.min_severity).includes(a.severity)).map((a) => ({ channelId: c.id, alertId: Number(a.id) })));
  if (targets.length === 0) return [];
  const { rows } = await db.query<{ id: string }>({
    name: 'night-insert-deliveries',
    text: `insert into alert_deliveries (channel_id, alert_id, dedupe_key)
           select * from unnest($1::int[], $2::bigint[], $3::text[])
           on conflict (dedupe_key) do nothing
           returning id`,
    values: [pgArray(targets, (t) => t.channelId), pgArray(targets, (t) => t.alertId), pgArray(targets, (t) => deliveryDedupeKey(t))],
  });
  return rows.map((r) => Number(r.id));
}
