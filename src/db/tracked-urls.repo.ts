/**
 * Tracked URLs: the URLs whose verdicts are evaluated every night, in canonical form (D-5), each
 * with extra agents on top of the defaults. The site root (`<origin>/`, is_root) is created with
 * the site (sites.repo) and is never removed here. Writes are idempotent: tracking a URL again
 * only merges its extra agents (case-insensitively, T15).
 */
import { and, asc, desc, eq, inArray, not, sql } from 'drizzle-orm';
import type { Executor } from './client.js';
import { createUserAgentsRepo } from './user-agents.repo.js';
import type { AgentRef } from './user-agents.repo.js';
import { portfolioSites, portfolios, sites, trackedUrls } from './schema.js';
import { canonicalUrl, isInScope } from '../robots/origin.js';
import { getPathParamsQuery } from '../robots/match.js';
import { mergeAgentTokens } from './agent-families.js';

// Importers of the repos find it here too.
export { mergeAgentTokens };

export type TrackedUrl = typeof trackedUrls.$inferSelect;

export interface TrackedUrlListing extends TrackedUrl {
  origin: string;
}

export interface TrackResult {
  /** Canonical URLs that were not tracked before, in input order. */
  added: string[];
  /** Canonical URLs that were already tracked (their extra agents merged). */
  existing: string[];
}

/** One URL to evaluate for a site, with every agent to evaluate it for. */
export interface TrackedUrlTarget {
  trackedUrlId: number;
  url: string;
  /** Path + query as matched against the rules (D-5, T48). */
  path: string;
  isRoot: boolean;
  /** Defaults, then the site's portfolios' extras, then the URL's own extras; each token once. */
  agents: AgentRef[];
}

const lower = (token: string) => token.toLowerCase();

/**
 * The stored array united with the new one, first spelling of each token kept (T15: tokens
 * compare lower-case), in order of first appearance.
 */
const MERGED_EXTRA_AGENTS = sql`(
  select coalesce(array_agg(x.token order by x.first), '{}'::text[])
  from (
    select min(u.ord) as first, (array_agg(u.token order by u.ord))[1] as token
    from unnest("tracked_urls"."extra_agents" || excluded.extra_agents) with ordinality as u(token, ord)
    group by lower(u.token)
  ) x)`;

export function createTrackedUrlsRepo(db: Executor) {
  async function originOf(tx: Executor, siteId: number): Promise<string> {
    const rows = await tx.select({ origin: sites.origin }).from(sites).where(eq(sites.id, siteId)).limit(1);
    if (!rows[0]) throw new Error(`no site ${siteId}`);
    return rows[0].origin;
  }

  return {
    /**
     * Tracks URLs of a site (any form; stored canonical, D-5), adding `extraAgents` to each.
     * A URL outside the site's origin (R-2..R-5) is a caller error and throws; nothing is written.
     */
    async track(siteId: number, urls: readonly string[], extraAgents: readonly string[] = []): Promise<TrackResult> {
      const agents = mergeAgentTokens(extraAgents);
      return db.transaction(async (tx) => {
        const origin = await originOf(tx, siteId);
        const canonical = [...new Set(urls.map((u) => canonicalUrl(u)))];
        const outside = canonical.find((u) => !isInScope(origin, u));
        if (outside !== undefined) throw new Error(`${outside} is not in the scope of ${origin}`);
        if (canonical.length === 0) return { added: [], existing: [] };
        const before = await tx
          .select({ url: trackedUrls.url })
          .from(trackedUrls)
          .where(and(eq(trackedUrls.siteId, siteId), inArray(trackedUrls.url, canonical)));
        const existed = new Set(before.map((r) => r.url));
        const insert = tx.insert(trackedUrls).values(
          canonical.map((url) => ({ siteId, url, path: getPathParamsQuery(url), isRoot: url === `${origin}/`, extraAgents: agents })),
        );
        if (agents.length === 0) await insert.onConflictDoNothing({ target: [trackedUrls.siteId, trackedUrls.url] });
        else await insert.onConflictDoUpdate({ target: [trackedUrls.siteId, trackedUrls.url], set: { extraAgents: MERGED_EXTRA_AGENTS } });
        return { added: canonical.filter((u) => !existed.has(u)), existing: canonical.filter((u) => existed.has(u)) };
      });
    },

    /** Stops tracking URLs of a site (any form); the root is never removed. Returns how many went. */
    async untrack(siteId: number, urls: readonly string[]): Promise<number> {
      const canonical = [...new Set(urls.map((u) => canonicalUrl(u)))];
      if (canonical.length === 0) return 0;
      const rows = await db
        .delete(trackedUrls)
        .where(and(eq(trackedUrls.siteId, siteId), inArray(trackedUrls.url, canonical), not(trackedUrls.isRoot)))
        .returning({ id: trackedUrls.id });
      return rows.length;
    },

    /** Tracked URLs, of one site or all, by origin with each site's root first. */
    async listTracked(siteId?: number): Promise<TrackedUrlListing[]> {
      const rows = await db
        .select({ tracked: trackedUrls, origin: sites.origin })
        .from(trackedUrls)
        .innerJoin(sites, eq(sites.id, trackedUrls.siteId))
        .where(siteId === undefined ? undefined : eq(trackedUrls.siteId, siteId))
        .orderBy(asc(sites.origin), desc(trackedUrls.isRoot), asc(trackedUrls.url));
      return rows.map((r) => ({ ...r.tracked, origin: r.origin }));
    },

    /**
     * What the nightly evaluation covers for a site: every tracked URL (root included) with its
     * agents = default agents ∪ the extras of every portfolio the site is in ∪ the URL's extras,
     * each token once (case-insensitive; the stored spelling wins). Tokens without a
     * `user_agents` row get one (not default), so every agent has an id for its verdicts.
     */
    async evaluationTargets(siteId: number): Promise<TrackedUrlTarget[]> {
      const agentsRepo = createUserAgentsRepo(db);
      const urls = await db
        .select()
        .from(trackedUrls)
        .where(eq(trackedUrls.siteId, siteId))
        .orderBy(desc(trackedUrls.isRoot), asc(trackedUrls.id));
      if (urls.length === 0) return [];
      const defaults = await agentsRepo.defaultAgents();
      const portfolioRows = await db
        .select({ extra: portfolios.extraUserAgents })
        .from(portfolios)
        .innerJoin(portfolioSites, eq(portfolioSites.portfolioId, portfolios.id))
        .where(eq(portfolioSites.siteId, siteId))
        .orderBy(asc(portfolios.name));
      const siteTokens = mergeAgentTokens(
        defaults.map((a) => a.token),
        ...portfolioRows.map((r) => r.extra),
      );
      const refs = new Map(defaults.map((a) => [lower(a.token), a]));
      const others = mergeAgentTokens(siteTokens, ...urls.map((u) => u.extraAgents)).filter((t) => !refs.has(lower(t)));
      for (const [key, ref] of await agentsRepo.ensureAgents(others)) refs.set(key, ref);
      return urls.map((u) => ({
        trackedUrlId: u.id,
        url: u.url,
        path: u.path,
        isRoot: u.isRoot,
        agents: mergeAgentTokens(siteTokens, u.extraAgents).map((t) => refs.get(lower(t))!),
      }));
    },
  };
}

export type TrackedUrlsRepo = ReturnType<typeof createTrackedUrlsRepo>;
