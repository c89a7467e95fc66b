/**
 * What an operator asks Postgres about the pipeline right now: the runs in progress with their
 * portfolio, and the alert deliveries still waiting to go out. Read by `robots-audit stats` and
 * by the metrics of workers on each scrape, so both are one-row-per-run or one-row reads.
 */
import { asc, eq, sql } from 'drizzle-orm';
import type { Executor } from './client.js';
import { alertDeliveries, auditRuns, portfolios } from './schema.js';
import type { AuditRun } from './runs.repo.js';

export type RunInProgress = AuditRun & { portfolio: string | null };

export interface PendingDeliveries {
  count: number;
  /** When the oldest pending delivery was created; null when none is pending. */
  oldestCreatedAt: Date | null;
}

export function createPipelineStatusRepo(db: Executor) {
  return {
    /** Runs not yet finished, oldest first, with the name of the portfolio they are limited to. */
    async runsInProgress(): Promise<RunInProgress[]> {
      const rows = await db
        .select({ run: auditRuns, portfolio: portfolios.name })
        .from(auditRuns)
        .leftJoin(portfolios, eq(portfolios.id, auditRuns.portfolioId))
        .where(eq(auditRuns.status, 'running'))
        .orderBy(asc(auditRuns.id));
      return rows.map((r) => ({ ...r.run, portfolio: r.portfolio }));
    },

    async pendingDeliveries(): Promise<PendingDeliveries> {
      const rows = await db
        .select({ count: sql<string>`count(*)`, oldest: sql<Date | null>`min(${alertDeliveries.createdAt})` })
        .from(alertDeliveries)
        .where(eq(alertDeliveries.status, 'pending'));
      const oldest = rows[0]?.oldest ?? null;
      return { count: Number(rows[0]?.count ?? 0), oldestCreatedAt: oldest === null ? null : new Date(oldest) };
    },
  };
}

export type PipelineStatusRepo = ReturnType<typeof createPipelineStatusRepo>;
