/**
 * The worker process: fetch, diff and alert delivery queues. Thin: the services do the work.
 * SIGTERM / SIGINT (or the abort signal) finish in-flight jobs within
 * ROBOTS_AUDIT_SHUTDOWN_GRACE_MS, then release the rest for another worker.
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
  await untilStopped(options.signal);
  log.info('worker stopping');
  await workers.close(config.ROBOTS_AUDIT_SHUTDOWN_GRACE_MS);
  await runtime.close();
  log.info('worker stopped');
}
