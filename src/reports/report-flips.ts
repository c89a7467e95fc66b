/**
 * `report flips`: every verdict that changed (verdict_flips), newest first: the URL, the crawler,
 * the verdict before and after, why (rules_changed, outcome_changed, ...) and the rule that
 * decides now. Default period: the last 7 nights before the latest (RECENT_DAYS).
 */
import type pg from 'pg';
import type { FlipRule } from '../night/rows.js';
import type { ReportColumn } from './format.js';
import type { ReportSource } from './report-source.js';
import { nightAtLeast } from './report-changes.js';
import { inPortfolio } from './report-filters.js';
import type { ReportFilters } from './report-filters.js';
import { recentSince } from './recent.js';
import { ruleLine } from '../robots/diff.js';

export const FLIPS_COLUMNS: readonly ReportColumn[] = [
  { key: 'night', header: 'NIGHT', type: 'time' },
  { key: 'origin', header: 'SITE', type: 'text', shrink: true },
  { key: 'url', header: 'URL', type: 'text', shrink: true },
  { key: 'agent', header: 'CRAWLER', type: 'text' },
  { key: 'category', header: 'CATEGORY', type: 'text' },
  { key: 'before', header: 'BEFORE', type: 'text' },
  { key: 'after', header: 'AFTER', type: 'text' },
  { key: 'cause', header: 'CAUSE', type: 'text' },
  { key: 'rule', header: 'DECIDED BY', type: 'text', shrink: true },
];

interface FlipRow extends Record<string, unknown> {
  night: Date;
  origin: string;
  url: string;
  agent: string;
  category: string | null;
  from_allowed: boolean | null;
  to_allowed: boolean;
  cause: string;
  rule_after: FlipRule | null;
}

const verdict = (allowed: boolean | null) => (allowed === null ? null : allowed ? 'allowed' : 'disallowed');

/** `Disallow: /private (line 12)`, or `no rule` when nothing matched (the URL is then allowed). */
export function ruleText(rule: FlipRule | null): string {
  return rule ? `${ruleLine(rule)} (line ${rule.line})` : 'no rule';
}

/** `--since` (default: the last RECENT_DAYS nights); the dashboard adds until, cause, severity and crawler. */
export async function flipsSource(pool: pg.Pool, filters: ReportFilters): Promise<ReportSource<FlipRow>> {
  const since = await recentSince(pool, filters);
  return {
    columns: FLIPS_COLUMNS,
    sql: `select r.run_at as night, s.origin, t.url, a.token as agent, a.category, f.from_allowed, f.to_allowed, f.cause, f.rule_after
          from audit_runs r
          join verdict_flips f on f.run_id = r.id
          join sites s on s.id = f.site_id
          join tracked_urls t on t.id = f.tracked_url_id
          join user_agents a on a.id = f.user_agent_id
          where r.run_at >= $2
            and ($3::timestamptz is null or r.run_at < $3)
            and ($4::text is null or f.cause = $4)
            and ${nightAtLeast('f', '$5')}
            and ($6::text is null or lower(a.token) = lower($6))
            and ${inPortfolio('f.site_id')}
          order by r.run_at desc, s.origin, t.url, lower(a.token)`,
    params: [filters.portfolioId, since, filters.until ?? null, filters.kind ?? null, filters.severity ?? null, filters.crawler ?? null],
    rows: (batch) =>
      batch.map((r) => ({
        night: r.night,
        origin: r.origin,
        url: r.url,
        agent: r.agent,
        category: r.category,
        before: verdict(r.from_allowed),
        after: verdict(r.to_allowed),
        cause: r.cause,
        rule: ruleText(r.rule_after),
      })),
  };
}
