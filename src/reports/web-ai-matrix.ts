/**
 * The dashboard's AI access page: sites x AI crawlers, each cell whether the crawler may fetch
 * the site's root now, what decides it (its own group's line, the `*` group's, or a policy that
 * allows or blocks everything) and since which night. The columns are the default agents' AI
 * crawlers unless the page picks others from the catalogue; a filter keeps the sites that block
 * one crawler ("which of my sites block GPTBot, and since when?"). A page of sites at a time,
 * computed from body_agent_access like `report ai-access` (a site costs its few exception rows);
 * "since" from the ai_access view, for the page's cells only.
 */
import type pg from 'pg';
import type { AiCrawler } from './report-ai-access.js';
import { FILTER, normalizeSearch } from './web-overview.js';
import { AI_CATEGORIES } from '../crawlers/categories.js';

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
}

export interface AiMatrix {
  /** Every AI crawler of the catalogue, the default agents first: the page's picker. */
  catalogue: AiColumn[];
  columns: AiColumn[];
  /** The crawler of `blocks`, as the catalogue spells it. */
  blocks: AiColumn | null;
  sites: { siteId: number; origin: string; policy: string | null; policyReason: string | null; cells: (AiCell | null)[] }[];
  matching: number;
}

/** A crawler the page names that the catalogue does not hold. */
export class UnknownCrawler extends Error {
  override name = 'UnknownCrawler';
}

interface AccessRow {
  site_id: number;
  origin: string;
  policy: string | null;
  policy_reason: string | null;
  rows: { token: string; allowed: boolean; line: number | null }[] | null;
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

/**
 * The sites (alias `s`) of FILTER whose root the crawler in `param` may not fetch now (the
 * ai_access view's rule, R-40), or every one when `param` is null.
 */
const filterBlocking = (param: string) =>
  `${FILTER} and (${param}::text is null or exists (select 1 from site_state x where x.site_id = s.id and not robots_audit_root_access(x.policy, x.rules_body_id, ${param})))`;

export async function aiMatrix(pool: pg.Pool, query: AiMatrixQuery): Promise<AiMatrix> {
  const search = normalizeSearch(query.search);
  const catalogue = await aiCatalogue(pool);
  const columns = pickColumns(catalogue, query);
  const blocks = query.blocks === null ? null : findCrawler(catalogue, query.blocks);
  const [page, count] = await Promise.all([
    pool.query<AccessRow>(
      `select s.id as site_id, s.origin, x.policy, x.policy_reason,
              (select jsonb_agg(jsonb_build_object('token', a.token, 'allowed', a.allowed, 'line', a.rule_line))
               from body_agent_access a where a.body_id = x.rules_body_id) as rows
       from (select s.id, s.origin from sites s where ${filterBlocking('$5')} order by s.origin limit $3 offset $4) s
       left join site_state x on x.site_id = s.id
       order by s.origin`,
      [query.portfolioId, search, query.pageSize, (Math.max(1, query.page) - 1) * query.pageSize, blocks?.token ?? null],
    ),
    pool.query<{ n: number }>(`select count(*)::int as n from sites s where ${filterBlocking('$3')}`, [query.portfolioId, search, blocks?.token ?? null]),
  ]);
  const since = await accessSince(
    pool,
    page.rows.filter((r) => r.policy !== null).map((r) => r.site_id),
    columns.map((c) => c.token),
  );
  return {
    catalogue,
    columns,
    blocks,
    matching: count.rows[0]!.n,
    sites: page.rows.map((r) => {
      const byToken = new Map((r.rows ?? []).map((a) => [a.token, a]));
      const star = byToken.get('*');
      return {
        siteId: r.site_id,
        origin: r.origin,
        policy: r.policy,
        policyReason: r.policy_reason,
        cells: columns.map((c): AiCell | null => {
          if (r.policy === null) return null;
          const at = since.get(`${r.site_id} ${c.token}`) ?? null;
          if (r.policy !== 'rules') return { allowed: r.policy === 'allow_all', by: 'policy', line: null, since: at };
          const own = byToken.get(c.token.toLowerCase());
          // a crawler without a group of its own follows `*`; no `*` row: nothing blocks it.
          if (own) return { allowed: own.allowed, by: 'own', line: own.line, since: at };
          return { allowed: star?.allowed ?? true, by: 'star', line: star?.line ?? null, since: at };
        }),
      };
    }),
  };
}

/** Since which night each crawler's answer at each site's root holds, keyed `<site id> <token>`. */
async function accessSince(pool: pg.Pool, siteIds: readonly number[], tokens: readonly string[]): Promise<Map<string, Date>> {
  if (siteIds.length === 0 || tokens.length === 0) return new Map();
  const { rows } = await pool.query<{ site_id: number; token: string; since: Date | null }>(
    'select site_id, token, since from ai_access where site_id = any($1::int[]) and token = any($2::text[])',
    [siteIds, tokens],
  );
  return new Map(rows.filter((r) => r.since !== null).map((r) => [`${r.site_id} ${r.token}`, r.since!]));
}
