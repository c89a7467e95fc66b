/**
 * Snapshots: exactly one per site per run, the per-night record (R-10..R-15, D-3, D-4).
 * Inserting is idempotent on (run, site): a retried job gets the row the first try wrote.
 */
import { and, desc, eq, lt, ne, notInArray, or, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Executor } from './client.js';
import type { AttemptInput } from './attempts.repo.js';
import { createAttemptsRepo } from './attempts.repo.js';
import { createBodiesRepo } from './bodies.repo.js';
import { snapshots } from './schema.js';

export type Snapshot = typeof snapshots.$inferSelect;

export type SnapshotInput = Omit<typeof snapshots.$inferInsert, 'id' | 'policySnapshotId'> & {
  /**
   * Whose rules apply: 'self' for an ok fetch, the last good snapshot's id under the
   * 30-day fallback (D-3), null for allow_all / disallow_all.
   */
  policySnapshotId: number | 'self' | null;
};

export interface InsertedSnapshot {
  snapshot: Snapshot;
  /** False when the snapshot of this (run, site) already existed; `snapshot` is then that row. */
  created: boolean;
}

export interface RecordFetchInput {
  /** Bodies the attempts and snapshot reference (by `sha256Of()`), stored first. */
  bodies?: Uint8Array[];
  attempts: AttemptInput[];
  snapshot: SnapshotInput;
}

/** Default length of `history()`: a year of nights and some manual runs. */
export const DEFAULT_HISTORY_LIMIT = 400;

/** the outcomes that did not reach the site. */
const UNREACHABLE_OUTCOMES = ['server_error', 'network_error'] as const;

export function createSnapshotsRepo(db: Executor) {
  async function snapshotFor(runId: number, siteId: number): Promise<Snapshot | null> {
    const rows = await db
      .select()
      .from(snapshots)
      .where(and(eq(snapshots.runId, runId), eq(snapshots.siteId, siteId)))
      .limit(1);
    return rows[0] ?? null;
  }

  async function latestWhere(siteId: number, ...conditions: (SQL | undefined)[]): Promise<Snapshot | null> {
    const rows = await db
      .select()
      .from(snapshots)
      .where(and(eq(snapshots.siteId, siteId), ...conditions))
      .orderBy(desc(snapshots.fetchedAt), desc(snapshots.id))
      .limit(1);
    return rows[0] ?? null;
  }

  async function insertSnapshot(input: SnapshotInput, tx: Executor = db): Promise<InsertedSnapshot> {
    let id: number | undefined;
    let policySnapshotId = input.policySnapshotId;
    if (policySnapshotId === 'self') {
      // The row must name itself, so take its id from the sequence before inserting.
      const next = await tx.execute<{ id: string }>(sql`select nextval(pg_get_serial_sequence('snapshots', 'id')) as id`);
      id = Number(next.rows[0]!.id);
      policySnapshotId = id;
    }
    const rows = await tx
      .insert(snapshots)
      .values({ ...input, ...(id === undefined ? {} : { id }), policySnapshotId })
      .onConflictDoNothing({ target: [snapshots.runId, snapshots.siteId] })
      .returning();
    if (rows[0]) return { snapshot: rows[0], created: true };
    const existing = await tx
      .select()
      .from(snapshots)
      .where(and(eq(snapshots.runId, input.runId), eq(snapshots.siteId, input.siteId)))
      .limit(1);
    if (!existing[0]) throw new Error(`snapshot of run ${input.runId}, site ${input.siteId} neither inserted nor found`);
    return { snapshot: existing[0], created: false };
  }

  return {
    insertSnapshot: (input: SnapshotInput) => insertSnapshot(input),

    /** The end of a site's fetch in a run: bodies, every attempt and the snapshot, in one transaction. */
    async recordFetch(input: RecordFetchInput): Promise<InsertedSnapshot> {
      return db.transaction(async (tx) => {
        const bodiesRepo = createBodiesRepo(tx);
        for (const body of input.bodies ?? []) await bodiesRepo.putBody(body);
        await createAttemptsRepo(tx).recordAttempts(input.attempts);
        return insertSnapshot(input.snapshot, tx);
      });
    },

    snapshotFor,

    async snapshotById(id: number): Promise<Snapshot | null> {
      const rows = await db.select().from(snapshots).where(eq(snapshots.id, id)).limit(1);
      return rows[0] ?? null;
    },

    /**
     * A site's latest snapshot; `before`: fetched strictly earlier; `excludeRunId`: not from
     * that run (the previous night of the run being processed).
     */
    latestSnapshot(siteId: number, options: { before?: Date; excludeRunId?: number } = {}): Promise<Snapshot | null> {
      return latestWhere(
        siteId,
        options.before ? lt(snapshots.fetchedAt, options.before) : undefined,
        options.excludeRunId === undefined ? undefined : ne(snapshots.runId, options.excludeRunId),
      );
    },

    /** The snapshot just before `snapshot` in its site's history (ties on time broken by id). */
    previousSnapshot(snapshot: Pick<Snapshot, 'id' | 'siteId' | 'fetchedAt'>): Promise<Snapshot | null> {
      return latestWhere(
        snapshot.siteId,
        or(
          lt(snapshots.fetchedAt, snapshot.fetchedAt),
          and(eq(snapshots.fetchedAt, snapshot.fetchedAt), lt(snapshots.id, snapshot.id)),
        ),
      );
    },

    /** R-14 / D-3: the latest snapshot with rules (outcome ok): the copy the fallback uses. */
    lastGoodSnapshot(siteId: number, options: { before?: Date } = {}): Promise<Snapshot | null> {
      return latestWhere(siteId, eq(snapshots.outcome, 'ok'), options.before ? lt(snapshots.fetchedAt, options.before) : undefined);
    },

    /** D-3: the latest snapshot whose fetch reached the site (not a 5xx or network failure). */
    lastReachableSnapshot(siteId: number, options: { before?: Date } = {}): Promise<Snapshot | null> {
      return latestWhere(
        siteId,
        notInArray(snapshots.outcome, [...UNREACHABLE_OUTCOMES]),
        options.before ? lt(snapshots.fetchedAt, options.before) : undefined,
      );
    },

    /** A site's snapshots, newest first. */
    history(siteId: number, options: { limit?: number } = {}): Promise<Snapshot[]> {
      return db
        .select()
        .from(snapshots)
        .where(eq(snapshots.siteId, siteId))
        .orderBy(desc(snapshots.fetchedAt), desc(snapshots.id))
        .limit(options.limit ?? DEFAULT_HISTORY_LIMIT);
    },
  };
}

export type SnapshotsRepo = ReturnType<typeof createSnapshotsRepo>;
