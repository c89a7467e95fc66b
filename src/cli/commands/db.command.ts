/**
 * `robots-audit db migrate`: applies pending migrations. Safe to run from several processes at
 * once (deploys, workers starting together): an advisory lock serialises them and the later ones
 * find nothing to do.
 */
import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import type { CommandRegistrar } from '../main.js';
import { migrateDatabase } from '../../db/migrate.js';
import type { DatabaseOptions } from '../with-database.js';
import { databaseErrorMessage, databaseUrlOption, resolveDatabaseUrl } from '../with-database.js';

export const registerDbCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  const db = program.command('db').description('Database administration.');
  db.command('migrate')
    .description('Apply pending migrations from migrations/ (prints each one applied, or "already up to date").')
    .addOption(databaseUrlOption())
    .action(async (options: DatabaseOptions) => {
      let applied: string[];
      try {
        ({ applied } = await migrateDatabase(resolveDatabaseUrl(options)));
      } catch (err) {
        throw new Error(`migration failed: ${databaseErrorMessage(err)}`, { cause: err });
      }
      if (applied.length === 0) io.stdout.write('already up to date\n');
      for (const tag of applied) io.stdout.write(`applied ${tag}\n`);
    });
};
