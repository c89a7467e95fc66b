/**
 * The `robots-audit` program itself, apart from the table of commands: its root, and one run of
 * it on a command line. main.ts fills the root from the table of commands; the demo fills it with
 * the few commands it runs, since through main.ts it would import the table that imports it.
 * commander is used for parsing because it is the most widely kept CLI parser for Node, with
 * typed options, sub-commands and generated help.
 */
import { Command, CommanderError } from 'commander';
import type { CliIo } from './io.js';

/** The program without its commands: name, version, output through `io`, errors thrown. */
export function createProgram(io: CliIo): Command {
  return new Command('robots-audit')
    .description('Audit robots.txt for portfolios of websites: Google-exact parsing, fetch rules, diffs and alerts.')
    .version('0.1.0')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError();
}

/**
 * Builds the program and runs it on `argv`; resolves with the exit code. commander has already
 * written its own errors (exit code 1, or 0 for --help); any other error, building included, is
 * written as one line and exits 2.
 */
export async function runProgram(argv: readonly string[], io: CliIo, build: () => Command | Promise<Command>): Promise<number> {
  try {
    const program = await build();
    await program.parseAsync(argv, { from: 'user' });
    return io.exitCode ?? 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    io.stderr.write(`robots-audit: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
}
