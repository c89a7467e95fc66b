/**
 * The worker process: the batch, site and alert delivery queues. Thin: the services do the work.
 * SIGTERM / SIGINT (or the abort signal) finish in-flight jobs within
 * ROBOTS_AUDIT_SHUTDOWN_GRACE_MS; jobs still running then are abandoned, and another worker
 * retries them once their BullMQ locks expire. /metrics, /healthz and /readyz are served on
 * ROBOTS_AUDIT_METRICS_PORT; a Postgres that does not answer yet is waited for, not fatal.
 */
import type { AppConfig } from '../src/config/env.js';
import type { Logger } from '../src/log/logger.js';
import { createRuntime } from '../src/services/runtime.js';
import { startPipelineWorkers, WORKER_QUEUES } from '../src/services/pipeline-workers.js';
import type { PipelineQueue } from '../src/services/pipeline-workers.js';
import { limitHeapGrowth } from './heap-growth.js';
import { runUntilStopped } from './long-running.js';

export async function runWorker(config: AppConfig, log: Logger, options: { signal?: AbortSignal; queues?: PipelineQueue[] } = {}): Promise<void> {
  limitHeapGrowth(config.ROBOTS_AUDIT_WORKER_HEAP_GROWTH_PERCENT);
  const endpoints = { port: config.ROBOTS_AUDIT_METRICS_PORT, portSetting: 'ROBOTS_AUDIT_METRICS_PORT' };
  const forcedBySignal = await runUntilStopped(config, log, { name: 'worker', ...endpoints, signal: options.signal }, async ({ health, stopped }) => {
    const runtime = await createRuntime(config, log, { recorder: health.recorder, outages: health.outages });
    health.attach(runtime);
    const workers = startPipelineWorkers(runtime, options.queues ?? WORKER_QUEUES);
    log.info({ queues: workers.workers.map((w) => w.name), prefix: config.ROBOTS_AUDIT_QUEUE_PREFIX, metricsPort: health.port }, 'worker started');
    const why = await stopped;
    log.info({ why }, 'worker stopping');
    const ended = await workers.close(config.ROBOTS_AUDIT_SHUTDOWN_GRACE_MS);
    await runtime.close();
    log.info({ ended }, 'worker stopped');
    return ended === 'forced' && why !== 'abort';
  });
  // A fetch cut off at the deadline keeps its socket and timers until its own total timeout,
  // which would hold the process past the grace deadline; its job is abandoned (it can no longer
  // write: the database is closed), so a process told to stop by a signal exits now.
  if (forcedBySignal) process.exit(0);
}
