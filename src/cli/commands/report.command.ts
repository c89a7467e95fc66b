/**
 * `robots-audit report <status|changes|flips|alerts|ai-access|ai-use|failing|lint|portability|compliance|violations>`: the reports of
 * src/reports as a table that fits the terminal, RFC 4180 CSV, or JSON (docs/reports.md lists
 * every column and key). An empty report is not an error (exit 0); an unknown portfolio is one
 * line on stderr and exit 1, a malformed date or width exit 2.
 */
import type { Command } from 'commander';
import { Argument, Option } from 'commander';
import type { CliIo } from '../io.js';
import { terminalWidth } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import { REPORT_FORMATS, REPORT_NAMES, ReportInputError, buildReport, formatReport, resolveReportFilters } from '../../reports/index.js';
import type { ReportFormat, ReportName } from '../../reports/index.js';
import { USAGE_PREFERENCES, USAGE_PURPOSES } from '../../robots/usage/vocabulary.js';
import type { UsagePreference, UsagePurpose } from '../../robots/usage/vocabulary.js';
import type { DatabaseOptions } from '../with-database.js';
import { databaseUrlOption, withDatabase } from '../with-database.js';

interface ReportOptions extends DatabaseOptions {
  portfolio?: string;
  since?: string;
  format: ReportFormat;
  width?: string;
  purpose?: UsagePurpose;
  preference?: UsagePreference;
  contradictions?: boolean;
  crawler?: string;
}

/** The options only `report ai-use` reads: given to another report they would silently do nothing. */
const AI_USE_OPTIONS = ['purpose', 'preference', 'contradictions'] as const;
/** The reports of the imported server logs (docs/compliance.md), the only ones `--crawler` narrows. */
const LOG_REPORTS: readonly ReportName[] = ['compliance', 'violations'];

export const registerReportCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  program
    .command('report')
    .description(COMMAND_DESCRIPTIONS.report)
    .addArgument(new Argument('<report>', 'which report').choices(REPORT_NAMES))
    .option('--portfolio <name>', 'only the sites of this portfolio')
    .option('--since <date>', 'from this night: YYYY-MM-DD, an ISO 8601 time (UTC without a zone), or <n>d (days before the latest night); changes, flips and alerts default to 7d')
    .addOption(new Option('--format <format>', 'output format').choices(REPORT_FORMATS).default('table'))
    .option('--width <columns>', "the table's width (default: the terminal's; unbounded when not a terminal)")
    .addOption(new Option('--purpose <purpose>', 'ai-use: only this purpose').choices(USAGE_PURPOSES))
    .addOption(new Option('--preference <preference>', 'ai-use: only this preference').choices(USAGE_PREFERENCES))
    .option('--contradictions', 'ai-use: only the sites that refuse AI training while an AI-training crawler of the catalogue may crawl their root')
    .option('--crawler <token>', 'compliance, violations: only this crawler (its catalogue token)')
    .addOption(databaseUrlOption())
    .action(async (name: ReportName, options: ReportOptions) => {
      const misplaced =
        (name === 'ai-use' ? undefined : AI_USE_OPTIONS.find((o) => options[o] !== undefined)) ??
        (LOG_REPORTS.includes(name) || options.crawler === undefined ? undefined : 'crawler');
      if (misplaced !== undefined) {
        io.stderr.write(`robots-audit: --${misplaced} applies to report ${misplaced === 'crawler' ? LOG_REPORTS.join(' and ') : 'ai-use'} only\n`);
        io.exitCode = 2;
        return;
      }
      let width = terminalWidth(io);
      if (options.width !== undefined) {
        width = Number(options.width);
        if (!/^\d+$/.test(options.width) || width < 20) {
          io.stderr.write(`robots-audit: --width "${options.width}": give a whole number of columns, 20 or more\n`);
          io.exitCode = 2;
          return;
        }
      }
      try {
        const { text, notes } = await withDatabase(options, async (_db, pool) => {
          const filters = await resolveReportFilters(pool, { portfolio: options.portfolio, since: options.since });
          const table = await buildReport(pool, name, {
            ...filters,
            purpose: options.purpose ?? null,
            preference: options.preference ?? null,
            contradictions: options.contradictions === true,
            crawler: options.crawler ?? null,
          });
          return { text: formatReport(table, options.format, width === undefined ? {} : { width }), notes: table.notes ?? [] };
        });
        io.stdout.write(text);
        // What the rows leave out (report portability: sites not analysed yet), apart from the data.
        for (const note of notes) io.stderr.write(`robots-audit: report ${name}: ${note}\n`);
      } catch (err) {
        if (!(err instanceof ReportInputError)) throw err;
        io.stderr.write(`robots-audit: ${err.message}\n`);
        io.exitCode = err.exitCode;
      }
    });
};
