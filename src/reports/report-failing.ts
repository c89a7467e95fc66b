/**
 * `report failing`: the sites whose latest fetch failed (5xx, network failure, 429, too many
 * redirects) or whose night could not be stored (`night_failed`: its jobs failed for good),
 * longest outage first: how many nights in a row, since when, and what a crawler
 * does meanwhile: full disallow or, after 30 days, the last good copy (D-3, with the
 * night it was fetched) or full allow when there is none. `--since`: outages that began on or
 * after that night.
 */
import type { ReportColumn } from './format.js';
import type { ReportSource } from './report-source.js';
import { inPortfolio } from './report-filters.js';
import type { ReportFilters } from './report-filters.js';

export const FAILING_COLUMNS: readonly ReportColumn[] = [
  { key: 'origin', header: 'SITE', type: 'text', shrink: true },
  { key: 'outcome', header: 'OUTCOME', type: 'text' },
  { key: 'status', header: 'HTTP', type: 'number' },
  { key: 'failedNights', header: 'NIGHTS', type: 'number' },
  { key: 'unreachableSince', header: 'DOWN SINCE', type: 'time' },
  { key: 'daysUnreachable', header: 'DAYS', type: 'number' },
  { key: 'policy', header: 'POLICY', type: 'text' },
  { key: 'policyReason', header: 'WHY', type: 'text' },
  { key: 'copyOf', header: 'USING COPY OF', type: 'time' },
  { key: 'lastOk', header: 'LAST OK', type: 'time' },
];

interface FailingRow extends Record<string, unknown> {
  origin: string;
  outcome: string;
  status: number | null;
  failed_nights: number;
  unreachable_since: Date | null;
  days_unreachable: number | null;
  policy: string;
  policy_reason: string;
  copy_of: Date | null;
  last_ok: Date | null;
}

/** Outcomes of a fetch that did not reach an answer the rules accept (4xx is an answer: R-12). */
export const FAILED_OUTCOMES = ['server_error', 'network_error', 'rate_limited', 'redirect_limit', 'night_failed'] as const;

/** `--since`: outages that began on or after it; the dashboard's overview adds its search. */
export function failingSource(filters: ReportFilters): ReportSource<FailingRow> {
  return {
    columns: FAILING_COLUMNS,
    sql: `select s.origin, x.outcome, x.status, x.failed_nights, x.unreachable_since,
                 (extract(epoch from x.run_at - x.unreachable_since) / 86400)::integer as days_unreachable,
                 x.policy, x.policy_reason,
                 case when x.policy_reason = 'D-3' then rr.run_at end as copy_of, x.last_good_run_at as last_ok
          from site_state x
          join sites s on s.id = x.site_id
          left join audit_runs rr on rr.id = x.rules_run_id
          where x.outcome::text = any($3::text[])
            and ${inPortfolio('x.site_id')}
            and ($2::timestamptz is null or coalesce(x.unreachable_since, x.run_at) >= $2)
            and ($4::text is null or strpos(s.origin, $4) > 0)
          order by x.unreachable_since nulls last, x.failed_nights desc, s.origin`,
    params: [filters.portfolioId, filters.since, FAILED_OUTCOMES, filters.search ?? null],
    rows: (batch) =>
      batch.map((r) => ({
        origin: r.origin,
        outcome: r.outcome,
        status: r.status,
        failedNights: r.failed_nights,
        unreachableSince: r.unreachable_since,
        daysUnreachable: r.days_unreachable,
        policy: r.policy,
        policyReason: r.policy_reason,
        copyOf: r.copy_of,
        lastOk: r.last_ok,
      })),
  };
}
