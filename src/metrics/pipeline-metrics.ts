/**
 * Every Prometheus metric of the pipeline, defined here and nowhere else (the only module that
 * imports prom-client). Services never see prom-client: they get a `PipelineRecorder`, a handful
 * of functions named after what happened (a job ended, a fetch ended, nights were stored), and a
 * process without metrics gets `NO_METRICS`.
 *
 * Two kinds of metric:
 * - counters and the fetch-duration histogram, recorded as things happen in this process;
 * - gauges read on each scrape from Redis and Postgres (queue depths, runs in progress) and from
 *   the process (fetches in flight). Those describe the whole deployment, so every worker shows
 *   the same numbers: aggregate them with max(), not sum().
 *
 * Label values come from short fixed lists (queue names, outcome classes, results, run ids of
 * runs in progress only), never a site, a URL or an error message: the number of series stays
 * bounded however many sites are audited.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Prefix of every metric of the product (default process metrics keep their standard names). */
export const METRIC_PREFIX = 'robots_audit_';

/**
 * Fetch durations, seconds: from a robots.txt served by a CDN next door (50 ms) to the total
 * timeout of a fetch with its redirects (ROBOTS_AUDIT_TOTAL_TIMEOUT_MS, 45 s by default).
 */
export const FETCH_DURATION_BUCKETS_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 45] as const;

/**
 * How a job ended in this process. `lost`: it finished here after its lock had expired (the process
 * was paused, or cut off from Redis) and another process had taken it over; Redis refused the
 * result, and what the job stored in Postgres counted only where the other had not stored it first.
 */
export type JobResult = 'completed' | 'failed' | 'retried' | 'lost';
/** `taken_over`: not sent, the job having become another worker's while this one was paused or away. */
export type DeliveryResult = 'delivered' | 'already_delivered' | 'gone' | 'retried' | 'failed' | 'taken_over';

/** What the services report; each call is one increment or one observation. */
export interface PipelineRecorder {
  /** A BullMQ job ended: completed, failed with attempts left (retried), or failed for good. */
  jobEnded(queue: string, result: JobResult): void;
  /** A robots.txt fetch ended with this outcome class (`aborted`: cut off by its batch's deadline). */
  fetchEnded(outcome: string, durationMs: number): void;
  /** Nights committed by one transaction. */
  nightsStored(count: number): void;
  /** Nights sent back to be computed again because their site's state moved on meanwhile. */
  staleNights(count: number): void;
  /** An alert delivery attempt ended. */
  deliveryEnded(result: DeliveryResult): void;
}

export const NO_METRICS: PipelineRecorder = {
  jobEnded: () => {},
  fetchEnded: () => {},
  nightsStored: () => {},
  staleNights: () => {},
  deliveryEnded: () => {},
};

export interface QueueDepthSample {
  queue: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

export interface RunProgressSample {
  runId: number;
  total: number;
  done: number;
  skipped: number;
  failed: number;
}

/** The sites waiting for a retry, in every run (issue 26). */
export interface WaitsSample {
  /** Their run waits for them (due within ROBOTS_AUDIT_RUN_HOLD_SECONDS). */
  holding: number;
  /** Their run does not wait for them (due past the hold, or the run completed). */
  pending: number;
  /** Seconds from now until the latest of them is due (0 when none waits). */
  secondsToLatest: number;
}

/** Where the gauges read on scrape come from; each may reject (its series are then left out of that scrape). */
export interface StatusSources {
  queueDepths(): Promise<QueueDepthSample[]>;
  runsInProgress(): Promise<RunProgressSample[]>;
  /** Optional: a process without it shows no wait series. */
  waits?(): Promise<WaitsSample>;
  fetchSlots(): { inUse: number; waiting: number; size: number };
  largeBodySlots(): { inUse: number; waiting: number; size: number };
}

export interface PipelineMetrics {
  registry: Registry;
  recorder: PipelineRecorder;
  /** Connects the scrape-time gauges to their sources (once the runtime exists). */
  observe(sources: StatusSources): void;
}

export interface PipelineMetricsOptions {
  /** Node's process metrics (CPU, memory, event loop lag, handles, GC), under their standard names. */
  processMetrics?: boolean;
}

/** Reads a source for one scrape; a failure leaves the gauge empty for that scrape rather than failing the scrape. */
async function sampled<T>(read: (() => Promise<T>) | undefined): Promise<T | null> {
  if (!read) return null;
  try {
    return await read();
  } catch {
    return null;
  }
}

export function createPipelineMetrics(options: PipelineMetricsOptions = {}): PipelineMetrics {
  const registry = new Registry();
  const registers = [registry];
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  let sources: StatusSources | null = null;

  const jobs = new Counter({
    name: `${METRIC_PREFIX}jobs_total`,
    help: 'BullMQ jobs ended in this process, by queue and result (completed; failed for good; failed with attempts left: retried; lost: finished after another process took it over, its result refused).',
    labelNames: ['queue', 'result'] as const,
    registers,
  });
  const fetches = new Counter({
    name: `${METRIC_PREFIX}fetches_total`,
    help: 'robots.txt fetches ended in this process, by outcome class (aborted: cut off by the batch deadline and handed to a site job).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const fetchDuration = new Histogram({
    name: `${METRIC_PREFIX}fetch_duration_seconds`,
    help: 'Duration of robots.txt fetches (redirects included), by outcome class.',
    labelNames: ['outcome'] as const,
    buckets: [...FETCH_DURATION_BUCKETS_SECONDS],
    registers,
  });
  const nights = new Counter({
    name: `${METRIC_PREFIX}nights_stored_total`,
    help: "Sites' nights committed by this process (one per site per run).",
    registers,
  });
  const stale = new Counter({
    name: `${METRIC_PREFIX}stale_nights_total`,
    help: "Nights computed from a site state that another run moved on meanwhile, sent back to be computed again.",
    registers,
  });
  const deliveries = new Counter({
    name: `${METRIC_PREFIX}alert_deliveries_total`,
    help: 'Alert delivery attempts ended in this process, by result.',
    labelNames: ['result'] as const,
    registers,
  });

  new Gauge({
    name: `${METRIC_PREFIX}queue_jobs`,
    help: 'Jobs per queue and state, read from Redis on scrape (the same from every process: aggregate with max).',
    labelNames: ['queue', 'state'] as const,
    registers,
    async collect() {
      const depths = await sampled(sources?.queueDepths);
      this.reset();
      for (const d of depths ?? []) {
        for (const state of ['waiting', 'active', 'delayed', 'failed'] as const) this.set({ queue: d.queue, state }, d[state]);
      }
    },
  });

  // Runs in progress only: a run's series go when it ends, so their number stays that of the
  // runs under way (count the `planned` series for how many there are).
  new Gauge({
    name: `${METRIC_PREFIX}run_sites`,
    help: "Sites of each run in progress, read from Postgres on scrape: planned (the run's total), and finished by state (done: night stored; skipped; failed).",
    labelNames: ['run_id', 'state'] as const,
    registers,
    async collect() {
      const runs = await sampled(sources?.runsInProgress);
      this.reset();
      for (const r of runs ?? []) {
        const run_id = String(r.runId);
        this.set({ run_id, state: 'planned' }, r.total);
        this.set({ run_id, state: 'done' }, r.done);
        this.set({ run_id, state: 'skipped' }, r.skipped);
        this.set({ run_id, state: 'failed' }, r.failed);
      }
    },
  });

  // Sites waiting for a retry, read on scrape like the runs (issue 26): a wait longer than the
  // hold leaves its run and shows up here as pending, so a long wait is never silent.
  new Gauge({
    name: `${METRIC_PREFIX}sites_waiting`,
    help: 'Sites waiting for a retry, read from Postgres on scrape: holding (their run waits for them) and pending (their run does not: the retry is due past ROBOTS_AUDIT_RUN_HOLD_SECONDS).',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      const waits = await sampled(sources?.waits?.bind(sources));
      this.reset();
      if (!waits) return;
      this.set({ state: 'holding' }, waits.holding);
      this.set({ state: 'pending' }, waits.pending);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}longest_wait_seconds`,
    help: 'Seconds until the latest retry a site waits for is due (0 when none waits), read from Postgres on scrape.',
    registers,
    async collect() {
      const waits = await sampled(sources?.waits?.bind(sources));
      this.reset();
      if (waits) this.set(waits.secondsToLatest);
    },
  });

  // The process's slots, read on scrape (zero until the runtime is attached).
  const slotGauge = (name: string, help: string, read: (s: StatusSources) => number) =>
    new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      registers,
      collect() {
        this.set(sources ? read(sources) : 0);
      },
    });
  slotGauge('fetches_in_flight', 'robots.txt fetches under way in this process (at most ROBOTS_AUDIT_FETCH_CONCURRENCY).', (s) => s.fetchSlots().inUse);
  slotGauge('fetches_waiting', 'Fetches of this process waiting for one of its ROBOTS_AUDIT_FETCH_CONCURRENCY slots.', (s) => s.fetchSlots().waiting);
  slotGauge('fetch_slots', 'Fetches this process may have in flight at once (ROBOTS_AUDIT_FETCH_CONCURRENCY).', (s) => s.fetchSlots().size);
  slotGauge(
    'large_bodies_waiting',
    'Fetches of this process whose body passed ROBOTS_AUDIT_SMALL_BODY_BYTES, paused until one of its ROBOTS_AUDIT_LARGE_BODY_FETCHES slots is free.',
    (s) => s.largeBodySlots().waiting,
  );

  const recorder: PipelineRecorder = {
    jobEnded: (queue, result) => jobs.inc({ queue, result }),
    fetchEnded(outcome, durationMs) {
      fetches.inc({ outcome });
      fetchDuration.observe({ outcome }, durationMs / 1000);
    },
    nightsStored: (count) => {
      if (count > 0) nights.inc(count);
    },
    staleNights: (count) => {
      if (count > 0) stale.inc(count);
    },
    deliveryEnded: (result) => deliveries.inc({ result }),
  };

  return {
    registry,
    recorder,
    observe(next) {
      sources = next;
    },
  };
}
