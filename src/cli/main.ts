/**
 * `robots-audit`: the command line. Each command lives in its own module under
 * `src/cli/commands/` and registers itself on the program (program.ts); this file only wires them,
 * importing a module only when one of its commands runs (`command-table.ts` says why).
 */
import type { Command } from 'commander';
import { Help } from 'commander';
import type { CliIo } from './io.js';
import { processIo } from './io.js';
import { COMMAND_MODULES } from './command-table.js';
import type { CommandModule } from './command-table.js';
import { createProgram, runProgram } from './program.js';

/**
 * The command `argv` runs: its first word, or the word after `help` (`help check` shows check's
 * help). The program's own options (--help, --version) take no value, so the first word that is
 * not an option is the command. Undefined when there is none.
 */
export function invokedCommandName(argv: readonly string[]): string | undefined {
  const words = argv.filter((arg) => !arg.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}

/**
 * The program ready to parse `argv`: the module of the invoked command is loaded and registers
 * its commands; every other command is only listed (name and description for `--help`, and so
 * that commander still names an unknown command and suggests the nearest one).
 */
export async function buildProgram(io: CliIo, argv: readonly string[] = [], modules: readonly CommandModule[] = COMMAND_MODULES): Promise<Command> {
  const program = createProgram(io);
  const invoked = invokedCommandName(argv);
  const listedTerms = new Map<Command, string>();
  for (const module of modules) {
    if (module.commands.some((c) => c.name === invoked)) {
      const register = await module.load();
      register(program, io);
      continue;
    }
    for (const listing of module.commands) listedTerms.set(program.command(listing.name).description(listing.description), listing.term);
  }
  // A listed command has no options or arguments registered: help shows the term it would have.
  const defaultHelp = new Help();
  program.configureHelp({ subcommandTerm: (command) => listedTerms.get(command) ?? defaultHelp.subcommandTerm(command) });
  return program;
}

/** Runs the CLI and resolves with the process exit code. */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  return runProgram(argv, io, () => buildProgram(io, argv));
}
