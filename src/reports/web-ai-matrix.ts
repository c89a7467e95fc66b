/**
 * The dashboard's AI access page: sites x the AI crawlers of the catalogue, each cell whether the
 * crawler may fetch the site's root now and what decides it (its own group's line, the `*`
 * group's, or a policy that allows or blocks everything). A page of sites at a time, computed
 * from body_agent_access like `report ai-access` (a site costs its few exception rows).
 */
import type pg from 'pg';
import type { AiCrawler } from './report-ai-access.js';
import { loadAiCrawlers } from './report-ai-access.js';
import { FILTER, normalizeSearch } from './web-overview.js';

export { AI_CATEGORIES } from '../crawlers/categories.js';
import type { AiCategory } from '../crawlers/categories.js';
export type { AiCategory };

export interface AiMatrixQuery {
  portfolioId: number | null;
  search: string | null;
  category: AiCategory | null;
  page: number;
  pageSize: number;
}

export interface AiCell {
  allowed: boolean;
  /** `own`: the crawler's group; `star`: the `*` group; `policy`: allow_all or disallow_all. */
  by: 'own' | 'star' | 'policy';
  line: number | null;
}

export interface AiMatrix {
  crawlers: AiCrawler[];
  sites: { siteId: number; origin: string; policy: string | null; policyReason: string | null; cells: (AiCell | null)[] }[];
  matching: number;
}

interface AccessRow {
  site_id: number;
  origin: string;
  policy: string | null;
  policy_reason: string | null;
  rows: { token: string; allowed: boolean; line: number | null }[] | null;
}

export async function aiMatrix(pool: pg.Pool, query: AiMatrixQuery): Promise<AiMatrix> {
  const search = normalizeSearch(query.search);
  const all = await loadAiCrawlers(pool);
  const crawlers = query.category === null ? all : all.filter((c) => c.category === query.category);
  const [page, count] = await Promise.all([
    pool.query<AccessRow>(
      `select s.id as site_id, s.origin, x.policy, x.policy_reason,
              (select jsonb_agg(jsonb_build_object('token', a.token, 'allowed', a.allowed, 'line', a.rule_line))
               from body_agent_access a where a.body_id = x.rules_body_id) as rows
       from (select s.id, s.origin from sites s where ${FILTER} order by s.origin limit $3 offset $4) s
       left join site_state x on x.site_id = s.id
       order by s.origin`,
      [query.portfolioId, search, query.pageSize, (Math.max(1, query.page) - 1) * query.pageSize],
    ),
    pool.query<{ n: number }>(`select count(*)::int as n from sites s where ${FILTER}`, [query.portfolioId, search]),
  ]);
  return {
    crawlers,
    matching: count.rows[0]!.n,
    sites: page.rows.map((r) => {
      const byToken = new Map((r.rows ?? []).map((a) => [a.token, a]));
      const star = byToken.get('*');
      return {
        siteId: r.site_id,
        origin: r.origin,
        policy: r.policy,
        policyReason: r.policy_reason,
        cells: crawlers.map((c): AiCell | null => {
          if (r.policy === null) return null;
          if (r.policy !== 'rules') return { allowed: r.policy === 'allow_all', by: 'policy', line: null };
          const own = byToken.get(c.token.toLowerCase());
          // a crawler without a group of its own follows `*`; no `*` row: nothing blocks it.
          if (own) return { allowed: own.allowed, by: 'own', line: own.line };
          return { allowed: star?.allowed ?? true, by: 'star', line: star?.line ?? null };
        }),
      };
    }),
  };
}
