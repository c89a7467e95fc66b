/**
 * The sites that wait for a retry (issue 26), as operators and reports read them: from the runs'
 * `counts.waiting` (see RunCounts), each with its site and the attempt that failed (its answer,
 * and the Retry-After it came with). Read by `audit --wait`, `stats`, the metrics, the dashboard
 * and a site's history. A wait lives on a running run, or on a completed run that did not wait
 * for it (pending): both are listed, a completed run's as pending.
 */

/** A query runner: a pool, a client, or a read-only reporting pool. */
export interface WaitsReader {
  query<R extends Record<string, unknown> = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

export interface SiteWait {
  runId: number;
  runKey: string;
  runAt: Date;
  runStatus: string;
  siteId: number;
  /** Null when the site was removed meanwhile. */
  origin: string | null;
  /** When its retry is due. */
  until: Date;
  /** Its run does not wait for it (the retry is due past the hold, or the run has completed). */
  pending: boolean;
  /** The attempt that failed: when it ended (the wait began), its number, and what it got: outcome, status or error code, Retry-After header. */
  since: Date | null;
  attempt: number | null;
  outcome: string | null;
  status: number | null;
  errorCode: string | null;
  retryAfter: string | null;
}

export interface WaitsFilter {
  /** The waits of one run. */
  runId?: number;
  /** The waits of one site (in any run). */
  siteId?: number;
  /** Only these sites' waits (with `runId`: the ones not looked at yet). */
  siteIds?: readonly number[];
  /** Soonest due first; at most this many. */
  limit?: number;
}

interface WaitDbRow extends Record<string, unknown> {
  run_id: number;
  run_key: string;
  run_at: Date;
  run_status: string;
  site_id: number;
  origin: string | null;
  until: string;
  pending: boolean;
  since: Date | null;
  attempt: number | null;
  outcome: string | null;
  status: number | null;
  error_code: string | null;
  retry_after: string | null;
}

/**
 * The runs that have waits: every run whose counts hold a `waiting` group (one row per run; the
 * table holds one row per run, not per site, so this stays a short scan).
 */
const RUNS_WITH_WAITS = `select r.id, r.run_key, r.run_at, r.status, r.counts from audit_runs r
  where r.status in ('running', 'completed') and r.counts ? 'waiting'`;

/** The waits, soonest due first, with their site and the attempt behind each. */
export async function loadWaits(db: WaitsReader, filter: WaitsFilter = {}): Promise<SiteWait[]> {
  const { rows } = await db.query<WaitDbRow>(
    `select r.id as run_id, r.run_key, r.run_at, r.status::text as run_status, w.key::int as site_id, s.origin, w.value #>> '{}' as until,
            (r.status <> 'running' or coalesce((r.counts -> 'pending') ? w.key, false)) as pending,
            f.started_at + make_interval(secs => f.duration_ms / 1000.0) as since, f.attempt, f.outcome::text as outcome, f.status, f.error_code, rs.retry_after
       from (${RUNS_WITH_WAITS} and ($1::int is null or r.id = $1)) r
       cross join lateral jsonb_each(r.counts -> 'waiting') w
       left join sites s on s.id = w.key::int
       left join lateral (select a.started_at, a.duration_ms, a.attempt, a.outcome, a.status, a.error_code, a.response_id from failed_attempts a
                          where a.site_id = w.key::int and a.run_id = r.id order by a.attempt desc limit 1) f on true
       left join responses rs on rs.id = f.response_id
      where ($2::int is null or w.key = $2::int::text) and ($4::text[] is null or w.key = any($4::text[]))
      order by until, s.origin, r.id
      limit $3`,
    [filter.runId ?? null, filter.siteId ?? null, filter.limit ?? null, filter.siteIds ? filter.siteIds.map(String) : null],
  );
  return rows.map((r) => ({
    runId: r.run_id,
    runKey: r.run_key,
    runAt: r.run_at,
    runStatus: r.run_status,
    siteId: Number(r.site_id),
    origin: r.origin,
    until: new Date(r.until),
    pending: r.pending,
    since: r.since,
    attempt: r.attempt,
    outcome: r.outcome,
    status: r.status,
    errorCode: r.error_code,
    retryAfter: r.retry_after,
  }));
}

export interface WaitTotals {
  /** Sites waiting for a retry, in every run. */
  waiting: number;
  /** Those of them their run does not wait for. */
  pending: number;
  /** When the latest of them is due; null when none waits. */
  latestUntil: Date | null;
}

/** How many sites wait, how many of them are pending, and until when at the latest. */
export async function loadWaitTotals(db: WaitsReader): Promise<WaitTotals> {
  const { rows } = await db.query<{ waiting: string; pending: string; latest: string | null }>(
    `select count(*) as waiting,
            count(*) filter (where r.status <> 'running' or coalesce((r.counts -> 'pending') ? w.key, false)) as pending,
            max(w.value #>> '{}') as latest
       from (${RUNS_WITH_WAITS}) r
       cross join lateral jsonb_each(r.counts -> 'waiting') w`,
  );
  const row = rows[0];
  return { waiting: Number(row?.waiting ?? 0), pending: Number(row?.pending ?? 0), latestUntil: row?.latest ? new Date(row.latest) : null };
}
