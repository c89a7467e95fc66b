/**
 * `robots-audit db migrate`: applies pending migrations. Safe to run from several processes at
 * once (deploys, workers starting together): an advisory lock serialises them and the later ones
 * find nothing to do.
 */
import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import { prepareDatabase } from '../../services/prepare-database.js';
import type { DatabaseOptions } from '../with-database.js';
import { databaseErrorMessage, databaseUrlOption, requireDatabase, resolveDatabaseUrl } from '../with-database.js';

export const registerDbCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  const db = program.command('db').description(COMMAND_DESCRIPTIONS.db);
  db.command('migrate')
    .description('Apply pending migrations from migrations/ (prints each one applied, or "already up to date"), then index bodies stored before their rules were kept.')
    .addOption(databaseUrlOption())
    .action(async (options: DatabaseOptions) => {
      let prepared;
      const url = resolveDatabaseUrl(options);
      await requireDatabase(url);
      try {
        prepared = await prepareDatabase(url);
      } catch (err) {
        throw new Error(`migration failed: ${databaseErrorMessage(err)}`, { cause: err });
      }
      if (prepared.applied.length === 0) io.stdout.write('already up to date\n');
      for (const tag of prepared.applied) io.stdout.write(`applied ${tag}\n`);
      if (prepared.crawlersAdded > 0) io.stdout.write(`added ${prepared.crawlersAdded} crawlers of the catalogue\n`);
      if (prepared.indexed > 0) io.stdout.write(`indexed ${prepared.indexed} stored bodies (their rules and root access, for reports)\n`);
    });
};
