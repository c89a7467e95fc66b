/** Portfolios: named groups of sites, created on first mention (`sites add --portfolio`). */
import { asc, count, eq, inArray, isNotNull } from 'drizzle-orm';
import type { Executor } from './client.js';
import { portfolioSites, portfolios } from './schema.js';

export type Portfolio = typeof portfolios.$inferSelect;

export function createPortfoliosRepo(db: Executor) {
  return {
    /** Creates the portfolios that do not exist yet; returns every name's id. */
    async ensurePortfolios(names: string[]): Promise<Map<string, number>> {
      const unique = [...new Set(names)];
      const ids = new Map<string, number>();
      if (unique.length === 0) return ids;
      await db
        .insert(portfolios)
        .values(unique.map((name) => ({ name })))
        .onConflictDoNothing({ target: portfolios.name });
      const rows = await db.select({ id: portfolios.id, name: portfolios.name }).from(portfolios).where(inArray(portfolios.name, unique));
      for (const row of rows) ids.set(row.name, row.id);
      return ids;
    },

    async findPortfolio(name: string): Promise<Portfolio | null> {
      const rows = await db.select().from(portfolios).where(eq(portfolios.name, name)).limit(1);
      return rows[0] ?? null;
    },

    /** Every portfolio with its number of sites, by name. */
    async listPortfolios(): Promise<(Portfolio & { siteCount: number })[]> {
      const rows = await db
        .select({ portfolio: portfolios, siteCount: count(portfolioSites.siteId) })
        .from(portfolios)
        .leftJoin(portfolioSites, eq(portfolioSites.portfolioId, portfolios.id))
        .groupBy(portfolios.id)
        .orderBy(asc(portfolios.name));
      return rows.map((r) => ({ ...r.portfolio, siteCount: r.siteCount }));
    },

    /** Sets a portfolio's own schedule (cron pattern and time zone), or removes it (null). */
    async setSchedule(portfolioId: number, schedule: { cron: string; timeZone: string } | null): Promise<void> {
      await db
        .update(portfolios)
        .set({ scheduleCron: schedule?.cron ?? null, scheduleTimezone: schedule?.timeZone ?? null })
        .where(eq(portfolios.id, portfolioId));
    },

    /** Portfolios that have a schedule of their own, by id. */
    async scheduledPortfolios(): Promise<{ id: number; name: string; cron: string; timeZone: string }[]> {
      const rows = await db
        .select({ id: portfolios.id, name: portfolios.name, cron: portfolios.scheduleCron, timeZone: portfolios.scheduleTimezone })
        .from(portfolios)
        .where(isNotNull(portfolios.scheduleCron))
        .orderBy(asc(portfolios.id));
      return rows.map((r) => ({ id: r.id, name: r.name, cron: r.cron!, timeZone: r.timeZone! }));
    },

    /** Replaces the extra user-agent tokens evaluated for a portfolio's sites. */
    async setExtraUserAgents(portfolioId: number, tokens: string[]): Promise<void> {
      await db.update(portfolios).set({ extraUserAgents: tokens }).where(eq(portfolios.id, portfolioId));
    },
  };
}

export type PortfoliosRepo = ReturnType<typeof createPortfoliosRepo>;
