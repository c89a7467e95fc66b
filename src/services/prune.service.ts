/**
 * Old nights out of the database (`robots-audit prune --before <date>`), keeping what the product
 * still needs:
 * - every site's latest night (its state), its last good night (the body the next one is
 *   compared with, and the 30-day fallback's copy, D-3), its last reachable night (D-3) and the
 *   night whose rules apply now;
 * - every night that changed something (a `snapshot_changes` row) and the night it was compared
 *   with, so every version of a file stays, with its diff;
 * - every change, verdict flip, alert, delivery and run: the product's history of events.
 * Removed, for nights before the date: the other snapshots, retried attempts, verdict spans that
 * ended before the date, then bodies and answers no longer referenced; and the crawler requests
 * imported from logs made before the date but the findings (violations, spoofed claims), and the
 * user-agent strings no request uses any more. Client addresses kept with findings are cleared
 * once older than `clearIpsBefore` (ROBOTS_AUDIT_LOG_IP_RETENTION_DAYS, docs/compliance.md). Sites go in slices of
 * `batchSites`, one transaction each, so a large prune never holds long locks.
 */
import type pg from 'pg';
import { inTransaction } from '../db/transaction.js';

export interface PruneOptions {
  before: Date;
  /** Sites per transaction. */
  batchSites?: number;
  /** Count what would go, remove nothing. */
  dryRun?: boolean;
  /** Client addresses of crawler requests made before it are cleared; null keeps them. */
  clearIpsBefore?: Date | null;
}

export interface PruneResult {
  snapshots: number;
  failedAttempts: number;
  verdicts: number;
  bodies: number;
  responses: number;
  crawlerRequests: number;
  clientIps: number;
}

export const PRUNE_BATCH_SITES = 1_000;

/** The nights of the sites in [$1, $2] to keep whatever their date. */
const KEPT = `
  select st.site_id, r.run_id
  from site_state st
  cross join lateral (values (st.run_id), (st.last_good_run_id), (st.last_reachable_run_id), (st.rules_run_id)) as r(run_id)
  where st.site_id between $1 and $2 and r.run_id is not null
  union
  select c.site_id, c.run_id from snapshot_changes c where c.site_id between $1 and $2
  union
  select c.site_id, c.previous_run_id from snapshot_changes c where c.site_id between $1 and $2 and c.previous_run_id is not null`;

export async function pruneBefore(pool: pg.Pool, options: PruneOptions): Promise<PruneResult> {
  const result: PruneResult = { snapshots: 0, failedAttempts: 0, verdicts: 0, bodies: 0, responses: 0, crawlerRequests: 0, clientIps: 0 };
  const size = options.batchSites ?? PRUNE_BATCH_SITES;
  const { rows } = await pool.query<{ min: number | null; max: number | null }>('select min(id) as min, max(id) as max from sites');
  const min = rows[0]?.min ?? null;
  const max = rows[0]?.max ?? null;
  const verb = options.dryRun ? 'select count(*)::int as n from' : 'delete from';
  for (let from = min ?? 0; min !== null && max !== null && from <= max; from += size) {
    const range = [from, from + size - 1, options.before];
    // A dry run counts in the same statements and keeps nothing.
    const { snapshots, attempts, verdicts, requests } = await inTransaction(
      pool,
      async (client) => ({
        snapshots: await client.query<{ n: number }>(
          `with kept as (${KEPT})
           ${verb} snapshots n where n.site_id between $1 and $2 and n.run_at < $3
             and not exists (select 1 from kept k where k.site_id = n.site_id and k.run_id = n.run_id)`,
          range,
        ),
        attempts: await client.query<{ n: number }>(
          `${verb} failed_attempts f where f.site_id between $1 and $2
             and f.run_id in (select id from audit_runs where run_at < $3)
             and not exists (select 1 from snapshots n where n.site_id = f.site_id and n.run_id = f.run_id)
             and exists (select 1 from audit_runs r where r.id = f.run_id and r.status <> 'running')`,
          range,
        ),
        verdicts: await client.query<{ n: number }>(
          `${verb} verdicts v where v.tracked_url_id in (select id from tracked_urls where site_id between $1 and $2)
             and v.to_run_id is not null and v.valid_to <= $3`,
          range,
        ),
        requests: await client.query<{ n: number }>(
          `${verb} crawler_requests r where r.site_id between $1 and $2 and r.at < $3
             and r.judgement <> 'violation' and r.identity <> 'spoofed'`,
          range,
        ),
      }),
      { commit: !options.dryRun },
    );
    const count = (r: pg.QueryResult<{ n: number }>) => (options.dryRun ? (r.rows[0]?.n ?? 0) : (r.rowCount ?? 0));
    result.snapshots += count(snapshots);
    result.failedAttempts += count(attempts);
    result.verdicts += count(verdicts);
    result.crawlerRequests += count(requests);
  }
  if (options.clearIpsBefore) {
    const ips = await pool.query<{ n: number }>(
      options.dryRun
        ? 'select count(*)::int as n from crawler_requests where client_ip is not null and at < $1'
        : 'update crawler_requests set client_ip = null where client_ip is not null and at < $1',
      [options.clearIpsBefore],
    );
    result.clientIps = options.dryRun ? (ips.rows[0]?.n ?? 0) : (ips.rowCount ?? 0);
  }
  if (options.dryRun) return result;
  // What no night, attempt or state references any more.
  const bodies = await pool.query(
    `delete from bodies b where not exists (select 1 from snapshots n where n.body_id = b.id)
       and not exists (select 1 from site_state st where b.id in (st.rules_body_id, st.last_good_body_id))`,
  );
  const responses = await pool.query(
    `delete from responses x where not exists (select 1 from snapshots n where n.response_id = x.id)
       and not exists (select 1 from failed_attempts f where f.response_id = x.id)
       and not exists (select 1 from site_state st where st.response_id = x.id)`,
  );
  await pool.query('delete from request_user_agents a where not exists (select 1 from crawler_requests r where r.user_agent_id = a.id)');
  result.bodies = bodies.rowCount ?? 0;
  result.responses = responses.rowCount ?? 0;
  return result;
}
