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
import { auditRuns, snapshots } from './schema.js';

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
  /**
   * What planning a fetch needs, in one round trip (a fetch job plans twice): the run's snapshot
   * of the site if stored, the run's clock, the site's origin, and the attempts already made.
   * `runAt` or `origin` is null when the run or the site is gone.
   */
  async function fetchPlanFacts(runId: number, siteId: number): Promise<{ snapshotId: number | null; runAt: Date | null; origin: string | null; attempts: number }> {
    const rows = await db.execute<{ snapshot_id: string | null; run_at: string | Date | null; origin: string | null; attempts: string }>(sql`
      select (select id from snapshots where run_id = ${runId} and site_id = ${siteId}) as snapshot_id,
             (select run_at from audit_runs where id = ${runId}) as run_at,
             (select origin from sites where id = ${siteId}) as origin,
             (select count(*) from fetch_attempts where run_id = ${runId} and site_id = ${siteId}) as attempts`);
    const row = rows.rows[0]!;
    return {
      snapshotId: row.snapshot_id === null ? null : Number(row.snapshot_id),
      runAt: row.run_at === null ? null : new Date(row.run_at),
      origin: row.origin,
      attempts: Number(row.attempts),
    };
  }

  async function snapshotFor(runId: number, siteId: number): Promise<Snapshot | null> {
    const rows = await db
      .select()
      .from(snapshots)
      .where(and(eq(snapshots.runId, runId), eq(snapshots.siteId, siteId)))
      .limit(1);
    return rows[0] ?? null;
  }

  /**
   * A site's newest snapshot meeting the conditions. History is ordered by the run's clock
   * (`audit_runs.run_at`, what `audit --at` sets), not by when the fetch happened, so a night
   * replayed or backfilled out of order still sits in its place (D-3 counts with that clock).
   */
  async function latestWhere(siteId: number, ...conditions: (SQL | undefined)[]): Promise<Snapshot | null> {
    const rows = await db
      .select({ snapshot: snapshots })
      .from(snapshots)
      .innerJoin(auditRuns, eq(auditRuns.id, snapshots.runId))
      .where(and(eq(snapshots.siteId, siteId), ...conditions))
      .orderBy(desc(auditRuns.runAt), desc(snapshots.id))
      .limit(1);
    return rows[0]?.snapshot ?? null;
  }

  /** Snapshots strictly earlier in the site's history than `snapshot` (run clock, then id). */
  function earlierThan(snapshot: Pick<Snapshot, 'id' | 'runId'>): SQL {
    const runAt = sql`(select ${auditRuns.runAt} from ${auditRuns} where ${auditRuns.id} = ${snapshot.runId})`;
    return or(lt(auditRuns.runAt, runAt), and(eq(auditRuns.runAt, runAt), lt(snapshots.id, snapshot.id)))!;
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
    fetchPlanFacts,

    async snapshotById(id: number): Promise<Snapshot | null> {
      const rows = await db.select().from(snapshots).where(eq(snapshots.id, id)).limit(1);
      return rows[0] ?? null;
    },

    /**
     * A site's latest snapshot; `before`: of a run strictly earlier on the run clock;
     * `excludeRunId`: not from that run.
     */
    latestSnapshot(siteId: number, options: { before?: Date; excludeRunId?: number } = {}): Promise<Snapshot | null> {
      return latestWhere(
        siteId,
        options.before ? lt(auditRuns.runAt, options.before) : undefined,
        options.excludeRunId === undefined ? undefined : ne(snapshots.runId, options.excludeRunId),
      );
    },

    /** The snapshot just before `snapshot` in its site's history. */
    previousSnapshot(snapshot: Pick<Snapshot, 'id' | 'siteId' | 'runId'>): Promise<Snapshot | null> {
      return latestWhere(snapshot.siteId, earlierThan(snapshot));
    },

    /** R-14 / D-3: the latest snapshot with rules (outcome ok): the copy the fallback uses. */
    lastGoodSnapshot(siteId: number, options: { before?: Date } = {}): Promise<Snapshot | null> {
      return latestWhere(siteId, eq(snapshots.outcome, 'ok'), options.before ? lt(auditRuns.runAt, options.before) : undefined);
    },

    /** The latest ok snapshot earlier than `snapshot`: the bytes its content is compared with. */
    lastGoodBefore(snapshot: Pick<Snapshot, 'id' | 'siteId' | 'runId'>): Promise<Snapshot | null> {
      return latestWhere(snapshot.siteId, eq(snapshots.outcome, 'ok'), earlierThan(snapshot));
    },

    /** D-3: the latest snapshot whose fetch reached the site (not a 5xx or network failure). */
    lastReachableSnapshot(siteId: number, options: { before?: Date } = {}): Promise<Snapshot | null> {
      return latestWhere(
        siteId,
        notInArray(snapshots.outcome, [...UNREACHABLE_OUTCOMES]),
        options.before ? lt(auditRuns.runAt, options.before) : undefined,
      );
    },

    /** A site's snapshots, newest first (run clock). */
    async history(siteId: number, options: { limit?: number } = {}): Promise<Snapshot[]> {
      const rows = await db
        .select({ snapshot: snapshots })
        .from(snapshots)
        .innerJoin(auditRuns, eq(auditRuns.id, snapshots.runId))
        .where(eq(snapshots.siteId, siteId))
        .orderBy(desc(auditRuns.runAt), desc(snapshots.id))
        .limit(options.limit ?? DEFAULT_HISTORY_LIMIT);
      return rows.map((r) => r.snapshot);
    },
  };
}

export type SnapshotsRepo = ReturnType<typeof createSnapshotsRepo>;
