/**
 * `robots-audit lint <file|->`: what a robots.txt says that its author may not mean, one
 * diagnostic per line in the compilers' `LINE:severity:code: message` shape so that editors and
 * grep can use it. Exit code 1 when there is an error-severity diagnostic.
 */
import { terminalText } from '../../reports/terminal-text.js';
import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import { readInput } from '../read-input.js';
import { lintAndParse } from '../../robots/index.js';
import { lintWithCrawlers } from '../../crawlers/usage-lint.js';
import type { Diagnostic, Severity } from '../../robots/index.js';

interface LintOptions {
  json?: boolean;
  all?: boolean;
  portability: boolean;
}

export const registerLintCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  program
    .command('lint')
    .description(COMMAND_DESCRIPTIONS.lint)
    .argument('<file>', 'the robots.txt to read, as bytes; "-" reads standard input')
    .option('--json', 'write one JSON object per diagnostic (JSON Lines)')
    .option('--all', 'include trivia: comments and empty lines')
    .option('--no-portability', 'skip other-parsers-differ: the rules other parsers (python-urllib, scrapy-protego, node-robots-parser) read differently')
    .addHelpText(
      'after',
      `
Output: one diagnostic per line, LINE:severity:code: message (severity: error, warning, info),
and a summary on standard error. Exit code 1 when there is any error, else 0.
`,
    )
    .action(async (file: string, options: LintOptions) => {
      // The engine's findings and, from the same parse, the one that needs the crawler catalogue (D-14).
      const diagnostics = lintWithCrawlers(lintAndParse(await readInput(file, io.stdin), { includeTrivia: options.all === true, portability: options.portability }));
      for (const d of diagnostics) io.stdout.write(options.json ? `${JSON.stringify(d)}\n` : `${terminalText(formatDiagnostic(d))}\n`);
      const counts = countBySeverity(diagnostics);
      io.stderr.write(`${file === '-' ? '<stdin>' : file}: ${summary(counts)}\n`);
      if (counts.error > 0) io.exitCode = 1;
    });
};

export function formatDiagnostic(d: Diagnostic): string {
  return `${d.line}:${d.severity}:${d.code}: ${d.message}`;
}

function countBySeverity(diagnostics: Diagnostic[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const d of diagnostics) counts[d.severity] += 1;
  return counts;
}

function summary(counts: Record<Severity, number>): string {
  if (counts.error + counts.warning + counts.info === 0) return 'no problems found';
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${plural(counts.error, 'error')}, ${plural(counts.warning, 'warning')}, ${counts.info} info`;
}
