/**
 * What narrows a report: a portfolio (by name, checked to exist) and a starting night. A user
 * types both; each mistake is one clear message (ReportInputError), never an empty report that
 * looks like good news.
 */
import type pg from 'pg';
import type { AlertSeverity } from '../night/vocabulary.js';
import type { UsagePreference, UsagePurpose } from '../robots/usage/vocabulary.js';
import type { SiteState } from './site-states.js';
import type { UsageFilter } from './usage-filters.js';

/**
 * The SQL condition "the site is in the portfolio given as `param`, or no portfolio was given":
 * every report and dashboard query narrows by portfolio this way (`siteId`: the column holding
 * the site's id). The portfolio's sites are read once per query into a hash (an uncorrelated
 * IN), so a scan of many rows costs one hash probe per row, not one index lookup.
 */
export const inPortfolio = (siteId: string, param = '$1') =>
  `(${param}::int is null or ${siteId} in (select ps.site_id from portfolio_sites ps where ps.portfolio_id = ${param}))`;

export interface ReportFilters {
  portfolioId: number | null;
  /** Nights at or after this instant; null: the report's own default. */
  since: Date | null;
  /**
   * What the dashboard's pages narrow by besides, each applied in SQL by the reports that have
   * the column (docs/reports.md): nights before this instant; part of the origin (lower-case);
   * a state of the overview; a change kind, flip cause or alert kind; at least this severe (an
   * event by the worst alert of its site's night); a crawler (flips), or the crawler a site
   * blocks (ai-access); what its tracked URLs' agents are told of AI training (ai-access).
   */
  until?: Date | null;
  search?: string | null;
  state?: SiteState | null;
  kind?: string | null;
  severity?: AlertSeverity | null;
  crawler?: string | null;
  blocks?: string | null;
  usage?: UsageFilter | null;
  /**
   * `report ai-use`: one purpose; one preference; only the sites that refuse AI training while a
   * catalogued AI-training crawler may fetch their root.
   */
  purpose?: UsagePurpose | null;
  preference?: UsagePreference | null;
  contradictions?: boolean;
}

export interface ReportFilterInput {
  portfolio?: string | undefined;
  since?: string | undefined;
}

/**
 * A mistake in what the user asked for, shown as one line. As for the site commands: exit 2 when
 * the argument is malformed (a date that is not one), 1 when it names nothing there is (a
 * portfolio that does not exist).
 */
export class ReportInputError extends Error {
  override name = 'ReportInputError';
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
  }
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
/** ISO 8601 with a time; without a zone it is UTC (as nights are), never the machine's local time. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/;
const DAYS_BACK = /^(\d{1,5})d$/;
const DAY_MS = 86_400_000;

/**
 * `--since`: `YYYY-MM-DD` (midnight UTC), an ISO 8601 time (UTC when it has no zone), or `<n>d`, n days
 * before the latest night in the database (not the wall clock: a replayed history, like the
 * demo's, has its nights in the past).
 */
export function parseSince(text: string, latestNight: Date | null): Date {
  const trimmed = text.trim();
  const days = DAYS_BACK.exec(trimmed);
  if (days) return new Date((latestNight ?? new Date()).getTime() - Number(days[1]) * DAY_MS);
  const dateOnly = DATE_ONLY.exec(trimmed);
  if (dateOnly) {
    const [y, m, d] = [Number(dateOnly[1]), Number(dateOnly[2]), Number(dateOnly[3])];
    const at = new Date(Date.UTC(y, m - 1, d));
    // Date.UTC rolls 2026-02-30 over to March; a date that does not exist is a typo.
    if (at.getUTCFullYear() === y && at.getUTCMonth() === m - 1 && at.getUTCDate() === d) return at;
  } else if (DATE_TIME.test(trimmed)) {
    const at = new Date(DATE_TIME.exec(trimmed)![1] === undefined ? `${trimmed}Z` : trimmed);
    if (!Number.isNaN(at.getTime())) return at;
  }
  throw new ReportInputError(`--since "${text}" is not a date: use YYYY-MM-DD, an ISO 8601 time (2026-11-01T06:00:00Z), or a number of days such as 7d`, 2);
}

/** Whether `parseSince` counts `text` back from the latest night (`7d`), so needs that night. */
export function countsBackFromLatestNight(text: string | undefined): boolean {
  return text !== undefined && DAYS_BACK.test(text.trim());
}

export async function latestNight(pool: pg.Pool): Promise<Date | null> {
  const { rows } = await pool.query<{ at: Date | null }>('select max(run_at) as at from site_state');
  return rows[0]?.at ?? null;
}

export async function resolveReportFilters(pool: pg.Pool, input: ReportFilterInput): Promise<ReportFilters> {
  let portfolioId: number | null = null;
  if (input.portfolio !== undefined) {
    const { rows } = await pool.query<{ id: number }>('select id from portfolios where name = $1', [input.portfolio]);
    if (rows.length === 0) {
      const known = await pool.query<{ name: string }>('select name from portfolios order by name limit 20');
      const list = known.rows.map((r) => r.name).join(', ');
      throw new ReportInputError(`no portfolio named "${input.portfolio}"${list === '' ? ' (there are no portfolios)' : ` (portfolios: ${list})`}`, 1);
    }
    portfolioId = rows[0]!.id;
  }
  if (input.since === undefined) return { portfolioId, since: null };
  const latest = countsBackFromLatestNight(input.since) ? await latestNight(pool) : null;
  return { portfolioId, since: parseSince(input.since, latest) };
}
