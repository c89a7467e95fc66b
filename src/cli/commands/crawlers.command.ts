/**
 * `robots-audit crawlers ranges import <file> --source <name>` and `crawlers ranges list`: the
 * operators' published IP range files (Google's googlebot.json, OpenAI's gptbot.json, ...), each
 * stored with its own date (`creationTime`, or `--published` for a file without one), so a log's
 * request is checked against the ranges of its day (docs/compliance.md). The same file twice is
 * stored once.
 */
import { createHash } from 'node:crypto';
import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import { readInput, InputError } from '../read-input.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import type { DatabaseOptions } from '../with-database.js';
import { databaseUrlOption, withDatabase } from '../with-database.js';
import { parseRangeFile } from '../../crawlers/identity/ip-ranges.js';
import { RANGE_SOURCES } from '../../crawlers/identity/crawler-identity.js';
import { storeRangeFile } from '../../db/compliance.repo.js';
import { textTable } from '../text-table.js';
import { terminalText } from '../../reports/terminal-text.js';

interface RangesImportOptions extends DatabaseOptions {
  source: string;
  published?: string;
}

/** A range file is a few hundred KB at most (Google's largest lists a few thousand prefixes). */
const MAX_RANGE_FILE_BYTES = 8 * 1024 * 1024;

export const registerCrawlersCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  const crawlers = program.command('crawlers').description(COMMAND_DESCRIPTIONS.crawlers);
  const ranges = crawlers.command('ranges').description("The operators' published IP range files, by date.");
  ranges
    .command('import')
    .description('Store an IP range file as its operator publishes it (JSON with prefixes), under its source, with its own date.')
    .argument('<file>', 'the file: a path, or - for standard input')
    .requiredOption('--source <name>', `the range source: ${[...RANGE_SOURCES.keys()].join(', ')}`)
    .option('--published <date>', "the file's date when it states none (ISO 8601)")
    .addOption(databaseUrlOption())
    .action(async (file: string, options: RangesImportOptions) => {
      if (!RANGE_SOURCES.has(options.source)) {
        io.stderr.write(`robots-audit: --source: not a range source: "${terminalText(options.source)}" (one of ${[...RANGE_SOURCES.keys()].join(', ')})\n`);
        io.exitCode = 2;
        return;
      }
      let bytes: Buffer;
      try {
        bytes = await readInput(file, io.stdin, { maxBytes: MAX_RANGE_FILE_BYTES });
      } catch (err) {
        if (!(err instanceof InputError)) throw err;
        io.stderr.write(`robots-audit: ${err.message}\n`);
        io.exitCode = 1;
        return;
      }
      let parsed;
      try {
        parsed = parseRangeFile(bytes.toString('utf8'));
      } catch (err) {
        io.stderr.write(`robots-audit: ${terminalText(file)}: ${terminalText((err as Error).message)}\n`);
        io.exitCode = 1;
        return;
      }
      const published = options.published === undefined ? parsed.publishedAt : new Date(options.published);
      if (published === null || Number.isNaN(published.getTime())) {
        io.stderr.write(`robots-audit: ${terminalText(file)} states no date: give --published <date>${options.published === undefined ? '' : ` (not a date: "${terminalText(options.published)}")`}\n`);
        io.exitCode = 2;
        return;
      }
      const sha256 = createHash('sha256').update(bytes).digest();
      const added = await withDatabase(options, (_db, pool) => storeRangeFile(pool, { source: options.source, publishedAt: published, prefixes: parsed.prefixes, sha256 }));
      io.stdout.write(`${added ? 'stored' : 'already stored'}: ${options.source} of ${published.toISOString()}, ${parsed.prefixes.length} prefixes\n`);
    });
  ranges
    .command('list')
    .description('List the range files stored, by source and date.')
    .option('--json', 'write a JSON array')
    .addOption(databaseUrlOption())
    .action(async (options: DatabaseOptions & { json?: boolean }) => {
      const rows = await withDatabase(options, async (_db, pool) =>
        (await pool.query<{ source: string; published_at: Date; prefixes: number; imported_at: Date }>(
          'select source, published_at, cardinality(prefixes) as prefixes, created_at as imported_at from crawler_range_files order by source, published_at',
        )).rows,
      );
      if (options.json) io.stdout.write(`${JSON.stringify(rows.map((r) => ({ source: r.source, published: r.published_at.toISOString(), prefixes: r.prefixes, imported: r.imported_at.toISOString() })))}\n`);
      else if (rows.length === 0) io.stdout.write('no range files: robots-audit crawlers ranges import <file> --source <name>\n');
      else io.stdout.write(textTable(['SOURCE', 'PUBLISHED', 'PREFIXES', 'IMPORTED'], rows.map((r) => [r.source, r.published_at.toISOString(), String(r.prefixes), r.imported_at.toISOString()])));
    });
};
