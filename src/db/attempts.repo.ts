/**
 * Fetch attempts: every attempt of every run is kept (D-3), including retries.
 * Writes are idempotent on (site, run, attempt): a job retried after a crash records nothing twice.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from './client.js';
import type { RedirectHop } from './schema.js';
import { fetchAttempts } from './schema.js';

type AttemptRow = typeof fetchAttempts.$inferSelect;

/** An attempt as the fetcher reports it: `finalUrl` always set, `hops` possibly empty. */
export type AttemptInput = Omit<typeof fetchAttempts.$inferInsert, 'finalUrl' | 'hops'> & {
  finalUrl: string;
  hops: RedirectHop[];
};

/** An attempt read back: `finalUrl` and `hops` restored from their narrow stored form. */
export type Attempt = Omit<AttemptRow, 'finalUrl' | 'hops'> & { finalUrl: string; hops: RedirectHop[] };

/** The stored form: no redirect -> final_url and hops NULL (most rows; see schema.ts). */
function toRow(input: AttemptInput): typeof fetchAttempts.$inferInsert {
  return {
    ...input,
    finalUrl: input.finalUrl === input.requestedUrl ? null : input.finalUrl,
    hops: input.hops.length > 0 ? input.hops : null,
  };
}

function fromRow(row: AttemptRow): Attempt {
  return { ...row, finalUrl: row.finalUrl ?? row.requestedUrl, hops: row.hops ?? [] };
}

export function createAttemptsRepo(db: Executor) {
  return {
    /** Records one attempt; returns whether this call wrote it (false: it was already recorded). */
    async recordAttempt(input: AttemptInput): Promise<{ created: boolean }> {
      const rows = await db.insert(fetchAttempts).values(toRow(input)).onConflictDoNothing().returning({ attempt: fetchAttempts.attempt });
      return { created: rows.length > 0 };
    },

    /** Records several attempts in one statement; returns how many were new. */
    async recordAttempts(inputs: AttemptInput[]): Promise<number> {
      if (inputs.length === 0) return 0;
      const rows = await db.insert(fetchAttempts).values(inputs.map(toRow)).onConflictDoNothing().returning({ attempt: fetchAttempts.attempt });
      return rows.length;
    },

    /** The attempts of a site in a run, in order. */
    async attemptsFor(runId: number, siteId: number): Promise<Attempt[]> {
      const rows = await db
        .select()
        .from(fetchAttempts)
        .where(and(eq(fetchAttempts.siteId, siteId), eq(fetchAttempts.runId, runId)))
        .orderBy(asc(fetchAttempts.attempt));
      return rows.map(fromRow);
    },
  };
}

export type AttemptsRepo = ReturnType<typeof createAttemptsRepo>;
