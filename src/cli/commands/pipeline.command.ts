/**
 * `robots-audit worker` and `robots-audit scheduler`: the long-running processes of the pipeline.
 */
import type { Command } from 'commander';
import { runScheduler } from '../../../workers/scheduler.js';
import { runWorker } from '../../../workers/worker.js';
import type { CliIo } from '../io.js';
import type { CommandRegistrar } from '../main.js';
import type { ConnectionOptions } from '../pipeline-config.js';
import { addConnectionOptions, cliLogger, pipelineConfig } from '../pipeline-config.js';

export const registerPipelineCommands: CommandRegistrar = (program: Command, io: CliIo) => {
  addConnectionOptions(
    program
      .command('worker')
      .description('Run the fetch, diff and alert workers until SIGTERM (in-flight jobs finish within ROBOTS_AUDIT_SHUTDOWN_GRACE_MS).'),
  ).action(async (options: ConnectionOptions) => {
    const config = pipelineConfig(io, options);
    await runWorker(config, cliLogger(config, io), io.signal ? { signal: io.signal } : {});
  });

  addConnectionOptions(
    program
      .command('scheduler')
      .description('Keep the nightly job scheduler (ROBOTS_AUDIT_SCHEDULE, ROBOTS_AUDIT_TIMEZONE) and start each night\'s run.'),
  ).action(async (options: ConnectionOptions) => {
    const config = pipelineConfig(io, options);
    await runScheduler(config, cliLogger(config, io), io.signal ? { signal: io.signal } : {});
  });
};
