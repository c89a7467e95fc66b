/**
 * `robots-audit`: the command line. Each command lives in its own module under
 * `src/cli/commands/` and registers itself on the commander program; this file only wires them.
 * commander is used for parsing because it is the most widely kept CLI parser for Node, with
 * typed options, sub-commands and generated help.
 */
import { Command, CommanderError } from 'commander';
import type { CliIo } from './io.js';
import { processIo } from './io.js';
import { registerCheckCommand } from './commands/check.command.js';
import { registerEvalCommand } from './commands/eval.command.js';
import { registerLintCommand } from './commands/lint.command.js';
import { registerDbCommand } from './commands/db.command.js';
import { registerSitesCommand } from './commands/sites.command.js';
import { registerAuditCommand } from './commands/audit.command.js';
import { registerPipelineCommands } from './commands/pipeline.command.js';
import { registerDemoCommand } from './commands/demo.command.js';
import { registerFetchCommand } from './commands/fetch.command.js';
import { registerTrackCommand } from './commands/track.command.js';
import { registerAgentsCommand } from './commands/agents.command.js';
import { registerAlertsCommand } from './commands/alerts.command.js';

export type CommandRegistrar = (program: Command, io: CliIo) => void;

const registrars: CommandRegistrar[] = [registerCheckCommand, registerLintCommand, registerEvalCommand, registerDbCommand, registerSitesCommand, registerAuditCommand, registerPipelineCommands, registerDemoCommand, registerFetchCommand, registerTrackCommand, registerAgentsCommand, registerAlertsCommand];

export function buildProgram(io: CliIo): Command {
  const program = new Command('robots-audit')
    .description('Audit robots.txt for portfolios of websites: Google-exact parsing, fetch rules, diffs and alerts.')
    .version('0.1.0')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError();
  for (const register of registrars) register(program, io);
  return program;
}

/** Runs the CLI and resolves with the process exit code. */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return io.exitCode ?? 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    io.stderr.write(`robots-audit: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
}
