/**
 * What a draft robots.txt of a monitored site is compared with (`test-draft`, the dashboard's
 * "Test a draft"): the site's latest night as the nightly run left it (outcome, effective policy
 * and its reason, the rules body in force and the last body fetched OK), and what the nightly
 * verdicts cover: every tracked URL with the default agents, its portfolios' extras and its own
 * extras (each token once, the first spelling kept, T15), and the catalogue's crawlers for the
 * root. Read only: a token that has no `user_agents` row yet gets the family the nightly run would
 * file it under (src/db/agent-families.ts), without writing one. Four queries, whatever the size.
 */
// The catalogue's own modules, not its index (which also brings the robots.json importer).
import { findCrawler } from '../crawlers/catalogue.js';
import { familyOfCategory, isCrawlerCategory } from '../crawlers/categories.js';
import type { CrawlerCategory, CrawlerFamily } from '../crawlers/categories.js';
import { agentFamilyOf, mergeAgentTokens } from '../db/agent-families.js';
import type { FetchOutcome } from '../policy/fetch-outcome.js';
import type { PolicyKind, PolicyReason } from '../policy/effective-policy.js';
import type { Queryable } from './site-errors.js';
import { SiteReportError } from './site-errors.js';
import type { SiteRef } from './site-lookup.js';

export interface BaselineAgent {
  token: string;
  family: CrawlerFamily;
  category: CrawlerCategory | null;
}

export interface SiteDraftBaseline {
  site: SiteRef;
  /** The latest night: what crawlers apply now. */
  current: {
    night: Date;
    runKey: string;
    outcome: FetchOutcome;
    policy: PolicyKind;
    policyReason: PolicyReason;
    rulesBody: Uint8Array | null;
    lastGoodBody: Uint8Array | null;
  };
  targets: { url: string; isRoot: boolean; agents: BaselineAgent[] }[];
  /** Every catalogued crawler (`user_agents` with a category), for the root. */
  catalogue: BaselineAgent[];
  /** The default agents (`user_agents.is_default`), in id order. */
  defaultAgents: string[];
}

interface AgentRow extends Record<string, unknown> {
  token: string;
  family: string | null;
  category: string | null;
  is_default: boolean;
}

const isFamily = (f: string | null): f is CrawlerFamily => f === 'search' || f === 'ai' || f === 'seo' || f === 'social' || f === 'other';

/**
 * A crawler as the nightly alert rules and the reports see it: its stored family and category
 * when it has a `user_agents` row, else the family it would be filed under (the catalogue's
 * category, else the table of known families, else `other`).
 */
export function baselineAgent(token: string, row?: { family: string | null; category: string | null }): BaselineAgent {
  const stored = row?.category ?? null;
  const category = stored !== null && isCrawlerCategory(stored) ? stored : (findCrawler(token)?.category ?? null);
  const family = row && isFamily(row.family) ? row.family : category !== null ? familyOfCategory(category) : (agentFamilyOf(token) ?? 'other');
  return { token, family, category };
}

const bytesOf = (b: Buffer | null): Uint8Array | null => (b === null ? null : new Uint8Array(b.buffer, b.byteOffset, b.byteLength));

export async function siteDraftBaseline(db: Queryable, site: SiteRef): Promise<SiteDraftBaseline> {
  const [state, urls, extras, agents] = await Promise.all([
    db.query<{
      run_at: Date;
      run_key: string;
      outcome: FetchOutcome;
      policy: PolicyKind;
      policy_reason: PolicyReason;
      rules_content: Buffer | null;
      good_content: Buffer | null;
      rules_is_good: boolean;
    }>(
      `select r.run_at, r.run_key, st.outcome::text as outcome, st.policy::text as policy, st.policy_reason,
              rb.content as rules_content, gb.content as good_content, coalesce(rb.id = st.last_good_body_id, false) as rules_is_good
         from site_state st
         join audit_runs r on r.id = st.run_id
         left join bodies rb on rb.id = st.rules_body_id and st.policy = 'rules'
         left join bodies gb on gb.id = st.last_good_body_id and gb.id is distinct from rb.id
        where st.site_id = $1`,
      [site.id],
    ),
    db.query<{ url: string; is_root: boolean; extra_agents: string[] }>(
      'select url, is_root, extra_agents from tracked_urls where site_id = $1 order by is_root desc, id',
      [site.id],
    ),
    db.query<{ extra: string[] }>(
      `select p.extra_user_agents as extra from portfolio_sites ps join portfolios p on p.id = ps.portfolio_id
        where ps.site_id = $1 and cardinality(p.extra_user_agents) > 0 order by p.name`,
      [site.id],
    ),
    db.query<AgentRow>('select token, family, category, is_default from user_agents order by id'),
  ]);
  const s = state.rows[0];
  if (!s) {
    throw new SiteReportError('not_found', `no nights yet for ${site.origin}: robots-audit audit runs one (or compare with a file: --current <file|url>)`);
  }
  const rows = new Map(agents.rows.map((a) => [a.token.toLowerCase(), a]));
  const agentOf = (token: string) => baselineAgent(token, rows.get(token.toLowerCase()));
  const defaultAgents = agents.rows.filter((a) => a.is_default).map((a) => a.token);
  // As the nightly targets: defaults, the portfolios' extras, then the URL's own (night-store.ts).
  const siteTokens = mergeAgentTokens(defaultAgents, ...extras.rows.map((e) => e.extra));
  const rulesBody = bytesOf(s.rules_content);
  const goodBody = s.rules_is_good ? rulesBody : bytesOf(s.good_content);
  return {
    site,
    current: { night: s.run_at, runKey: s.run_key, outcome: s.outcome, policy: s.policy, policyReason: s.policy_reason, rulesBody, lastGoodBody: goodBody },
    targets: urls.rows.map((u) => ({ url: u.url, isRoot: u.is_root, agents: mergeAgentTokens(siteTokens, u.extra_agents).map(agentOf) })),
    catalogue: agents.rows.filter((a) => a.category !== null).map((a) => agentOf(a.token)),
    defaultAgents,
  };
}
