/**
 * Reading nights back: a site's night in a run, its history (by the run clock, newest first), its
 * latest night, and every attempt of a night. Nights are written by the pipeline's night store
 * (night-store.ts), many at a time; this module only reads.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from './client.js';
import { fetchAttemptsView, snapshots } from './schema.js';
import type { RedirectHop } from '../night/rows.js';

export type Snapshot = typeof snapshots.$inferSelect;
/** An attempt as the view shows it, with `hops` empty (not NULL) when there was no redirect. */
export type Attempt = Omit<typeof fetchAttemptsView.$inferSelect, 'hops'> & { hops: RedirectHop[] };

/** Default length of `history()`: a year of nights and some manual runs. */
export const DEFAULT_HISTORY_LIMIT = 400;

export function createSnapshotsRepo(db: Executor) {
  return {
    /** The night of a site in a run, if stored. */
    async snapshotFor(runId: number, siteId: number): Promise<Snapshot | null> {
      const rows = await db
        .select()
        .from(snapshots)
        .where(and(eq(snapshots.siteId, siteId), eq(snapshots.runId, runId)))
        .limit(1);
      return rows[0] ?? null;
    },

    /** A site's nights, newest first on the run clock (the primary key, read backwards). */
    async history(siteId: number, options: { limit?: number } = {}): Promise<Snapshot[]> {
      return db
        .select()
        .from(snapshots)
        .where(eq(snapshots.siteId, siteId))
        .orderBy(desc(snapshots.runAt), desc(snapshots.runId))
        .limit(options.limit ?? DEFAULT_HISTORY_LIMIT);
    },

    /** A site's latest night on the run clock. */
    async latestSnapshot(siteId: number): Promise<Snapshot | null> {
      const rows = await db
        .select()
        .from(snapshots)
        .where(eq(snapshots.siteId, siteId))
        .orderBy(desc(snapshots.runAt), desc(snapshots.runId))
        .limit(1);
      return rows[0] ?? null;
    },

    /** Every attempt of a site in a run, in order: the retried ones, then the final one (the night). */
    async attemptsFor(runId: number, siteId: number): Promise<Attempt[]> {
      const rows = await db
        .select()
        .from(fetchAttemptsView)
        .where(and(eq(fetchAttemptsView.siteId, siteId), eq(fetchAttemptsView.runId, runId)))
        .orderBy(sql`${fetchAttemptsView.attempt}`);
      return rows.map((r) => ({ ...r, hops: r.hops ?? [] }));
    },
  };
}

export type SnapshotsRepo = ReturnType<typeof createSnapshotsRepo>;
