/**
 * `report compliance` and `report violations` (docs/compliance.md): what the imported server logs
 * say crawlers did, judged by the robots.txt in force at each request.
 * - compliance: per site x crawler, its requests, those the version in force disallowed, the
 *   violations (verified, and unverifiable: no published check, or none could be made), the
 *   disallowed requests that were no violation (within the cache window, between two versions,
 *   a crawler robots.txt does not bind), spoofed claims, whether it read robots.txt before its
 *   first request and when it last did, first and last seen. From `crawler_compliance_between`.
 * - violations: one row a violation, with the URL, the time, the deciding line and the version in
 *   force (its night and its body's hash). From the `crawler_violations` view.
 * Filters: `--portfolio`, `--since` (requests at or after it), `--crawler`, and the dashboard's
 * site search; spoofed requests are counted apart, never as the crawler's own.
 */
import type { ReportColumn } from './format.js';
import type { ReportSource } from './report-source.js';
import { inPortfolio } from './report-filters.js';
import type { ReportFilters } from './report-filters.js';

export const COMPLIANCE_COLUMNS: readonly ReportColumn[] = [
  { key: 'origin', header: 'SITE', type: 'text', shrink: true },
  { key: 'crawler', header: 'CRAWLER', type: 'text' },
  { key: 'requests', header: 'REQUESTS', type: 'number' },
  { key: 'disallowed', header: 'DISALLOWED', type: 'number' },
  { key: 'violationsVerified', header: 'VIOLATIONS', type: 'number' },
  { key: 'violationsUnverified', header: 'UNVERIFIED', type: 'number' },
  { key: 'withinCacheWindow', header: 'CACHE WINDOW', type: 'number' },
  { key: 'betweenVersions', header: 'BETWEEN VERSIONS', type: 'number' },
  { key: 'notBound', header: 'NOT BOUND', type: 'number' },
  { key: 'spoofed', header: 'SPOOFED', type: 'number' },
  { key: 'readRobotsTxtFirst', header: 'READ ROBOTS.TXT FIRST', type: 'boolean' },
  { key: 'lastRobotsTxtFetch', header: 'LAST ROBOTS.TXT', type: 'time' },
  { key: 'firstSeen', header: 'FIRST SEEN', type: 'time' },
  { key: 'lastSeen', header: 'LAST SEEN', type: 'time' },
];

export const VIOLATIONS_COLUMNS: readonly ReportColumn[] = [
  { key: 'at', header: 'TIME', type: 'time' },
  { key: 'crawler', header: 'CRAWLER', type: 'text' },
  { key: 'identity', header: 'IDENTITY', type: 'text' },
  { key: 'url', header: 'URL', type: 'text', shrink: true },
  { key: 'line', header: 'LINE', type: 'number' },
  { key: 'rule', header: 'RULE', type: 'text', shrink: true },
  { key: 'versionSince', header: 'VERSION OF', type: 'time' },
  { key: 'version', header: 'SHA-256', type: 'text' },
];

interface ComplianceDbRow extends Record<string, unknown> {
  origin: string;
  crawler: string;
  requests: number;
  disallowed: number;
  violations_verified: number;
  violations_unverified: number;
  within_cache_window: number;
  between_versions: number;
  not_bound: number;
  spoofed: number;
  robots_txt_fetches: number;
  read_robots_txt_first: boolean;
  last_robots_txt_fetch: Date | null;
  first_seen: Date;
  last_seen: Date;
}

/** A crawler's requests per site: the worst first (verified violations, then unverified, spoofed). */
export function complianceSource(filters: ReportFilters): ReportSource<ComplianceDbRow> {
  return {
    columns: COMPLIANCE_COLUMNS,
    sql: `select c.* from crawler_compliance_between($2::timestamptz, $3::timestamptz) c
          where ${inPortfolio('c.site_id')}
            and ($4::text is null or lower(c.crawler) = lower($4))
            and ($5::text is null or strpos(c.origin, $5) > 0)
          order by c.violations_verified desc, c.violations_unverified desc, c.spoofed desc, c.origin, c.crawler`,
    params: [filters.portfolioId, filters.since, filters.until ?? null, filters.crawler ?? null, filters.search ?? null],
    rows: (batch) =>
      batch.map((r) => ({
        origin: r.origin,
        crawler: r.crawler,
        requests: r.requests,
        disallowed: r.disallowed,
        violationsVerified: r.violations_verified,
        violationsUnverified: r.violations_unverified,
        withinCacheWindow: r.within_cache_window,
        betweenVersions: r.between_versions,
        notBound: r.not_bound,
        spoofed: r.spoofed,
        readRobotsTxtFirst: r.robots_txt_fetches === 0 ? false : r.read_robots_txt_first,
        lastRobotsTxtFetch: r.last_robots_txt_fetch,
        firstSeen: r.first_seen,
        lastSeen: r.last_seen,
      })),
  };
}

interface ViolationDbRow extends Record<string, unknown> {
  at: Date;
  crawler: string;
  identity: string;
  url: string;
  rule_line: number | null;
  rule: string | null;
  version_since: Date | null;
  version_sha256: string | null;
  version_policy: string | null;
}

/** Every violation, newest first. */
export function violationsSource(filters: ReportFilters): ReportSource<ViolationDbRow> {
  return {
    columns: VIOLATIONS_COLUMNS,
    sql: `select v.at, v.crawler, v.identity, v.url, v.rule_line, v.rule, v.version_since, v.version_sha256, v.version_policy
          from crawler_violations v
          where ${inPortfolio('v.site_id')}
            and ($2::timestamptz is null or v.at >= $2) and ($3::timestamptz is null or v.at < $3)
            and ($4::text is null or lower(v.crawler) = lower($4))
            and ($5::text is null or strpos(v.origin, $5) > 0)
          order by v.at desc, v.url`,
    params: [filters.portfolioId, filters.since, filters.until ?? null, filters.crawler ?? null, filters.search ?? null],
    rows: (batch) =>
      batch.map((r) => ({
        at: r.at,
        crawler: r.crawler,
        identity: r.identity,
        url: r.url,
        line: r.rule_line,
        // A full disallow (5xx, no rules) decides with no line.
        rule: r.rule ?? (r.version_policy === 'disallow_all' ? 'full disallow (5xx or unreachable)' : null),
        versionSince: r.version_since,
        version: r.version_sha256 === null ? null : r.version_sha256.slice(0, 12),
      })),
  };
}
