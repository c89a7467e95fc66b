/**
 * Sites and their portfolio membership. Every origin goes through `normalizeOrigin()` (R-1..R-6)
 * before it reaches the table, so `example.com`, `https://EXAMPLE.com:443/x` and
 * `https://example.com` are one site. Adding is an idempotent upsert: labels merge (the new
 * value of a key wins), memberships accumulate.
 */
import { and, asc, eq, exists, inArray, sql } from 'drizzle-orm';
import type { Executor } from './client.js';
import { createPortfoliosRepo } from './portfolios.repo.js';
import { normalizeOrigin } from '../robots/origin.js';
import { portfolioSites, portfolios, sites, trackedUrls } from './schema.js';

export type Labels = Record<string, string>;

export interface SiteEntry {
  /** Any URL of the site; normalised here. */
  origin: string;
  portfolios?: string[];
  labels?: Labels;
}

export interface UpsertSitesResult {
  /** Normalised origins that were new, in input order. */
  added: string[];
  /** Normalised origins that existed (labels and memberships merged into them). */
  existing: string[];
}

export interface SiteListing {
  id: number;
  origin: string;
  enabled: boolean;
  labels: Labels;
  portfolios: string[];
  createdAt: Date;
}

/** Rows per statement: far below Postgres's 65,535 bind parameters, small enough to keep locks short. */
export const SITES_BATCH_SIZE = 1000;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

interface MergedSite {
  origin: string;
  portfolios: Set<string>;
  labels: Labels;
}

/** Duplicate entries of one origin become one: labels merged in order, portfolios united. */
function mergeEntries(entries: SiteEntry[]): MergedSite[] {
  const byOrigin = new Map<string, MergedSite>();
  for (const entry of entries) {
    const origin = normalizeOrigin(entry.origin);
    const site = byOrigin.get(origin) ?? { origin, portfolios: new Set<string>(), labels: {} };
    for (const name of entry.portfolios ?? []) site.portfolios.add(name);
    Object.assign(site.labels, entry.labels);
    byOrigin.set(origin, site);
  }
  return [...byOrigin.values()];
}

/**
 * Adds or updates one batch of merged sites inside the caller's transaction: the sites, their
 * memberships and their root tracked URLs; each origin is reported as added or existing.
 */
async function upsertBatch(tx: Executor, batch: MergedSite[], portfolioIds: Map<string, number>, result: UpsertSitesResult): Promise<void> {
  const origins = batch.map((s) => s.origin);
  const before = await tx.select({ origin: sites.origin }).from(sites).where(inArray(sites.origin, origins));
  const existed = new Set(before.map((r) => r.origin));
  const rows = await tx
    .insert(sites)
    .values(batch.map((s) => ({ origin: s.origin, labels: s.labels })))
    .onConflictDoUpdate({ target: sites.origin, set: { labels: sql`${sites.labels} || excluded.labels` } })
    .returning({ id: sites.id, origin: sites.origin });
  const ids = new Map(rows.map((r) => [r.origin, r.id]));
  const memberships = batch.flatMap((s) =>
    [...s.portfolios].map((name) => ({ portfolioId: portfolioIds.get(name)!, siteId: ids.get(s.origin)! })),
  );
  if (memberships.length > 0) await tx.insert(portfolioSites).values(memberships).onConflictDoNothing();
  await tx
    .insert(trackedUrls)
    .values(rows.map((r) => ({ siteId: r.id, url: `${r.origin}/`, path: '/', isRoot: true })))
    .onConflictDoNothing();
  for (const origin of origins) (existed.has(origin) ? result.existing : result.added).push(origin);
}

/** Adding, updating and removing sites. */
function siteWrites(db: Executor) {
  /**
   * Adds or updates sites in one transaction: all of them or none. Each site also gets its
   * root tracked URL (`<origin>/`, is_root), which the nightly verdicts always cover.
   */
  async function upsertSites(entries: SiteEntry[]): Promise<UpsertSitesResult> {
    const merged = mergeEntries(entries);
    const result: UpsertSitesResult = { added: [], existing: [] };
    if (merged.length === 0) return result;
    await db.transaction(async (tx) => {
      const portfolioIds = await createPortfoliosRepo(tx).ensurePortfolios(merged.flatMap((s) => [...s.portfolios]));
      for (const batch of chunks(merged, SITES_BATCH_SIZE)) await upsertBatch(tx, batch, portfolioIds, result);
    });
    return result;
  }

  return {
    upsertSites,

    /** `sites add`: the same portfolio and labels for every origin. */
    addSites(origins: string[], options: { portfolio?: string; labels?: Labels } = {}): Promise<UpsertSitesResult> {
      const portfolio = options.portfolio;
      return upsertSites(origins.map((origin) => ({ origin, portfolios: portfolio ? [portfolio] : [], labels: options.labels ?? {} })));
    },

    /**
     * Deletes sites and, by cascade, their history (snapshots, attempts, tracked URLs, verdicts).
     * Returns how many existed.
     */
    async removeSites(origins: string[]): Promise<number> {
      const normalised = [...new Set(origins.map(normalizeOrigin))];
      if (normalised.length === 0) return 0;
      return db.transaction(async (tx) => {
        let removed = 0;
        for (const batch of chunks(normalised, SITES_BATCH_SIZE)) {
          const rows = await tx.delete(sites).where(inArray(sites.origin, batch)).returning({ id: sites.id });
          removed += rows.length;
        }
        return removed;
      });
    },
  };
}

/** Reading sites: listings, lookups by origin or id, and the sites of a run. */
function siteReads(db: Executor) {
  return {
    /** Sites by origin, with their portfolios; only one portfolio's sites when `portfolio` is given. */
    async listSites(options: { portfolio?: string } = {}): Promise<SiteListing[]> {
      const member = options.portfolio
        ? exists(
            db
              .select({ one: sql`1` })
              .from(portfolioSites)
              .innerJoin(portfolios, eq(portfolios.id, portfolioSites.portfolioId))
              .where(and(eq(portfolioSites.siteId, sites.id), eq(portfolios.name, options.portfolio))),
          )
        : undefined;
      return db
        .select({
          id: sites.id,
          origin: sites.origin,
          enabled: sites.enabled,
          labels: sites.labels,
          portfolios: sql<string[]>`coalesce(array_agg(${portfolios.name} order by ${portfolios.name}) filter (where ${portfolios.name} is not null), '{}')`,
          createdAt: sites.createdAt,
        })
        .from(sites)
        .leftJoin(portfolioSites, eq(portfolioSites.siteId, sites.id))
        .leftJoin(portfolios, eq(portfolios.id, portfolioSites.portfolioId))
        .where(member)
        .groupBy(sites.id)
        .orderBy(asc(sites.origin));
    },

    /** Which of these origins (normalised) are monitored. */
    async existingOrigins(origins: string[]): Promise<Set<string>> {
      const found = new Set<string>();
      for (const batch of chunks([...new Set(origins.map(normalizeOrigin))], SITES_BATCH_SIZE)) {
        const rows = await db.select({ origin: sites.origin }).from(sites).where(inArray(sites.origin, batch));
        for (const row of rows) found.add(row.origin);
      }
      return found;
    },

    /** One site by id; null when it was removed. */
    async getSite(id: number): Promise<{ id: number; origin: string; enabled: boolean } | null> {
      const rows = await db.select({ id: sites.id, origin: sites.origin, enabled: sites.enabled }).from(sites).where(eq(sites.id, id)).limit(1);
      return rows[0] ?? null;
    },

    /** One site by its normalised origin; null when it is not monitored. */
    async findSiteByOrigin(origin: string): Promise<{ id: number; origin: string; enabled: boolean } | null> {
      const rows = await db.select({ id: sites.id, origin: sites.origin, enabled: sites.enabled }).from(sites).where(eq(sites.origin, origin)).limit(1);
      return rows[0] ?? null;
    },

    /**
     * The ids of the sites a run fetches, in order: enabled ones, of one portfolio when given. One
     * array, not a row per site: at 1,000,000 sites the run's start holds 1,000,000 numbers, not
     * as many row objects with their origins.
     */
    async enabledSiteIdsForRun(options: { portfolioId?: number | null } = {}): Promise<number[]> {
      const portfolioId = options.portfolioId ?? null;
      const { rows } = await db.execute<{ ids: number[] }>(sql`
        select coalesce(array_agg(s.id order by s.id), '{}') as ids from ${sites} s
        where s.enabled
          and (${portfolioId}::int is null
               or exists (select 1 from ${portfolioSites} m where m.site_id = s.id and m.portfolio_id = ${portfolioId}::int))`);
      return rows[0]!.ids;
    },
  };
}

export function createSitesRepo(db: Executor) {
  return { ...siteWrites(db), ...siteReads(db) };
}

export type SitesRepo = ReturnType<typeof createSitesRepo>;
