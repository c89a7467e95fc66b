/**
 * The dashboard's runs and alert deliveries: the runs newest first from the run_summary view
 * (a running one with its progress, a completed one with its pending sites: issue 26), a run's
 * sites waiting for a retry, and the deliveries of alerts to channels with their state.
 */
import type pg from 'pg';
import { loadWaits } from '../db/run-waits.js';
import type { DeliveryStatus } from '../night/vocabulary.js';

export interface RunRow {
  runId: number;
  runKey: string;
  trigger: string;
  status: string;
  portfolio: string | null;
  runAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  seconds: number | null;
  sitesTotal: number;
  sitesDone: number;
  sitesSkipped: number;
  sitesFailed: number;
  ok: number;
  unavailable: number;
  rateLimited: number;
  serverError: number;
  networkError: number;
  redirectLimit: number;
  changes: number;
  flips: number;
  alerts: number;
  /** Sites waiting for a retry: of a completed run, the pending ones (their nights still to come). */
  sitesWaiting: number;
}

const RUN_COLUMNS = `run_id as "runId", run_key as "runKey", trigger, status, portfolio, run_at as "runAt", started_at as "startedAt",
  finished_at as "finishedAt", seconds, sites_total as "sitesTotal", sites_done as "sitesDone", sites_skipped as "sitesSkipped",
  sites_failed as "sitesFailed", ok, unavailable, rate_limited as "rateLimited", server_error as "serverError",
  network_error as "networkError", redirect_limit as "redirectLimit", changes, flips, alerts,
  (select count(*)::int from audit_runs w, jsonb_object_keys(coalesce(w.counts -> 'waiting', '{}'::jsonb)) where w.id = run_summary.run_id) as "sitesWaiting"`;

export interface RunsPage {
  running: RunRow[];
  runs: RunRow[];
  total: number;
}

export async function runsPage(pool: pg.Pool, page: number, pageSize: number): Promise<RunsPage> {
  const [running, runs, total] = await Promise.all([
    pool.query<RunRow>(`select ${RUN_COLUMNS} from run_summary where status = 'running' order by run_at desc, run_id desc`),
    pool.query<RunRow>(`select ${RUN_COLUMNS} from run_summary order by run_at desc, run_id desc limit $1 offset $2`, [pageSize, (Math.max(1, page) - 1) * pageSize]),
    pool.query<{ n: number }>('select count(*)::int as n from audit_runs'),
  ]);
  return { running: running.rows, runs: runs.rows, total: total.rows[0]!.n };
}

export async function runById(pool: pg.Pool, runId: number): Promise<RunRow | null> {
  const { rows } = await pool.query<RunRow>(`select ${RUN_COLUMNS} from run_summary where run_id = $1`, [runId]);
  return rows[0] ?? null;
}

export interface RunWaitRow {
  siteId: number;
  origin: string | null;
  until: Date;
  /** Its run does not wait for it. */
  pending: boolean;
  /** What the attempt that failed got: `503, Retry-After: 3600`, `ECONNRESET`; and its number. */
  answer: string;
  attempt: number | null;
}

/** A run's sites waiting for a retry, the soonest due first. */
export async function runWaits(pool: pg.Pool, runId: number): Promise<RunWaitRow[]> {
  return (await loadWaits(pool, { runId })).map((w) => ({
    siteId: w.siteId,
    origin: w.origin,
    until: w.until,
    pending: w.pending,
    answer: `${w.status ?? w.errorCode ?? w.outcome ?? 'no answer'}${w.retryAfter !== null ? `, Retry-After: ${w.retryAfter}` : ''}`,
    attempt: w.attempt,
  }));
}

/** What a progress bar needs, read from one row (audit_runs keeps the counters). */
export async function runProgress(pool: pg.Pool, runId: number): Promise<{ status: string; sitesTotal: number; sitesDone: number } | null> {
  const { rows } = await pool.query<{ status: string; sitesTotal: number; sitesDone: number }>(
    'select status, sites_total as "sitesTotal", sites_done as "sitesDone" from audit_runs where id = $1',
    [runId],
  );
  return rows[0] ?? null;
}


export interface DeliveryRow {
  id: number;
  createdAt: Date;
  status: DeliveryStatus;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
  /** `webhook`, `slack` or `email`, and where: the host only (a Slack webhook URL's path is its secret), an e-mail channel's addresses. */
  channelKind: string;
  channelHost: string;
  digest: boolean;
  severity: string | null;
  kind: string | null;
  title: string | null;
  origin: string | null;
  runKey: string | null;
  /** The night the alert (or the digest's run) is about: a replayed night is its own date, not the delivery's. */
  night: Date | null;
  runId: number | null;
}

export interface DeliveriesPage {
  counts: Record<DeliveryStatus, number>;
  rows: DeliveryRow[];
}

export async function deliveriesPage(pool: pg.Pool, status: DeliveryStatus | null, page: number, pageSize: number): Promise<DeliveriesPage> {
  const [rows, counts] = await Promise.all([
    pool.query<DeliveryRow & { channel_url: string }>(
      `select d.id::int, d.created_at as "createdAt", d.status, d.attempts, d.last_status as "lastStatus", d.last_error as "lastError",
              d.delivered_at as "deliveredAt", ch.kind as "channelKind", ch.url as channel_url, d.run_id is not null and d.alert_id is null as digest,
              l.severity, l.kind, l.title, s.origin, coalesce(r.run_key, lr.run_key) as "runKey", coalesce(r.run_at, lr.run_at) as night, coalesce(r.id, lr.id) as "runId"
       from alert_deliveries d
       join alert_channels ch on ch.id = d.channel_id
       left join alerts l on l.id = d.alert_id
       left join sites s on s.id = l.site_id
       left join audit_runs r on r.id = d.run_id
       left join audit_runs lr on lr.id = l.run_id
       where $1::delivery_status is null or d.status = $1
       order by d.id desc limit $2 offset $3`,
      [status, pageSize, (Math.max(1, page) - 1) * pageSize],
    ),
    pool.query<{ status: DeliveryStatus; n: number }>('select status, count(*)::int as n from alert_deliveries group by status'),
  ]);
  const byStatus = { pending: 0, delivered: 0, failed: 0 };
  for (const c of counts.rows) byStatus[c.status] = c.n;
  return {
    counts: byStatus,
    rows: rows.rows.map(({ channel_url, ...d }) => ({ ...d, channelHost: channelHost(channel_url) })),
  };
}

function channelHost(url: string): string {
  if (url.startsWith('mailto:')) return url.slice('mailto:'.length);
  try {
    return new URL(url).host;
  } catch {
    return '(invalid URL)';
  }
}
