/**
 * Configuration of the commands that run the pipeline (worker, scheduler, audit): the
 * environment (with the caller's overrides, see CliIo.env) plus the connection flags.
 */
import { Option } from 'commander';
import type { Command } from 'commander';
import type { AppConfig } from '../config/env.js';
import { createLogger } from '../log/logger.js';
import type { Logger } from '../log/logger.js';
import type { CliIo } from './io.js';
import { commandConfig } from './command-config.js';
import { postgresProbe, redisProbe, requireReachable } from '../health/service-probes.js';

export interface ConnectionOptions {
  databaseUrl?: string;
  redisUrl?: string;
  queuePrefix?: string;
}

export function addConnectionOptions(command: Command): Command {
  return command
    .addOption(new Option('--database-url <url>', 'PostgreSQL URL (default: DATABASE_URL)'))
    .addOption(new Option('--redis-url <url>', 'Redis URL (default: REDIS_URL)'))
    .addOption(new Option('--queue-prefix <prefix>', 'BullMQ key prefix (default: ROBOTS_AUDIT_QUEUE_PREFIX)'));
}

export function pipelineConfig(io: CliIo, options: ConnectionOptions, settings: Record<string, string> = {}): AppConfig {
  const overrides: Record<string, string> = { ...settings };
  if (options.databaseUrl) overrides.DATABASE_URL = options.databaseUrl;
  if (options.redisUrl) overrides.REDIS_URL = options.redisUrl;
  if (options.queuePrefix) overrides.ROBOTS_AUDIT_QUEUE_PREFIX = options.queuePrefix;
  return commandConfig(io, overrides);
}

/**
 * Fails fast when Postgres or Redis does not answer within ROBOTS_AUDIT_SERVICE_CHECK_TIMEOUT_MS:
 * a ServiceUnreachableError, which the CLI prints as one line (`cannot reach Redis at ...:
 * ECONNREFUSED`), before the command writes anything. Postgres is asked first.
 */
export async function requireServices(config: AppConfig): Promise<void> {
  const timeoutMs = config.ROBOTS_AUDIT_SERVICE_CHECK_TIMEOUT_MS;
  await requireReachable([postgresProbe(config.DATABASE_URL, timeoutMs), redisProbe(config.REDIS_URL, timeoutMs)]);
}

/** JSON log lines on stderr (stdout stays for the command's own output). */
export function cliLogger(config: AppConfig, io: CliIo, level?: string): Logger {
  return createLogger(level ?? config.ROBOTS_AUDIT_LOG_LEVEL, io.stderr);
}
