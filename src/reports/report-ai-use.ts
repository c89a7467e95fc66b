/**
 * `report ai-use`: what each site tells crawlers about the use of its content, purpose by purpose
 * (search, AI training, AI input; docs/usage-preferences.md): the preference, since which night,
 * and the line that states it (its number, the mechanism, the value as written). Read from the
 * `ai_use` view (the open verdict spans: the tracked URLs x the agents evaluated every night).
 *
 * A site's URLs x crawlers told the same thing by the same line take one row (`all 10`); where
 * they differ, each answer has its row, naming the URLs and crawlers it covers. The grouping is in
 * the query, so a download streamed a batch at a time gives the same rows as the CLI.
 *
 * Filters: `--purpose`, `--preference`; `--since`: only the preferences that changed since the
 * night (their `since`, or a usage flip since then, which also finds a preference withdrawn), with
 * the preference before; `--contradictions`: the sites that refuse AI training at a URL a tracked
 * crawler may fetch while a catalogued AI-training crawler may fetch the root (D-14), naming those.
 */
import type pg from 'pg';
import { AI_TRAINING_CATEGORY } from '../crawlers/categories.js';
import { USAGE_KEY_NAMES, USAGE_PURPOSES } from '../robots/usage/vocabulary.js';
import type { UsageMechanism } from '../robots/usage/vocabulary.js';
import type { ReportColumn } from './format.js';
import type { ReportSource } from './report-source.js';
import { ACCESS_COLUMNS, blockedCrawlers, describeBlocked, loadAiCrawlers } from './report-ai-access.js';
import type { AiCrawler } from './report-ai-access.js';
import { ReportInputError, inPortfolio } from './report-filters.js';
import type { ReportFilters } from './report-filters.js';

export const AI_USE_COLUMNS: readonly ReportColumn[] = [
  { key: 'origin', header: 'SITE', type: 'text', shrink: true },
  { key: 'purpose', header: 'PURPOSE', type: 'text' },
  { key: 'preference', header: 'PREFERENCE', type: 'text' },
  { key: 'since', header: 'SINCE', type: 'time' },
  { key: 'line', header: 'LINE', type: 'number' },
  { key: 'mechanism', header: 'MECHANISM', type: 'text' },
  { key: 'value', header: 'VALUE', type: 'text', shrink: true },
  { key: 'urls', header: 'URLS', type: 'text', shrink: true },
  { key: 'crawlers', header: 'CRAWLERS', type: 'text', shrink: true },
];

const BEFORE_COLUMN: ReportColumn = { key: 'before', header: 'BEFORE', type: 'text' };
const MAY_CRAWL_COLUMN: ReportColumn = { key: 'mayCrawl', header: 'TRAINING CRAWLERS MAY CRAWL', type: 'text', shrink: true };

interface AiUseRow extends Record<string, unknown> {
  origin: string;
  purpose: string;
  preference: string;
  since: Date | null;
  line: number | null;
  mechanism: UsageMechanism | null;
  value: string | null;
  before: string | null;
  urls: string[];
  crawlers: string[];
  site_urls: string[];
  site_crawlers: string[];
  policy: string | null;
  star_allowed: boolean | null;
  exceptions: Record<string, boolean> | null;
}

/**
 * `all 10` when `some` is every one of `all` (and there are several), `all 10 but X, Y` when it
 * lacks only a few, else the names: the URLs and crawlers a row covers, in a few words.
 */
export function describeSubset(some: readonly string[], all: readonly string[]): string {
  if (some.length === all.length && all.length > 1) return `all ${all.length}`;
  if (some.length * 2 <= all.length || all.length <= 2) return some.join(', ');
  const kept = new Set(some);
  return `all ${all.length} but ${all.filter((x) => !kept.has(x)).join(', ')}`;
}

/** Options the filters must agree on: `--contradictions` is about AI training refused. */
function checkFilters(filters: ReportFilters): void {
  if (!filters.contradictions) return;
  if (filters.purpose && filters.purpose !== 'ai-train') throw new ReportInputError(`--contradictions is about ai-train: leave out --purpose ${filters.purpose}`, 2);
  if (filters.preference && filters.preference !== 'refused') throw new ReportInputError(`--contradictions is about ai-train refused: leave out --preference ${filters.preference}`, 2);
}

/**
 * One query: the view's rows of the sites asked for (with, under `--since`, the first usage flip
 * since the night for each), those kept by the filters, grouped per site, purpose and answer; an
 * answer whose URLs x crawlers are not a rectangle is split by URL, so a row never claims a pair it
 * does not hold. Without `--preference` or `--since`, a site that states nothing (every purpose
 * unknown everywhere) is left out: `--preference unknown` lists those.
 */
export async function aiUseSource(pool: pg.Pool, filters: ReportFilters): Promise<ReportSource<AiUseRow>> {
  checkFilters(filters);
  const contradictions = filters.contradictions === true;
  const training: AiCrawler[] = contradictions ? (await loadAiCrawlers(pool)).filter((c) => c.category === AI_TRAINING_CATEGORY) : [];
  const columns = [...AI_USE_COLUMNS];
  if (filters.since) columns.splice(3, 0, BEFORE_COLUMN);
  if (contradictions) columns.push(MAY_CRAWL_COLUMN);
  return {
    columns,
    sql: `with pairs as (
            select u.site_id, u.origin, u.url, u.token, u.purpose, u.preference, u.since, u.line, u.mechanism, u.value,
                   f.from_preference as before
            from ai_use u
            left join lateral (
              select f.from_preference from usage_flips f join audit_runs r on r.id = f.run_id
              where $2::timestamptz is not null and f.tracked_url_id = u.tracked_url_id and f.user_agent_id = u.user_agent_id
                and f.purpose = u.purpose and r.run_at >= $2
              order by r.run_at limit 1) f on true
            where ${inPortfolio('u.site_id')}
              and ($3::text is null or u.purpose = $3)
          ), totals as (
            select site_id, array_agg(distinct url order by url) as site_urls, array_agg(distinct token order by token) as site_crawlers
            from pairs group by site_id
          ), kept as (
            select p.*, jsonb_build_array(p.preference, p.since, p.line, p.mechanism, p.value, p.before) as answer
            from (select p.*, bool_or(p.preference in ('allowed', 'refused')) over (partition by p.site_id) as states
                  from pairs p) p
            where case when $4::text is not null then p.preference = $4 when $2::timestamptz is not null then true else p.states end
              and ($2::timestamptz is null or p.since >= $2 or p.before is not null)
              and (not $5::boolean or (p.purpose = 'ai-train' and p.preference = 'refused'))
          ), shape as (
            select site_id, purpose, answer, count(*) = count(distinct url) * count(distinct token) as rectangle
            from kept group by site_id, purpose, answer
          ), access as (
            select x.site_id, x.policy, ${ACCESS_COLUMNS}
            from site_state x
            where $5::boolean and x.site_id in (select site_id from kept)
          )
          select k.origin, k.purpose, k.preference, k.since, k.line, k.mechanism, k.value, k.before,
                 array_agg(distinct k.url order by k.url) as urls, array_agg(distinct k.token order by k.token) as crawlers,
                 t.site_urls, t.site_crawlers, a.policy, a.star_allowed, a.exceptions
          from kept k
          join shape s on s.site_id = k.site_id and s.purpose = k.purpose and s.answer = k.answer
          join totals t on t.site_id = k.site_id
          left join access a on a.site_id = k.site_id
          group by k.site_id, k.origin, k.purpose, k.answer, k.preference, k.since, k.line, k.mechanism, k.value, k.before,
                   t.site_urls, t.site_crawlers, a.policy, a.star_allowed, a.exceptions,
                   case when s.rectangle then null else k.url end
          order by k.origin, array_position($6::text[], k.purpose), count(*) desc, min(k.url), k.answer::text`,
    params: [filters.portfolioId, filters.since, filters.purpose ?? null, filters.preference ?? null, contradictions, USAGE_PURPOSES],
    rows: (batch) => {
      const out = [];
      for (const r of batch) {
        const path = (url: string) => url.slice(r.origin.length) || '/';
        const row = {
          origin: r.origin,
          purpose: r.purpose,
          preference: r.preference,
          ...(filters.since ? { before: r.before } : {}),
          since: r.since,
          line: r.line,
          mechanism: r.mechanism ? USAGE_KEY_NAMES[r.mechanism] : null,
          value: r.value,
          urls: describeSubset(r.urls.map(path), r.site_urls.map(path)),
          crawlers: describeSubset(r.crawlers, r.site_crawlers),
        };
        if (!contradictions) {
          out.push(row);
          continue;
        }
        // The training crawlers that may fetch the root: the catalogue's, not only those evaluated nightly.
        const blocked = new Set(r.policy === null ? training : blockedCrawlers({ policy: r.policy, starAllowed: r.star_allowed ?? true, exceptions: r.exceptions ?? {} }, training));
        const mayCrawl = training.filter((c) => !blocked.has(c));
        if (mayCrawl.length > 0) out.push({ ...row, mayCrawl: describeBlocked(mayCrawl, training) });
      }
      return out;
    },
  };
}
