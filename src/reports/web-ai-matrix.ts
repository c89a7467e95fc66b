/**
 * The dashboard's AI access page: sites x AI crawlers, each cell whether the crawler may fetch
 * the site's root now, what decides it (its own group's line, the `*` group's, or a policy that
 * allows or blocks everything) and since which night. The columns are the default agents' AI
 * crawlers unless the page picks others from the catalogue; a filter keeps the sites that block
 * one crawler ("which of my sites block GPTBot, and since when?"). A page of sites at a time,
 * computed from body_agent_access like `report ai-access` (a site costs its few exception rows);
 * "since" from the ai_access view, for the page's cells only. Beside the crawlers, what each
 * purpose (search, AI training, AI input) is told to the site's tracked URLs x agents by its
 * Content-Signal and Content-Usage lines (the verdict spans in force, for the page's sites only),
 * and a filter by it (usage-filters.ts: "refuses AI training but lets an AI-training crawler crawl").
 */
import type pg from 'pg';
import type { AiCrawler } from './report-ai-access.js';
import { PARSER_VERDICTS_COLUMN, sitesBlocking } from './report-ai-access.js';
import type { StoredParserVerdict } from './report-ai-access.js';
import { FILTER, normalizeSearch } from './web-overview.js';
import { AI_CATEGORIES, AI_TRAINING_CATEGORY } from '../crawlers/categories.js';
import { findCrawlerRules, parserOf, robotsTxtUseText } from '../crawlers/crawler-rules.js';
import type { FactBasis } from '../crawlers/crawler-rules.js';
import type { ParserProfileName } from '../robots/profiles/index.js';
import type { UsagePreference } from '../robots/index.js';
import { USAGE_PURPOSES } from '../night/vocabulary.js';
import type { UsagePurpose } from '../night/vocabulary.js';
import type { UsageRule } from '../night/input.js';
import { USAGE_FILTER_TEXT, USAGE_FILTERS, usageFilterCondition } from './usage-filters.js';
import type { UsageFilter } from './usage-filters.js';

export { USAGE_FILTER_TEXT, USAGE_FILTERS };
export type { UsageFilter };

export { AI_CATEGORIES };
import type { AiCategory } from '../crawlers/categories.js';
export type { AiCategory };

export interface AiMatrixQuery {
  portfolioId: number | null;
  search: string | null;
  /** The columns: these crawlers (tokens of the catalogue, any case); empty: see `category`. */
  crawlers: readonly string[];
  /** With no crawlers picked: every crawler of this category; null: the default agents' AI crawlers. */
  category: AiCategory | null;
  /** Only the sites whose root this crawler may not fetch now. */
  blocks: string | null;
  /** Only the sites whose usage preferences are so (usage-filters.ts). */
  usage?: UsageFilter | null;
  page: number;
  pageSize: number;
}

export interface AiColumn extends AiCrawler {
  /** One of the default agents (tracked every night for every tracked URL). */
  isDefault: boolean;
}

export interface AiCell {
  allowed: boolean;
  /** `own`: the crawler's group; `star`: the `*` group; `policy`: allow_all or disallow_all. */
  by: 'own' | 'star' | 'policy';
  line: number | null;
  /** The first night of the stretch in which the answer has been what it is. */
  since: Date | null;
  /** The root's verdict under the crawler's own parser where it differs (stored by the night for the agents); null otherwise. */
  parser?: { profile: string; basis: FactBasis; allowed: boolean } | null;
}

/** What the crawler rules say of a column's crawler (docs/crawlers.md, "Crawler rules"). */
export interface AiColumnRules {
  /** The parser it is known or assumed to use; the cells are Google's parser's answers. */
  parser: { profile: ParserProfileName | 'unknown'; basis: FactBasis; source: string | null };
  /** Its documented rules in words, with their sources: the groups it also follows, `*` ignored, robots.txt not applied. */
  notes: string[];
}

export interface AiMatrix {
  /** Every AI crawler of the catalogue, the default agents first: the page's picker. */
  catalogue: AiColumn[];
  columns: AiColumn[];
  /** One per column, in the same order. */
  columnRules: AiColumnRules[];
  /** The crawler of `blocks`, as the catalogue spells it. */
  blocks: AiColumn | null;
  sites: AiMatrixSite[];
  matching: number;
}

export interface AiMatrixSite {
  siteId: number;
  origin: string;
  policy: string | null;
  policyReason: string | null;
  cells: (AiCell | null)[];
  /** One per purpose, in USAGE_PURPOSES' order. */
  usage: SiteUsage[];
  /** The catalogue's AI-training crawlers that may fetch the root now (null: not audited). */
  trainingCrawlersIn: string[] | null;
}

/** How many tracked URL x agent pairs are told one preference for a purpose, with one example's deciding line. */
export interface UsageTold {
  preference: UsagePreference;
  count: number;
  /** The deciding line of the first pair told so (the root first); null for unknown and not-crawlable. */
  rule: UsageRule | null;
  example: { url: string; token: string };
}

export interface SiteUsage {
  purpose: UsagePurpose;
  /** Refused first, then allowed, unknown, not-crawlable; empty when no verdict is in force. */
  told: UsageTold[];
}

/** Short names of the purposes, for columns and labels. */
/** The purposes' labels, defined with the purposes (src/robots/usage/vocabulary.ts). */
export { USAGE_PURPOSE_LABELS } from '../robots/usage/vocabulary.js';

const PREFERENCE_ORDER: readonly UsagePreference[] = ['refused', 'allowed', 'unknown', 'not-crawlable'];

/** A crawler the page names that the catalogue does not hold. */
export class UnknownCrawler extends Error {
  override name = 'UnknownCrawler';
}

interface AccessRow {
  site_id: number;
  origin: string;
  policy: string | null;
  policy_reason: string | null;
  rules_body_id: number | null;
  rows: { token: string; allowed: boolean; line: number | null }[] | null;
  parser_verdicts: StoredParserVerdict[];
}

/** The AI crawlers of the catalogue, the default agents first, each group by token. */
export async function aiCatalogue(pool: pg.Pool): Promise<AiColumn[]> {
  const { rows } = await pool.query<AiColumn>(
    `select token, category, is_default as "isDefault" from user_agents where category = any($1::text[]) order by is_default desc, lower(token)`,
    [AI_CATEGORIES],
  );
  return rows;
}

function pickColumns(catalogue: readonly AiColumn[], query: AiMatrixQuery): AiColumn[] {
  if (query.crawlers.length > 0) return query.crawlers.map((t) => findCrawler(catalogue, t));
  if (query.category !== null) return catalogue.filter((c) => c.category === query.category);
  const defaults = catalogue.filter((c) => c.isDefault);
  return defaults.length > 0 ? defaults : [...catalogue];
}

function findCrawler(catalogue: readonly AiColumn[], token: string): AiColumn {
  const found = catalogue.find((c) => c.token.toLowerCase() === token.toLowerCase());
  if (!found) throw new UnknownCrawler(`"${token}" is not an AI crawler of the catalogue (robots-audit agents list --all)`);
  return found;
}

export async function aiMatrix(pool: pg.Pool, query: AiMatrixQuery): Promise<AiMatrix> {
  const search = normalizeSearch(query.search);
  const catalogue = await aiCatalogue(pool);
  const columns = pickColumns(catalogue, query);
  const blocks = query.blocks === null ? null : findCrawler(catalogue, query.blocks);
  const usage = query.usage ?? null;
  // $1 portfolio, $2 search, $3 limit, $4 offset, $5 the crawler the sites block, $6 the usage filter
  const chosen = `${FILTER} and ${blocks === null ? '$5::text is null' : `s.id in ${sitesBlocking('lower($5)')}`} and ${usageFilterCondition('s.id', '$6')}`;
  const params = [query.portfolioId, search, query.pageSize, (Math.max(1, query.page) - 1) * query.pageSize, blocks?.token ?? null, usage];
  // A page by the origin index, and the count apart; with "blocks" or "usage" the set is read
  // whole anyway, so the page's rows carry the count (one pass, not two).
  const narrowed = blocks !== null || usage !== null;
  const [page, count] = await Promise.all([
    pool.query<AccessRow & { matching: number | null }>(
      `select s.id as site_id, s.origin, x.policy, x.policy_reason, x.rules_body_id, s.matching,
              (select jsonb_agg(jsonb_build_object('token', a.token, 'allowed', a.allowed, 'line', a.rule_line))
               from body_agent_access a where a.body_id = x.rules_body_id) as rows,
              ${PARSER_VERDICTS_COLUMN}
       from (select s.id, s.origin, ${narrowed ? 'count(*) over ()::int' : 'null::int'} as matching from sites s
             where ${chosen} order by s.origin limit $3 offset $4) s
       left join site_state x on x.site_id = s.id
       order by s.origin`,
      params,
    ),
    narrowed ? null : pool.query<{ n: number }>(`select count(*)::int as n from sites s where ${FILTER}`, params.slice(0, 2)),
  ]);
  const matching =
    count?.rows[0]!.n ??
    page.rows[0]?.matching ??
    (query.page > 1 ? (await pool.query<{ n: number }>(`with typed as (select $3::int, $4::int) select count(*)::int as n from sites s where ${chosen}`, params)).rows[0]!.n : 0);
  const told = await usageTold(pool, page.rows.map((r) => r.site_id));
  const training = catalogue.filter((c) => c.category === AI_TRAINING_CATEGORY);
  const since = await accessSince(pool, page.rows.filter((r) => r.policy !== null), columns.map((c) => c.token));
  return {
    catalogue,
    columns,
    columnRules: columns.map(columnRules),
    blocks,
    matching,
    sites: page.rows.map((r) => {
      const byToken = new Map((r.rows ?? []).map((a) => [a.token, a]));
      const star = byToken.get('*');
      const parsers = new Map(r.parser_verdicts.map((v) => [v.token.toLowerCase(), v]));
      const access = new Map((r.rows ?? []).map((a) => [a.token, a.allowed]));
      return {
        siteId: r.site_id,
        origin: r.origin,
        policy: r.policy,
        policyReason: r.policy_reason,
        usage: USAGE_PURPOSES.map((purpose) => ({ purpose, told: told.get(`${r.site_id} ${purpose}`) ?? [] })),
        trainingCrawlersIn: r.policy === null ? null : training.filter((c) => rootAnswer(r.policy!, access, c.token.toLowerCase())).map((c) => c.token),
        cells: columns.map((c): AiCell | null => {
          if (r.policy === null) return null;
          const at = since.get(`${r.site_id} ${c.token.toLowerCase()}`) ?? null;
          if (r.policy !== 'rules') return { allowed: r.policy === 'allow_all', by: 'policy', line: null, since: at };
          const stored = parsers.get(c.token.toLowerCase());
          const parser = stored ? { profile: stored.profile, basis: parserBasis(stored), allowed: stored.allowed } : null;
          const own = byToken.get(c.token.toLowerCase());
          // R-40: a crawler without a group of its own follows `*`; no `*` row: nothing blocks it.
          if (own) return { allowed: own.allowed, by: 'own', line: own.line, since: at, parser };
          return { allowed: star?.allowed ?? true, by: 'star', line: star?.line ?? null, since: at, parser };
        }),
      };
    }),
  };
}

/**
 * What each purpose is told to the sites' tracked URLs x agents now, keyed `<site id> <purpose>`:
 * the pairs per preference (the ai_use view's words: robots_audit_usage), each with the deciding
 * line of its first pair, the root first. The page's sites only: their open spans, through the
 * spans' key (tracked_url_id first).
 */
async function usageTold(pool: pg.Pool, siteIds: readonly number[]): Promise<Map<string, UsageTold[]>> {
  const out = new Map<string, UsageTold[]>();
  if (siteIds.length === 0) return out;
  const { rows } = await pool.query<{ site_id: number; purpose: UsagePurpose; preference: UsagePreference; n: number; rule: UsageRule | null; url: string; token: string }>(
    `select t.site_id, p.purpose, robots_audit_usage(v.allowed, p.stated) as preference, count(*)::int as n,
            (array_agg(v.usage_rules -> p.purpose order by t.is_root desc, t.url, lower(a.token)))[1] as rule,
            (array_agg(t.url order by t.is_root desc, t.url, lower(a.token)))[1] as url,
            (array_agg(a.token order by t.is_root desc, t.url, lower(a.token)))[1] as token
     from tracked_urls t
     join verdicts v on v.tracked_url_id = t.id and v.to_run_id is null
     join user_agents a on a.id = v.user_agent_id
     cross join lateral (values ('search', v.usage_search), ('ai-train', v.usage_ai_train), ('ai-input', v.usage_ai_input)) as p(purpose, stated)
     where t.site_id = any($1::int[])
     group by t.site_id, p.purpose, 3`,
    [siteIds],
  );
  for (const r of rows) {
    const key = `${r.site_id} ${r.purpose}`;
    const list = out.get(key) ?? out.set(key, []).get(key)!;
    const stated = r.preference === 'allowed' || r.preference === 'refused';
    list.push({ preference: r.preference, count: r.n, rule: stated ? r.rule : null, example: { url: r.url, token: r.token } });
  }
  for (const list of out.values()) list.sort((a, b) => PREFERENCE_ORDER.indexOf(a.preference) - PREFERENCE_ORDER.indexOf(b.preference));
  return out;
}

/** Known or assumed, as the crawler rules say of the stored profile now. */
function parserBasis(v: StoredParserVerdict): FactBasis {
  const now = parserOf(v.token);
  return now.profile === v.profile ? now.basis : 'assumed';
}

/** The root's answer for a token under a night's policy and rules body (the robots_audit_root_access rule). */
function rootAnswer(policy: string, access: ReadonlyMap<string, boolean> | undefined, token: string): boolean {
  if (policy === 'allow_all') return true;
  if (policy === 'disallow_all') return false;
  return access?.get(token) ?? access?.get('*') ?? true;
}

/**
 * Since which night each crawler's answer at each site's root holds, keyed `<site id> <token>`:
 * the first of the nights that could change it (site_rule_nights: a new file, another policy)
 * since the last one that answered otherwise, as the ai_access view says, computed here from
 * the page's sites' few rule nights and their bodies' rows (the view, per cell, took 80 ms for
 * a page of 8 crawlers and 400 ms for 60).
 */
async function accessSince(pool: pg.Pool, sites: readonly AccessRow[], tokens: readonly string[]): Promise<Map<string, Date>> {
  const out = new Map<string, Date>();
  if (sites.length === 0 || tokens.length === 0) return out;
  const lower = tokens.map((t) => t.toLowerCase());
  const { rows: nights } = await pool.query<{ site_id: number; run_at: Date; policy: string; rules_body_id: number | null }>(
    'select site_id, run_at, policy::text, rules_body_id from site_rule_nights where site_id = any($1::int[]) order by site_id, run_at desc',
    [sites.map((s) => s.site_id)],
  );
  const bodies = [...new Set(nights.map((n) => n.rules_body_id).filter((id) => id !== null))];
  const { rows: access } = await pool.query<{ body_id: number; token: string; allowed: boolean }>(
    `select body_id, token, allowed from body_agent_access where body_id = any($1::int[]) and (token = '*' or token = any($2::text[]))`,
    [bodies, lower],
  );
  const byBody = new Map<number, Map<string, boolean>>();
  for (const a of access) (byBody.get(a.body_id) ?? byBody.set(a.body_id, new Map()).get(a.body_id)!).set(a.token, a.allowed);
  const bySite = new Map<number, typeof nights>();
  for (const n of nights) (bySite.get(n.site_id) ?? bySite.set(n.site_id, []).get(n.site_id)!).push(n);
  for (const site of sites) {
    const history = bySite.get(site.site_id) ?? [];
    for (const token of lower) {
      const now = rootAnswer(site.policy!, byBody.get(site.rules_body_id ?? -1), token);
      let since: Date | null = null;
      // Newest first: back while the nights answered as now.
      for (const n of history) {
        if (rootAnswer(n.policy, n.rules_body_id === null ? undefined : byBody.get(n.rules_body_id), token) !== now) break;
        since = n.run_at;
      }
      if (since) out.set(`${site.site_id} ${token}`, since);
    }
  }
  return out;
}

/** A column's crawler rules: its parser, and its documented rules in words with their sources. */
function columnRules(c: AiColumn): AiColumnRules {
  const rules = findCrawlerRules(c.token);
  const parser = parserOf(c.token);
  const notes: string[] = [];
  if (rules?.furtherTokens) notes.push(`${rules.token} follows the ${rules.furtherTokens.value.join(', then ')} group when none names ${rules.token} (${rules.furtherTokens.source})`);
  if (rules?.starGroup?.value === 'ignores') notes.push(`${rules.token} ignores the * group (${rules.starGroup.source})`);
  const use = robotsTxtUseText(c.token);
  if (use !== null) notes.push(use);
  return { parser: { profile: parser.profile, basis: parser.basis, source: parser.source }, notes };
}
