/**
 * Portability findings computed once per body and kept (issue 26): after a run completes, a job
 * of the `analysis` queue takes the bodies whose findings are missing or of an older
 * PORTABILITY_VERSION, a batch at a time, analyses each in a worker thread with a deadline and a
 * heap limit (src/offload/thread-pool.ts), and stores each analysis on its body. The nights never
 * pay for it: it is queued only once a run has completed (or by the scheduler's reconcile loop,
 * for bodies a lost job or an older release left behind), runs at a lower CPU priority than the
 * worker's own event loop, and reads the bodies from Postgres rather than from the night.
 *
 * A body whose analysis runs past its deadline or heap (a 500 KiB file shaped to cost minutes or
 * gigabytes) is stored as `failed` with the reason, so it is never retried by the same version
 * and never holds the bodies after it. A job works for ANALYSIS_JOB_MS at most and then queues the
 * next one from where it stopped, so a first night of 100,000 bodies is many short jobs, each
 * cut cleanly by a shutdown. Every write is idempotent: only a body still of an older version is
 * written.
 */
import type pg from 'pg';
import type { Queue } from 'bullmq';
import { firstPendingBody, pendingBodies, storePortability } from '../db/portability.repo.js';
import { createThreadPool } from '../offload/thread-pool.js';
import type { Offloaded, ThreadPool } from '../offload/thread-pool.js';
import { JOBS, jobIds } from '../queues/contracts.js';
import { PORTABILITY_VERSION } from '../robots/profiles/portability.js';
import type { PortabilityResult, StoredPortability } from '../robots/profiles/portability.js';

/** Bodies read per round trip: at most 20 x 500 KiB in memory. */
export const ANALYSIS_BATCH = 20;
/** A job's work before it hands over to the next (a shutdown waits for one batch at most). */
export const ANALYSIS_JOB_MS = 60_000;
/** One body's analysis at most; past it the body is stored as `failed`. Ordinary bodies take milliseconds, a 500 KiB file of wildcard rules about a second. */
export const ANALYSIS_BODY_TIMEOUT_MS = 20_000;
/** The analysis thread's heap, MB; past it the body is stored as `failed`. */
export const ANALYSIS_HEAP_MB = 512;
/** The analysis thread's `nice`: the worker's fetches and nights win a busy core. */
export const ANALYSIS_NICE = 10;

/** What one call of analysePending did. */
export interface AnalysisDone {
  analysed: number;
  failed: number;
  /** Bodies still to analyse when it stopped (its time was up): the next job goes on. */
  more: boolean;
}

export interface PortabilityAnalysisDeps {
  pool: pg.Pool;
  /** Analyses one body (default: a thread of this module's pool). */
  analyse?: (body: Uint8Array) => Promise<Offloaded<PortabilityResult>>;
  now?: () => number;
}

/** The thread pool the analysis runs on: one thread, the deadline and heap above. */
export function createAnalysisThreads(): ThreadPool {
  return createThreadPool({
    module: new URL('./portability.thread.js', import.meta.url),
    threads: 1,
    timeoutMs: ANALYSIS_BODY_TIMEOUT_MS,
    heapMb: ANALYSIS_HEAP_MB,
    // One body in the thread, the rest of its batch waiting: never more.
    maxQueue: ANALYSIS_BATCH,
    nice: ANALYSIS_NICE,
  });
}

/**
 * The stored form of one analysis: the findings, or why there are none (past its deadline or
 * heap: the body's own doing, so the same version never tries it again). A thread that was busy
 * or threw (a fault of the program, not of the body) is an error: the job is retried.
 */
export function storedPortability(done: Offloaded<PortabilityResult>): StoredPortability {
  if (done.ok) return { outcome: 'analysed', ...done.value };
  if (done.reason === 'timeout' || done.reason === 'memory') return { outcome: 'failed', reason: `the analysis ${done.message}` };
  throw new Error(`portability analysis: ${done.message}`);
}

export function createPortabilityAnalysis(deps: PortabilityAnalysisDeps) {
  const threads = deps.analyse ? null : createAnalysisThreads();
  const analyse = deps.analyse ?? ((body: Uint8Array) => threads!.run<Uint8Array, PortabilityResult>('portability', body));
  const now = deps.now ?? (() => performance.now());

  /**
   * Analyses pending bodies until none is left, `budgetMs` has passed (checked between batches)
   * or `stopping` says so (checked between bodies). Bodies are analysed one at a time, in the thread.
   */
  async function analysePending(budgetMs: number = ANALYSIS_JOB_MS, stopping: () => boolean = () => false): Promise<AnalysisDone> {
    const deadline = now() + budgetMs;
    const done: AnalysisDone = { analysed: 0, failed: 0, more: false };
    for (;;) {
      const batch = await pendingBodies(deps.pool, PORTABILITY_VERSION, ANALYSIS_BATCH);
      if (batch.length === 0) return done;
      const results: { id: number; result: StoredPortability }[] = [];
      for (const body of batch) {
        // A worker shutting down waits for one body at most: what is done is stored, the rest handed over.
        if (stopping()) break;
        const analysis = await analyse(new Uint8Array(body.content.buffer, body.content.byteOffset, body.content.byteLength));
        // A body is blamed only if the thread answers an empty file in time: a thread that cannot
        // start (a broken install) must not mark every body failed for this version.
        if (!analysis.ok && !(await analyse(new Uint8Array())).ok) throw new Error(`portability analysis: the analysis thread does not answer (${analysis.message})`);
        const result = storedPortability(analysis);
        results.push({ id: body.id, result });
        if (result.outcome === 'analysed') done.analysed += 1;
        else done.failed += 1;
      }
      await storePortability(deps.pool, PORTABILITY_VERSION, results);
      if (now() >= deadline || stopping()) {
        done.more = (await firstPendingBody(deps.pool, PORTABILITY_VERSION)) !== null;
        return done;
      }
    }
  }

  return { analysePending, close: async () => threads?.close() };
}

export type PortabilityAnalysis = ReturnType<typeof createPortabilityAnalysis>;

/**
 * Queues the analysis of the bodies still to analyse, if any: one job keyed by the first of them
 * and the version, so that a run completing, the reconcile loop and a job handing over all name
 * the same job while that body waits. A job of that key that ended (completed: its time ran out
 * just before it; failed: Postgres was away) is replaced. Returns the job's id, or null when no
 * body waits.
 */
export async function queueAnalysis(pool: pg.Pool, queue: Pick<Queue, 'add' | 'getJob'>): Promise<string | null> {
  const firstBodyId = await firstPendingBody(pool, PORTABILITY_VERSION);
  if (firstBodyId === null) return null;
  const data = { version: PORTABILITY_VERSION, firstBodyId };
  const jobId = jobIds.analysePortability(data);
  const existing = await queue.getJob(jobId);
  if (existing) {
    const state = await existing.getState();
    if (state !== 'completed' && state !== 'failed') return jobId;
    await existing.remove();
  }
  await queue.add(JOBS.analysePortability, data, { jobId });
  return jobId;
}
