/**
 * `report status`: every audited site now, from the `site_status` view: what the last night
 * fetched, the policy a crawler applies and since when, how long the site has been failing, the
 * file's size and lint counts, and the night of its last change. `--since`: only the sites whose
 * last change is on or after that night.
 */
import type { ReportColumn } from './format.js';
import type { ReportSource } from './report-source.js';
import { STATE_CONDITION } from './site-state-conditions.js';
import { inPortfolio } from './report-filters.js';
import type { ReportFilters } from './report-filters.js';

export const STATUS_COLUMNS: readonly ReportColumn[] = [
  { key: 'origin', header: 'SITE', type: 'text', shrink: true },
  { key: 'outcome', header: 'OUTCOME', type: 'text' },
  { key: 'status', header: 'HTTP', type: 'number' },
  { key: 'policy', header: 'POLICY', type: 'text' },
  { key: 'policyReason', header: 'WHY', type: 'text' },
  { key: 'policySince', header: 'SINCE', type: 'time' },
  { key: 'unverifiedSince', header: 'UNVERIFIED', type: 'time' },
  { key: 'flapping', header: 'FLAPPING', type: 'boolean' },
  { key: 'failedNights', header: 'FAILED', type: 'number' },
  { key: 'daysUnreachable', header: 'DAYS DOWN', type: 'number' },
  { key: 'bodyBytes', header: 'BYTES', type: 'number' },
  { key: 'truncated', header: 'CUT', type: 'boolean' },
  { key: 'lintErrors', header: 'ERRORS', type: 'number' },
  { key: 'lintWarnings', header: 'WARNINGS', type: 'number' },
  { key: 'lastChangeAt', header: 'LAST CHANGE', type: 'time' },
  { key: 'checkedAt', header: 'CHECKED', type: 'time' },
  { key: 'portfolios', header: 'PORTFOLIOS', type: 'list', shrink: true },
];

interface StatusRow extends Record<string, unknown> {
  origin: string;
  outcome: string;
  status: number | null;
  policy: string;
  policy_reason: string;
  policy_since: Date | null;
  unverified_since: Date | null;
  flapping: boolean;
  failed_nights: number;
  days_unreachable: number | null;
  body_bytes: number;
  truncated: boolean | null;
  lint_errors: number | null;
  lint_warnings: number | null;
  last_change_at: Date | null;
  checked_at: Date;
  portfolios: string[];
}

/**
 * `--since`: sites whose last change is on or after it. The dashboard's overview narrows by
 * search and state too (its CSV link carries them).
 */
export function statusSource(filters: ReportFilters): ReportSource<StatusRow> {
  return {
    columns: STATUS_COLUMNS,
    sql: `select origin, outcome, status, policy, policy_reason, policy_since, unverified_since, flapping, failed_nights, days_unreachable, body_bytes, truncated,
                 lint_errors, lint_warnings, last_change_at, checked_at, portfolios
          from site_status x
          where ${inPortfolio('x.site_id')}
            and ($2::timestamptz is null or x.last_change_at >= $2)
            and ($3::text is null or strpos(x.origin, $3) > 0)
            and ${filters.state ? (filters.state === 'never' ? 'false' : STATE_CONDITION[filters.state]) : 'true'}
          order by x.origin`,
    params: [filters.portfolioId, filters.since, filters.search ?? null],
    rows: (batch) =>
      batch.map((r) => ({
        origin: r.origin,
        outcome: r.outcome,
        status: r.status,
        policy: r.policy,
        policyReason: r.policy_reason,
        policySince: r.policy_since,
        unverifiedSince: r.unverified_since,
        flapping: r.flapping,
        failedNights: r.failed_nights,
        daysUnreachable: r.days_unreachable,
        bodyBytes: Number(r.body_bytes),
        truncated: r.truncated ?? false,
        lintErrors: r.lint_errors ?? 0,
        lintWarnings: r.lint_warnings ?? 0,
        lastChangeAt: r.last_change_at,
        checkedAt: r.checked_at,
        portfolios: r.portfolios,
      })),
  };
}
