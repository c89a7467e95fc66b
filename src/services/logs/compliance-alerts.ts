/**
 * The alerts of a log import: `crawler_ignored_robots` for a crawler whose verified requests a
 * site's robots.txt disallowed, past the cache window (a warning), and `crawler_spoofed` for
 * requests claiming a crawler from addresses its operator's check rejects (info): one alert a
 * site, crawler and night (the night whose version was in force), raised once whatever the number
 * of imports that find it (the dedupe key). Their deliveries are created with them; the alerts
 * worker sends them (the scheduler's reconcile loop queues pending deliveries within a minute).
 */
import type pg from 'pg';
import { inTransaction } from '../../db/transaction.js';
import { raiseSiteAlerts } from '../../db/night-store/alerts.js';
import type { SiteAlert } from '../../db/night-store/alerts.js';
import type { LogAlertKind } from '../../night/vocabulary.js';
import { SEVERITY_OF, alertDedupeKey } from '../alerting/alert-rules.js';
import { boundAlertDetails, boundTitle } from '../alerting/alert-bounds.js';
import { MAX_COMPLIANCE_EXAMPLES_PER_ALERT } from '../alerting/size-limits.js';

/** One site x crawler x night's findings, as the query below groups them. */
interface Finding {
  kind: LogAlertKind;
  site_id: number;
  origin: string;
  crawler: string;
  run_id: number;
  run_at: Date;
  requests: number;
  first_at: Date;
  last_at: Date;
  examples: { url: string; at: string; rule: string | null; ip: string | null }[];
}

const FINDINGS = `
  select kind, r.site_id, s.origin, r.crawler, r.run_id, ar.run_at, count(*)::int as requests, min(r.at) as first_at, max(r.at) as last_at,
         (array_agg(jsonb_build_object('url', s.origin || r.path, 'at', r.at, 'rule', r.rule, 'ip', host(r.client_ip)) order by r.at))[1:$2] as examples
  from crawler_requests r
  cross join lateral (select case when r.identity = 'spoofed' then 'crawler_spoofed'
                                  when r.judgement = 'violation' and r.identity = 'verified' then 'crawler_ignored_robots' end as kind) k
  join sites s on s.id = r.site_id
  join audit_runs ar on ar.id = r.run_id
  where r.import_id = $1 and k.kind is not null
  group by kind, r.site_id, s.origin, r.crawler, r.run_id, ar.run_at
  order by r.site_id, r.crawler, ar.run_at`;

function draftOf(f: Finding): SiteAlert {
  const night = f.run_at.toISOString().slice(0, 10);
  const title =
    f.kind === 'crawler_ignored_robots'
      ? `${f.crawler} fetched ${f.requests} URL${f.requests === 1 ? '' : 's'} of ${f.origin} its robots.txt disallowed (version of ${night})`
      : `${f.requests} request${f.requests === 1 ? '' : 's'} to ${f.origin} claimed to be ${f.crawler} from addresses its operator does not list (version of ${night})`;
  return {
    runId: f.run_id,
    siteId: f.site_id,
    draft: {
      // One a site, crawler and night.
      dedupeKey: alertDedupeKey(String(f.run_id), f.site_id, f.kind, f.crawler),
      severity: SEVERITY_OF[f.kind],
      kind: f.kind,
      title: boundTitle(title),
      runId: String(f.run_id),
      siteId: String(f.site_id),
      origin: f.origin,
      // A logged path may be 64 KiB: every string cut, the whole within MAX_ALERT_DETAILS_BYTES.
      details: boundAlertDetails({
        compliance: {
          crawler: f.crawler,
          requests: f.requests,
          firstAt: f.first_at.toISOString(),
          lastAt: f.last_at.toISOString(),
          examples: f.examples.map((e) => ({ url: e.url, at: new Date(e.at).toISOString(), rule: e.rule, ...(f.kind === 'crawler_spoofed' && e.ip !== null ? { ip: e.ip } : {}) })),
        },
      }),
    },
  };
}

/**
 * Raises the import's alerts (those raised before stay as they were): how many it found, and the
 * deliveries created now, to queue after the commit.
 */
export async function raiseComplianceAlerts(pool: pg.Pool, importId: number): Promise<{ alerts: number; deliveryIds: number[] }> {
  const { rows } = await pool.query<Finding>(FINDINGS, [importId, MAX_COMPLIANCE_EXAMPLES_PER_ALERT]);
  if (rows.length === 0) return { alerts: 0, deliveryIds: [] };
  const deliveryIds = await inTransaction(pool, (client) => raiseSiteAlerts(client, rows.map(draftOf)));
  return { alerts: rows.length, deliveryIds };
}
