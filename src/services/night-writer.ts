/**
 * Gathers the nights that a worker's jobs finish, from every job in the process, and stores them
 * many at a time: one transaction per batch (src/db/night-store.ts) instead of one per site.
 * A batch goes when it holds `maxBatch` items or when its first item has waited `maxDelayMs`;
 * while one batch is being written the next one fills, so the batches grow with the load.
 *
 * Each `submit` resolves once its night is committed (or was stored before: a job run twice),
 * and rejects when the transaction failed (the job is retried) or when the site's state moved on
 * since the night was computed (`StaleNightError`: the caller computes it again).
 */
import type pg from 'pg';
import type { StoreResult } from '../db/night-store.js';
import type { FailedAttemptRow } from '../night/rows.js';
import { nightKey, storeNights } from '../db/night-store.js';
import { isTransientDbError } from '../db/db-errors.js';
import type { SiteNight } from '../night/rows.js';
import type { PipelineRecorder } from '../metrics/pipeline-metrics.js';

export class StaleNightError extends Error {
  constructor(readonly siteId: number) {
    super(`site ${siteId}: its state changed while its night was computed`);
    this.name = 'StaleNightError';
  }
}

export interface NightWriterOptions {
  pool: pg.Pool;
  /** Items per transaction, at most. */
  maxBatch: number;
  /** How long the first item of a batch waits for others, milliseconds. */
  maxDelayMs: number;
  /**
   * Called after each commit with what it stored (deliveries to queue, runs to finish). Its
   * failure is reported to `onError`, not to the nights: they are stored, and what it would have
   * done the reconcile loop does later.
   */
  onCommitted: (result: StoreResult) => Promise<void>;
  onError: (err: unknown) => void;
  /** Counts the nights committed and those sent back as stale (default: not counted). */
  recorder?: Pick<PipelineRecorder, 'nightsStored' | 'staleNights'>;
}

export interface StoredNight {
  /** False: the night was stored before (by an earlier try of the job). */
  stored: boolean;
}

type Item =
  | { kind: 'night'; night: SiteNight; resolve: (r: StoredNight) => void; reject: (err: unknown) => void }
  | { kind: 'attempt'; attempt: FailedAttemptRow; resolve: (r: StoredNight) => void; reject: (err: unknown) => void };

export interface NightWriter {
  /** Stores a night (a site's final attempt and all it decided). */
  submitNight(night: SiteNight): Promise<StoredNight>;
  /** Stores an attempt to be retried (the night stays open). */
  submitAttempt(attempt: FailedAttemptRow): Promise<StoredNight>;
  /** Writes what is pending and waits for every write in flight. */
  flush(): Promise<void>;
  readonly pending: number;
}

export function createNightWriter(options: NightWriterOptions): NightWriter {
  let queue: Item[] = [];
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> | null = null;

  const schedule = () => {
    if (writing) return; // the write in flight starts the next batch when it ends
    if (queue.length >= options.maxBatch) {
      void start();
      return;
    }
    timer ??= setTimeout(() => {
      timer = null;
      void start();
    }, options.maxDelayMs);
  };

  const start = (): Promise<void> => {
    if (writing || queue.length === 0) return writing ?? Promise.resolve();
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = queue.slice(0, options.maxBatch);
    queue = queue.slice(batch.length);
    writing = write(batch).finally(() => {
      writing = null;
      if (queue.length > 0) schedule();
    });
    return writing;
  };

  async function write(batch: Item[]): Promise<void> {
    let nights = batch.filter((i): i is Extract<Item, { kind: 'night' }> => i.kind === 'night');
    const attempts = batch.filter((i): i is Extract<Item, { kind: 'attempt' }> => i.kind === 'attempt');
    let client: pg.PoolClient | undefined;
    try {
      client = await options.pool.connect();
      let result = await storeNights(
        client,
        nights.map((i) => i.night),
        attempts.map((i) => i.attempt),
      );
      if (result.stale.size > 0) {
        options.recorder?.staleNights(result.stale.size);
        // Nothing was kept: store the others alone, and send the stale ones back to be computed again.
        const stale = nights.filter((i) => result.stale.has(nightKey(i.night.siteId, i.night.runId)));
        for (const i of stale) i.reject(new StaleNightError(i.night.siteId));
        nights = nights.filter((i) => !result.stale.has(nightKey(i.night.siteId, i.night.runId)));
        result = await storeNights(
          client,
          nights.map((i) => i.night),
          attempts.map((i) => i.attempt),
        );
        if (result.stale.size > 0) throw new Error('site states changed twice during one write');
      }
      client.release();
      client = undefined;
      options.recorder?.nightsStored(result.stored.size);
      await options.onCommitted(result).catch(options.onError);
      // A night handed in twice (two jobs of this process) is stored once: the first one says so.
      const first = new Set<string>();
      for (const i of nights) {
        const key = nightKey(i.night.siteId, i.night.runId);
        i.resolve({ stored: result.stored.has(key) && !first.has(key) });
        first.add(key);
      }
      for (const i of attempts) i.resolve({ stored: true });
    } catch (err) {
      // A broken connection goes back destroyed, not to the pool.
      client?.release(err instanceof Error ? err : true);
      const items = [...nights, ...attempts];
      if (items.length > 1 && !isTransientDbError(err)) {
        // A row the database refuses would fail every batch it is in: store them one at a time,
        // so that only the one refused fails (and its job with it), not the others.
        for (const item of items) await write([item]);
        return;
      }
      for (const i of items) i.reject(err);
    }
  }

  const submit = (item: Item) => {
    queue.push(item);
    schedule();
  };

  return {
    submitNight: (night) => new Promise((resolve, reject) => submit({ kind: 'night', night, resolve, reject })),
    submitAttempt: (attempt) => new Promise((resolve, reject) => submit({ kind: 'attempt', attempt, resolve, reject })),
    async flush() {
      while (queue.length > 0 || writing) {
        if (writing) await writing;
        else await start();
      }
    },
    get pending() {
      return queue.length;
    },
  };
}
