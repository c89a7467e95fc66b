/**
 * `report ai-access`: for each site, which AI crawlers of the catalogue (user_agents with an
 * `ai-*` category) may fetch its root under the policy that applies now, counted per category and
 * named, with the file's Content-Signal lines. With `--since`: only the sites where that changed
 * since the night given, with the crawlers newly blocked and newly allowed.
 *
 * Computed from body_agent_access, which keeps per body the `*` answer and only the crawlers
 * whose answer differs: a site costs its few exception rows, not one row per catalogued crawler
 * (the ai_access view answers per crawler, with since which night).
 */
import type pg from 'pg';
import { AI_CATEGORIES } from '../crawlers/categories.js';
import { parserOf } from '../crawlers/crawler-rules.js';
import { profileRelease } from '../crawlers/parser-verdicts.js';
import type { AiCategory } from '../crawlers/categories.js';
import type { ReportColumn } from './format.js';
import type { ReportSource } from './report-source.js';
import { inPortfolio } from './report-filters.js';
import type { ReportFilters } from './report-filters.js';
import { usageFilterCondition } from './usage-filters.js';

export const AI_ACCESS_COLUMNS: readonly ReportColumn[] = [
  { key: 'origin', header: 'SITE', type: 'text', shrink: true },
  { key: 'policy', header: 'POLICY', type: 'text' },
  { key: 'trainingBlocked', header: 'TRAINING BLOCKED', type: 'text' },
  { key: 'searchBlocked', header: 'SEARCH BLOCKED', type: 'text' },
  { key: 'assistantBlocked', header: 'ASSISTANT BLOCKED', type: 'text' },
  { key: 'blocked', header: 'BLOCKED AI CRAWLERS', type: 'text', shrink: true },
  { key: 'contentSignals', header: 'CONTENT-SIGNAL', type: 'list', shrink: true },
  { key: 'parserVerdicts', header: 'UNDER OWN PARSER', type: 'list', shrink: true },
];

const SINCE_COLUMNS: readonly ReportColumn[] = [
  ...AI_ACCESS_COLUMNS.slice(0, 2),
  { key: 'newlyBlocked', header: 'NEWLY BLOCKED', type: 'list', shrink: true },
  { key: 'newlyAllowed', header: 'NEWLY ALLOWED', type: 'list', shrink: true },
  ...AI_ACCESS_COLUMNS.slice(2),
];

export interface AiCrawler {
  token: string;
  category: AiCategory;
}

/** What decides the root for every crawler on a night: the policy, `*`'s answer, the exceptions. */
export interface RootAccess {
  policy: string;
  starAllowed: boolean;
  /** Lower-cased token → allowed, for the crawlers whose answer differs from `*`. */
  exceptions: Readonly<Record<string, boolean>>;
}

/** The AI crawlers blocked at the root (R-40: a crawler without its own group follows `*`). */
export function blockedCrawlers(access: RootAccess, crawlers: readonly AiCrawler[]): AiCrawler[] {
  if (access.policy === 'allow_all') return [];
  if (access.policy === 'disallow_all') return [...crawlers];
  return crawlers.filter((c) => !(access.exceptions[c.token.toLowerCase()] ?? access.starAllowed));
}

/** `all 96`, `all 96 but Googlebot-Extended`, `GPTBot, CCBot`, or null when none. */
export function describeBlocked(blocked: readonly AiCrawler[], crawlers: readonly AiCrawler[]): string | null {
  if (blocked.length === 0) return null;
  if (blocked.length * 2 <= crawlers.length) return blocked.map((c) => c.token).join(', ');
  const set = new Set(blocked);
  const open = crawlers.filter((c) => !set.has(c));
  return open.length === 0 ? `all ${crawlers.length}` : `all ${crawlers.length} but ${open.map((c) => c.token).join(', ')}`;
}

/** Of each AI category's crawlers, how many `blocked` holds: the report's columns and the overview's badges. */
export function blockedByCategory(blocked: readonly AiCrawler[], crawlers: readonly AiCrawler[]): { category: AiCategory; blocked: number; total: number }[] {
  return AI_CATEGORIES.map((category) => ({
    category,
    blocked: blocked.filter((c) => c.category === category).length,
    total: crawlers.filter((c) => c.category === category).length,
  }));
}

interface AccessRow extends Record<string, unknown> {
  site_id: number;
  origin: string;
  policy: string;
  star_allowed: boolean;
  exceptions: Record<string, boolean>;
  content_signals: string[];
  parser_verdicts: StoredParserVerdict[];
}

/** A root verdict under an AI crawler's own parser, stored by the night where it differs from Google's. */
export interface StoredParserVerdict {
  token: string;
  profile: string;
  allowed: boolean;
}

/**
 * The root's verdicts under the AI crawlers' own parsers, where they differ from Google's
 * (verdicts.parser_profile, src/crawlers/parser-verdicts.ts), for a site in SQL scope as `x`: the
 * open spans of its root, for the crawlers evaluated every night (the agents). A few rows per
 * site, through the spans' key (tracked_url_id first).
 */
export const PARSER_VERDICTS_COLUMN = `coalesce((select jsonb_agg(jsonb_build_object('token', a.token, 'profile', v.parser_profile, 'allowed', v.parser_allowed) order by lower(a.token))
     from tracked_urls t
     join verdicts v on v.tracked_url_id = t.id and v.to_run_id is null and v.parser_profile is not null
     join user_agents a on a.id = v.user_agent_id and a.category in (${AI_CATEGORIES.map((c) => `'${c}'`).join(', ')})
     where t.site_id = x.site_id and t.is_root), '[]'::jsonb) as parser_verdicts`;

/** "CCBot: allowed under crawler-commons (crawler-commons 1.4+, assumed)", Google's verdict being the other one. */
export function parserVerdictCell(v: StoredParserVerdict): string {
  const parser = parserOf(v.token);
  const basis = parser.profile === v.profile ? parser.basis : 'assumed';
  return `${v.token}: ${v.allowed ? 'allowed' : 'disallowed'} under ${v.profile} (${profileRelease(v.profile)}, ${basis})`;
}

/**
 * The ids of the sites whose root the crawler in `token` (an SQL expression, a lower-case
 * token) may not fetch now: full disallow, or rules whose body closes it to the crawler, by its
 * own row or, without one, by the `*` row (R-40; the robots_audit_root_access rule, in sets).
 * Read through body_agent_access (token, allowed): the bodies that block it, hashed once, then one
 * pass over site_state; never the function per site (0.8 s at 100,000 sites).
 */
export const sitesBlocking = (token: string) => `(select x.site_id from site_state x
  where x.policy = 'disallow_all'
     or (x.policy = 'rules' and x.rules_body_id in (
           select a.body_id from body_agent_access a where a.token = ${token} and not a.allowed
           union all
           select a.body_id from body_agent_access a where a.token = '*' and not a.allowed
             and not exists (select 1 from body_agent_access o where o.body_id = a.body_id and o.token = ${token}))))`;

/** The body's `*` answer and its exception rows, for a policy and a rules body in SQL scope (site_state as `x`). */
export const ACCESS_COLUMNS = `coalesce((select a.allowed from body_agent_access a where a.body_id = x.rules_body_id and a.token = '*'), true) as star_allowed,
  coalesce((select jsonb_object_agg(a.token, a.allowed) from body_agent_access a where a.body_id = x.rules_body_id and a.token <> '*'), '{}'::jsonb) as exceptions`;

/**
 * `--since`: only the sites whose answer changed since that night (their access then is read
 * first, one entry per site). The dashboard's AI page adds its search, its "blocks" filter and its
 * "usage" filter (usage-filters.ts).
 */
export async function aiAccessSource(pool: pg.Pool, filters: ReportFilters): Promise<ReportSource<AccessRow>> {
  const crawlers = await loadAiCrawlers(pool);
  const before = filters.since ? await accessOn(pool, filters.since, filters.portfolioId) : null;
  return {
    columns: before ? SINCE_COLUMNS : AI_ACCESS_COLUMNS,
    sql: `select x.site_id, s.origin, x.policy, ${ACCESS_COLUMNS}, coalesce(b.content_signals, '{}'::text[]) as content_signals,
                 ${PARSER_VERDICTS_COLUMN}
          from site_state x
          join sites s on s.id = x.site_id
          left join bodies b on b.id = x.rules_body_id
          where ${inPortfolio('x.site_id')}
            and ($2::text is null or strpos(s.origin, $2) > 0)
            and ($3::text is null or x.site_id in ${sitesBlocking('lower($3)')})
            and ${usageFilterCondition('x.site_id', '$4')}
          order by s.origin`,
    params: [filters.portfolioId, filters.search ?? null, filters.blocks ?? null, filters.usage ?? null],
    rows: (batch) => {
      const rows = [];
      for (const r of batch) {
        const blocked = blockedCrawlers({ policy: r.policy, starAllowed: r.star_allowed, exceptions: r.exceptions }, crawlers);
        const [training, search, assistant] = blockedByCategory(blocked, crawlers).map((c) => `${c.blocked}/${c.total}`);
        const row = {
          origin: r.origin,
          policy: r.policy,
          trainingBlocked: training!,
          searchBlocked: search!,
          assistantBlocked: assistant!,
          blocked: describeBlocked(blocked, crawlers),
          contentSignals: r.content_signals,
          parserVerdicts: r.parser_verdicts.map(parserVerdictCell),
        };
        if (!before) {
          rows.push(row);
          continue;
        }
        // A site not audited yet on that night had no answer: all it blocks now is new.
        const then = before.get(r.site_id);
        const blockedThen = new Set(then ? blockedCrawlers(then, crawlers) : []);
        const blockedNow = new Set(blocked);
        const newlyBlocked = blocked.filter((c) => !blockedThen.has(c)).map((c) => c.token);
        const newlyAllowed = [...blockedThen].filter((c) => !blockedNow.has(c)).map((c) => c.token);
        if (newlyBlocked.length > 0 || newlyAllowed.length > 0) rows.push({ ...row, newlyBlocked, newlyAllowed });
      }
      return rows;
    },
  };
}

/** The AI crawlers of the catalogue, by token. */
export async function loadAiCrawlers(pool: pg.Pool): Promise<AiCrawler[]> {
  const { rows } = await pool.query<AiCrawler>(
    `select token, category from user_agents where category = any($1::text[]) order by lower(token)`,
    [AI_CATEGORIES],
  );
  return rows;
}

/** Each site's root access in force on a night: its latest night that could change it, at or before. */
async function accessOn(pool: pg.Pool, night: Date, portfolioId: number | null): Promise<Map<number, RootAccess>> {
  const { rows } = await pool.query<AccessRow>(
    `select x.site_id, x.policy, ${ACCESS_COLUMNS}
     from (select distinct on (h.site_id) h.site_id, h.policy, h.rules_body_id
           from site_rule_nights h
           where h.run_at <= $1
             and ${inPortfolio('h.site_id', '$2')}
           order by h.site_id, h.run_at desc) x`,
    [night, portfolioId],
  );
  return new Map(rows.map((r) => [r.site_id, { policy: r.policy, starAllowed: r.star_allowed, exceptions: r.exceptions }]));
}
