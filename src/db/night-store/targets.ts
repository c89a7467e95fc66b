/**
 * The targets of sites' nights: every tracked URL (root first) with the agents it is evaluated
 * for, the default ones, its portfolios' extras and its own. Agent tokens without a
 * `user_agents` row get one (not default), so every verdict can reference its agent.
 */
import type { EvaluationTarget } from '../../night/input.js';
import { agentFamilyOf } from '../agent-families.js';
import { mergeAgentTokens } from '../tracked-urls.repo.js';
import { pgArray } from '../pg-array.js';
import { insertOrSelect } from './insert-or-select.js';
import type { Queryable } from './queryable.js';

interface AgentRow {
  id: number;
  token: string;
  family: string | null;
}

/** The targets of each site (T15: tokens compare lower-case). */
export async function loadTargets(db: Queryable, siteIds: number[]): Promise<Map<number, EvaluationTarget[]>> {
  const out = new Map<number, EvaluationTarget[]>();
  if (siteIds.length === 0) return out;
  const [urls, extras, defaults] = await Promise.all([
    db.query<{ site_id: number; id: number; url: string; is_root: boolean; extra_agents: string[] }>({
      name: 'night-tracked-urls',
      text: 'select site_id, id, url, is_root, extra_agents from tracked_urls where site_id = any($1::int[]) order by site_id, is_root desc, id',
      values: [siteIds],
    }),
    db.query<{ site_id: number; extra: string[] }>({
      name: 'night-portfolio-extras',
      text: `select ps.site_id, p.extra_user_agents as extra from portfolio_sites ps join portfolios p on p.id = ps.portfolio_id
             where ps.site_id = any($1::int[]) and cardinality(p.extra_user_agents) > 0 order by ps.site_id, p.name`,
      values: [siteIds],
    }),
    db.query<AgentRow>({ name: 'night-default-agents', text: 'select id, token, family from user_agents where is_default order by id' }),
  ]);
  const refs = new Map(defaults.rows.map((a) => [a.token.toLowerCase(), a]));
  const defaultTokens = defaults.rows.map((a) => a.token);
  const extrasBySite = new Map<number, string[][]>();
  for (const e of extras.rows) (extrasBySite.get(e.site_id) ?? extrasBySite.set(e.site_id, []).get(e.site_id)!).push(e.extra);
  const unknown = mergeAgentTokens(...extras.rows.map((e) => e.extra), ...urls.rows.map((u) => u.extra_agents)).filter((t) => !refs.has(t.toLowerCase()));
  for (const a of await ensureAgents(db, unknown)) refs.set(a.token.toLowerCase(), a);
  // Most URLs have no extra agent anywhere: they share one list; others are merged once per combination.
  const agentLists = new Map<string, AgentRow[]>();
  for (const u of urls.rows) {
    const extraLists = [...(extrasBySite.get(u.site_id) ?? []), u.extra_agents];
    const key = JSON.stringify(extraLists);
    let agents = agentLists.get(key);
    if (!agents) {
      agents = mergeAgentTokens(defaultTokens, ...extraLists).map((t) => refs.get(t.toLowerCase())!);
      agentLists.set(key, agents);
    }
    (out.get(u.site_id) ?? out.set(u.site_id, []).get(u.site_id)!).push({ trackedUrlId: u.id, url: u.url, isRoot: u.is_root, agents });
  }
  return out;
}

/** The agents' rows, made for tokens that have none yet (not default, their family when known). */
async function ensureAgents(db: Queryable, tokens: string[]): Promise<AgentRow[]> {
  if (tokens.length === 0) return [];
  return insertOrSelect(
    db,
    {
      insert: {
        name: 'night-insert-agents',
        text: `insert into user_agents (token, family, is_default) select t, f, false from unnest($1::text[], $2::text[]) as x(t, f)
               on conflict do nothing returning id, token, family`,
        values: [pgArray(tokens, (t) => t), pgArray(tokens, (t) => agentFamilyOf(t))],
      },
      select: { name: 'night-agent-ids', text: 'select id, token, family from user_agents where lower(token) = any($1::text[])' },
      nameOf: (a: AgentRow) => a.token.toLowerCase(),
      keyOf: (lowered) => lowered,
    },
    // Tokens are one agent whatever their case (user_agents_token_lower_key).
    new Map(tokens.map((t) => [t.toLowerCase(), t.toLowerCase()])),
  );
}
