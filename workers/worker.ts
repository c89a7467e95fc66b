/**
 * The worker process: fetch, diff and alert delivery queues. Thin: the services do the work.
 * SIGTERM / SIGINT (or the abort signal) finish in-flight jobs within
 * ROBOTS_AUDIT_SHUTDOWN_GRACE_MS; jobs still running then are abandoned, and another worker
 * retries them once their BullMQ locks expire.
 */
import type { AppConfig } from '../src/config/env.js';
import type { Logger } from '../src/log/logger.js';
import { createRuntime } from '../src/services/runtime.js';
import { startPipelineWorkers } from '../src/services/pipeline-workers.js';
import type { PipelineQueue } from '../src/services/pipeline-workers.js';
import { untilStopped } from './shutdown.js';

export async function runWorker(config: AppConfig, log: Logger, options: { signal?: AbortSignal; queues?: PipelineQueue[] } = {}): Promise<void> {
  const runtime = await createRuntime(config, log);
  const workers = startPipelineWorkers(runtime, options.queues ?? ['fetch', 'diff', 'alerts']);
  log.info({ queues: workers.workers.map((w) => w.name), prefix: config.ROBOTS_AUDIT_QUEUE_PREFIX }, 'worker started');
  const why = await untilStopped(options.signal);
  log.info({ why }, 'worker stopping');
  const ended = await workers.close(config.ROBOTS_AUDIT_SHUTDOWN_GRACE_MS);
  await runtime.close();
  log.info({ ended }, 'worker stopped');
  // A fetch cut off at the deadline keeps its socket and timers until its own total timeout,
  // which would hold the process past the grace deadline; its job is abandoned (it can no longer
  // write: the database is closed), so a process told to stop by a signal exits now.
  if (ended === 'forced' && why !== 'abort') process.exit(0);
}
