/**
 * `robots-audit sites add|import|list|remove`: the monitored sites and their portfolios.
 * Every URL is reduced to its origin with `normalizeOrigin()` (R-1..R-6): `Example.com/a`,
 * `https://example.com:443` and `https://example.com` are the same site.
 */
import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import { readInput } from '../read-input.js';
import { parseLabels, parseSitesCsv, SITES_CSV_COLUMNS } from '../sites-csv.js';
import type { DatabaseOptions } from '../with-database.js';
import { databaseErrorMessage, databaseUrlOption, withDatabase } from '../with-database.js';
import { InvalidUrlError, auditableOrigin, normalizeOrigin } from '../../robots/origin.js';
import type { Labels, SiteListing } from '../../db/sites.repo.js';
import { createSitesRepo } from '../../db/sites.repo.js';
import { createPortfoliosRepo } from '../../db/portfolios.repo.js';

interface AddOptions extends DatabaseOptions {
  portfolio?: string;
  label: string[];
  allowIp?: boolean;
}

interface ListOptions extends DatabaseOptions {
  portfolio?: string;
  json?: boolean;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Normalises each URL; a bad one is reported on stderr with its reason and sets exit code 1. */
function originsOf(urls: string[], io: CliIo, toOrigin: (url: string) => string): string[] {
  const origins: string[] = [];
  for (const url of urls) {
    try {
      origins.push(toOrigin(url));
    } catch (err) {
      if (!(err instanceof InvalidUrlError)) throw err;
      io.stderr.write(`${err.message}\n`);
      io.exitCode = 1;
    }
  }
  return [...new Set(origins)];
}

function formatLabels(labels: Labels): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(';');
}

function writeTable(sites: SiteListing[], io: CliIo): void {
  const rows = [['ORIGIN', 'PORTFOLIOS', 'LABELS'], ...sites.map((s) => [s.enabled ? s.origin : `${s.origin} (disabled)`, s.portfolios.join(',') || '-', formatLabels(s.labels) || '-'])];
  const widths = [0, 1].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const row of rows) io.stdout.write(`${row[0]!.padEnd(widths[0]!)}  ${row[1]!.padEnd(widths[1]!)}  ${row[2]}\n`);
}

export const registerSitesCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  const sites = program.command('sites').description(COMMAND_DESCRIPTIONS.sites);

  sites
    .command('add')
    .description('Add sites, or merge labels and portfolio membership into existing ones.')
    .argument('<url...>', 'any URL of each site (a bare host such as example.com is read as https); its origin is monitored')
    .option('--portfolio <name>', 'add the sites to this portfolio (created when new)')
    .option('--label <key=value>', 'label the sites (repeat, or key=value;key2=value2); a new value replaces the old', collect, [])
    .option('--allow-ip', 'accept an IP address as a site\'s host (refused by default)')
    .addOption(databaseUrlOption())
    .addHelpText(
      'after',
      '\nA URL that cannot be parsed or audited (a scheme other than http or https, a host over 253 characters, an IP address without --allow-ip) is reported with its reason and the exit code is 1; the others are still added. A final dot of a host is dropped.',
    )
    .action(async (urls: string[], options: AddOptions) => {
      const labels: Labels = {};
      try {
        for (const value of options.label) Object.assign(labels, parseLabels(value));
      } catch (err) {
        io.stderr.write(`robots-audit: --label: ${(err as Error).message}\n`);
        io.exitCode = 1;
        return;
      }
      const portfolio = options.portfolio?.trim();
      if (options.portfolio !== undefined && !portfolio) {
        io.stderr.write('robots-audit: --portfolio: empty name\n');
        io.exitCode = 1;
        return;
      }
      // Only what can be audited every night: http(s), a DNS name (issue 17; an IP with --allow-ip).
      const origins = originsOf(urls, io, (url) => auditableOrigin(url, { allowIpLiterals: options.allowIp === true }));
      if (origins.length === 0) return;
      await withDatabase(options, async (db) => {
        const result = await createSitesRepo(db).addSites(origins, { ...(portfolio ? { portfolio } : {}), labels });
        const added = new Set(result.added);
        for (const origin of origins) io.stdout.write(`${added.has(origin) ? 'added' : 'updated'} ${origin}\n`);
      });
    });

  sites
    .command('import')
    .description('Add or update sites from a CSV file, all in one transaction.')
    .argument('<file>', 'the CSV file; "-" reads standard input')
    .option('--allow-ip', 'accept IP addresses as sites\' hosts (refused by default)')
    .addOption(databaseUrlOption())
    .addHelpText(
      'after',
      `
The first row names the columns: ${SITES_CSV_COLUMNS.join(', ')} (url required). labels looks like
team=seo;tier=1. Example:
  url,portfolio,labels
  example.com,shop,team=seo;tier=1

A bad row is reported as "line N: <reason>" (N counts the header as line 1) and skipped; the good
rows are imported together, or nothing is if the import fails. Rows for the same site merge.
Exit code 1 when any row was bad.`,
    )
    .action(async (file: string, options: DatabaseOptions & { allowIp?: boolean }) => {
      const csv = parseSitesCsv(await readInput(file, io.stdin), { allowIpLiterals: options.allowIp === true });
      for (const problem of csv.problems) io.stderr.write(`line ${problem.line}: ${problem.reason}\n`);
      if (csv.problems.length > 0) io.exitCode = 1;
      if (csv.fatal) {
        io.stderr.write('nothing imported\n');
        return;
      }
      if (csv.entries.length === 0) {
        io.stdout.write('no sites to import\n');
        return;
      }
      await withDatabase(options, async (db) => {
        let result;
        try {
          result = await createSitesRepo(db).upsertSites(csv.entries);
        } catch (err) {
          throw new Error(`import failed, nothing was written: ${databaseErrorMessage(err)}`, { cause: err });
        }
        const total = result.added.length + result.existing.length;
        io.stdout.write(`imported ${total} site${total === 1 ? '' : 's'}: ${result.added.length} added, ${result.existing.length} updated\n`);
      });
    });

  sites
    .command('list')
    .description('List the monitored sites with their portfolios and labels.')
    .option('--portfolio <name>', 'only the sites of this portfolio')
    .option('--json', 'write a JSON array')
    .addOption(databaseUrlOption())
    .action(async (options: ListOptions) => {
      await withDatabase(options, async (db) => {
        if (options.portfolio !== undefined && !(await createPortfoliosRepo(db).findPortfolio(options.portfolio))) {
          io.stderr.write(`robots-audit: unknown portfolio "${options.portfolio}"\n`);
          io.exitCode = 1;
          return;
        }
        const list = await createSitesRepo(db).listSites(options.portfolio === undefined ? {} : { portfolio: options.portfolio });
        if (options.json) {
          const out = list.map((s) => ({ origin: s.origin, enabled: s.enabled, portfolios: s.portfolios, labels: s.labels, createdAt: s.createdAt.toISOString() }));
          io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
        } else if (list.length === 0) {
          io.stdout.write('no sites\n');
        } else {
          writeTable(list, io);
        }
      });
    });

  sites
    .command('remove')
    .description('Stop monitoring sites and delete their history.')
    .argument('<url...>', 'any URL of each site')
    .addOption(databaseUrlOption())
    .action(async (urls: string[], options: DatabaseOptions) => {
      // Any site stored, whatever `sites add` accepts now.
      const origins = originsOf(urls, io, normalizeOrigin);
      if (origins.length === 0) return;
      await withDatabase(options, async (db) => {
        const repo = createSitesRepo(db);
        const present = await repo.existingOrigins(origins);
        const removed = await repo.removeSites(origins);
        for (const origin of origins) {
          if (present.has(origin)) io.stdout.write(`removed ${origin}\n`);
          else io.stderr.write(`not monitored: ${origin}\n`);
        }
        io.stdout.write(`${removed} site${removed === 1 ? '' : 's'} removed\n`);
      });
    });
};
