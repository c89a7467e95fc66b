/**
 * `robots-audit diff <site> [--from NIGHT|RUN] [--to NIGHT|RUN]`: two versions of a site's
 * robots.txt compared: the unified text diff, then per crawler the rules it gains and loses
 * (src/reports/site-diff.ts). Coloured on a terminal unless NO_COLOR is set (useColor).
 */
import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import { runSiteReport } from '../site-report-run.js';
import type { DatabaseOptions } from '../with-database.js';
import { databaseUrlOption, withDatabase } from '../with-database.js';
import { siteDiff } from '../../reports/site-diff.js';
import { formatSiteDiff, siteDiffJson, useColor } from '../../reports/site-diff.format.js';
import type { ColorTarget } from '../../reports/site-diff.format.js';
import { findSite } from '../../reports/site-lookup.js';

interface DiffOptions extends DatabaseOptions {
  from?: string;
  to?: string;
  color?: boolean;
  json?: boolean;
}

export const registerDiffCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  program
    .command('diff')
    .description(COMMAND_DESCRIPTIONS.diff)
    .argument('<site>', 'an origin (https://example.com) or a host (example.com: must match one monitored origin)')
    .option('--from <night|run>', 'the older end: a night (YYYY-MM-DD or an ISO time), a run id or a run key (default: the version before --to)')
    .option('--to <night|run>', 'the newer end, the same way (default: the latest version)')
    .option('--color', 'colour added lines green and removed ones red, even when not on a terminal (default: on a terminal, unless NO_COLOR is set)')
    .option('--no-color', 'never colour')
    .option('--json', 'write the comparison as one JSON object')
    .addOption(databaseUrlOption())
    .addHelpText(
      'after',
      `
A version is a body the site served, from the first night it was fetched until another was
(nights without a body, a 5xx or a 404, do not end it; a body served again later is a new
version). A night names the version in force then: YYYY-MM-DD at the end of that UTC day, an
ISO time at that instant (UTC when it has no zone); a run (its id, or its key such as
nightly-2026-03-01) the version in force on its night.

The semantic part compares rules as Google reads them (comments, blank lines, order and key
case do not count; R-23, R-24, R-34, R-35, T49) for *, every crawler either version names and
the default agents: each with the group it follows (R-40..R-43, R-42) and the rules it gains
(+) and loses (-); crawlers with the same change share a line. Then sitemaps and other records.

Exit codes: 0 (also for "no difference" and a site with fewer than two versions); 1 when the
site is not monitored, or a run or night names no version; 2 for a malformed --from/--to.`,
    )
    .action(async (siteInput: string, options: DiffOptions) => {
      await runSiteReport(io, async () => {
        await withDatabase(options, async (_db, pool) => {
          const report = await siteDiff(pool, await findSite(pool, siteInput), { from: options.from, to: options.to });
          if (options.json) {
            io.stdout.write(`${JSON.stringify(siteDiffJson(report), null, 2)}\n`);
            return;
          }
          io.stdout.write(formatSiteDiff(report, { color: useColor(options.color, io.stdout as ColorTarget, io.env) }));
        });
      });
    });
};
