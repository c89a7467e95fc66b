/**
 * `robots-audit worker` and `robots-audit scheduler`: the long-running processes of the pipeline.
 */
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import { runScheduler } from '../../../workers/scheduler.js';
import { runWorker } from '../../../workers/worker.js';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import type { ConnectionOptions } from '../pipeline-config.js';
import { addConnectionOptions, cliLogger, pipelineConfig } from '../pipeline-config.js';

interface ProcessOptions extends ConnectionOptions {
  metricsPort?: string;
}

function portNumber(value: string): string {
  if (!/^\d+$/.test(value) || Number(value) > 65_535) throw new InvalidArgumentError('a port number, 0 to 65535 (0: off)');
  return value;
}

/** `--metrics-port`, over the environment variable `setting`. */
function metricsPortOption(setting: string): Option {
  return new Option('--metrics-port <port>', `port of /metrics, /healthz and /readyz, 0: off (default: ${setting})`).argParser(portNumber);
}

function metricsPortSetting(setting: string, options: ProcessOptions): Record<string, string> {
  return options.metricsPort === undefined ? {} : { [setting]: options.metricsPort };
}

export const registerPipelineCommands: CommandRegistrar = (program: Command, io: CliIo) => {
  addConnectionOptions(
    program
      .command('worker')
      .description(COMMAND_DESCRIPTIONS.worker),
  )
    .addOption(metricsPortOption('ROBOTS_AUDIT_METRICS_PORT'))
    .action(async (options: ProcessOptions) => {
      const config = pipelineConfig(io, options, metricsPortSetting('ROBOTS_AUDIT_METRICS_PORT', options));
      await runWorker(config, cliLogger(config, io), io.signal ? { signal: io.signal } : {});
    });

  addConnectionOptions(
    program
      .command('scheduler')
      .description(COMMAND_DESCRIPTIONS.scheduler),
  )
    .addOption(metricsPortOption('ROBOTS_AUDIT_SCHEDULER_METRICS_PORT'))
    .action(async (options: ProcessOptions) => {
      const config = pipelineConfig(io, options, metricsPortSetting('ROBOTS_AUDIT_SCHEDULER_METRICS_PORT', options));
      await runScheduler(config, cliLogger(config, io), io.signal ? { signal: io.signal } : {});
    });
};
