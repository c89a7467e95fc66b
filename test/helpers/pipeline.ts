/**
 * The whole pipeline for an integration test file: a fresh database (from the migrated
 * template), a unique BullMQ prefix, the fixture web on 127.0.0.1 (`<name>.test` hosts), the
 * runtime and its workers in-process, and the CLI pointed at all of them.
 */
import { loadConfig } from '../../src/config/env.js';
import type { AppConfig } from '../../src/config/env.js';
import { createLogger } from '../../src/log/logger.js';
import { createRuntime } from '../../src/services/runtime.js';
import type { Runtime } from '../../src/services/runtime.js';
import { startPipelineWorkers } from '../../src/services/pipeline-workers.js';
import type { PipelineWorkers } from '../../src/services/pipeline-workers.js';
import { startFixtureWeb } from '../fixtures/web/index.js';
import type { FixtureWeb } from '../fixtures/web/index.js';
import { runCli } from './cli.js';
import type { CliRun } from './cli.js';
import { createTestDatabase } from './test-db.js';
import type { TestDatabase } from './test-db.js';
import { cleanupPrefix, uniquePrefix } from './test-queue.js';

/** Commands that take `--database-url`. */
const DATABASE_COMMANDS = new Set(['logs', 'crawlers', 'sites', 'track', 'untrack', 'tracked', 'agents', 'alerts', 'fetch', 'audit', 'worker', 'scheduler', 'db', 'prune', 'report', 'history', 'diff', 'explain', 'stats', 'portfolios', 'serve']);

export interface Pipeline {
  db: TestDatabase;
  web: FixtureWeb;
  env: Record<string, string>;
  config: AppConfig;
  rt: Runtime;
  workers: PipelineWorkers | null;
  /** `http://<name>.test:<port>`: a site served by the fixture web. */
  origin(name: string): string;
  /** Runs a command in-process against this pipeline's database, with `stdin` as its standard input. */
  cli(argv: string[], stdin?: string): Promise<CliRun>;
  close(): Promise<void>;
}

export interface PipelineOptions {
  /** Extra environment (retry delays, timeouts...). */
  env?: Record<string, string>;
  /** Start the fetch/diff/alerts workers in-process (default true). */
  workers?: boolean;
}

export async function startPipeline(options: PipelineOptions = {}): Promise<Pipeline> {
  const db = await createTestDatabase();
  const web = await startFixtureWeb();
  const prefix = uniquePrefix();
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    REDIS_URL: 'redis://127.0.0.1:6379',
    ROBOTS_AUDIT_QUEUE_PREFIX: prefix,
    ROBOTS_AUDIT_LOG_LEVEL: 'silent',
    ROBOTS_AUDIT_ALLOW_NETWORKS: '127.0.0.0/8',
    ROBOTS_AUDIT_RESOLVE: '*.test=127.0.0.1',
    ROBOTS_AUDIT_CONNECT_TIMEOUT_MS: '1000',
    ROBOTS_AUDIT_HEADERS_TIMEOUT_MS: '1000',
    ROBOTS_AUDIT_BODY_TIMEOUT_MS: '1000',
    ROBOTS_AUDIT_TOTAL_TIMEOUT_MS: '5000',
    ROBOTS_AUDIT_RETRY_DELAYS: '0.05,0.05',
    ROBOTS_AUDIT_RETRY_AFTER_CAP: '0.2',
    ROBOTS_AUDIT_HOST_BUSY_DELAY_MS: '50',
    ROBOTS_AUDIT_CONFIRM_DELAY_MS: '20',
    ROBOTS_AUDIT_FETCH_RATE_PER_SECOND: '0',
    ROBOTS_AUDIT_SHUTDOWN_GRACE_MS: '5000',
    // Several workers of several test files share this machine: no fixed port each (a test that
    // scrapes one picks a free port).
    ROBOTS_AUDIT_METRICS_PORT: '0',
    ROBOTS_AUDIT_SCHEDULER_METRICS_PORT: '0',
    ...options.env,
  };
  const config = loadConfig(env);
  const log = createLogger(config.ROBOTS_AUDIT_LOG_LEVEL);
  const rt = await createRuntime(config, log);
  const workers = options.workers === false ? null : startPipelineWorkers(rt);
  return {
    db,
    web,
    env,
    config,
    rt,
    workers,
    origin: (name) => `http://${name}.test:${web.port}`,
    // Database commands read DATABASE_URL once per process (config()); the flag points them here.
    cli: (argv, stdin) => runCli(DATABASE_COMMANDS.has(argv[0] ?? '') ? [...argv, '--database-url', db.url] : argv, { env, ...(stdin === undefined ? {} : { stdin }) }),
    async close() {
      await workers?.close(1_000);
      await rt.close();
      await web.close();
      await cleanupPrefix(env.REDIS_URL!, prefix);
      await db.close();
    },
  };
}
