/**
 * `robots-audit prune --before <date>`: removes nights older than the date, keeping what the
 * product needs (every site's latest, last good and last reachable night, every night that
 * changed something, and every change, flip, alert and run): src/services/prune.service.ts; and
 * the crawler requests of log imports before the date but the findings, and client addresses past
 * ROBOTS_AUDIT_LOG_IP_RETENTION_DAYS.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import { PRUNE_BATCH_SITES, pruneBefore } from '../../services/prune.service.js';
import { commandConfig } from '../command-config.js';
import type { DatabaseOptions } from '../with-database.js';
import { databaseUrlOption, withDatabase } from '../with-database.js';

interface PruneOptions extends DatabaseOptions {
  before: string;
  dryRun?: boolean;
  batchSites: string;
  json?: boolean;
}

export const registerPruneCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  program
    .command('prune')
    .description(COMMAND_DESCRIPTIONS.prune)
    .requiredOption('--before <date>', 'an ISO date or time: nights of runs before it go')
    .option('--dry-run', 'count the nights, attempts and verdict spans that would go; remove nothing')
    .addOption(new Option('--batch-sites <n>', 'sites per transaction').default(String(PRUNE_BATCH_SITES)))
    .option('--json', 'print the counts as JSON')
    .addOption(databaseUrlOption())
    .action(async (options: PruneOptions) => {
      const before = new Date(options.before);
      const batchSites = Number(options.batchSites);
      if (!/^\d{4}-\d{2}-\d{2}/.test(options.before) || Number.isNaN(before.getTime())) {
        io.stderr.write(`robots-audit: --before: not an ISO date or time: "${options.before}"\n`);
        io.exitCode = 2;
        return;
      }
      if (!Number.isSafeInteger(batchSites) || batchSites < 1) {
        io.stderr.write(`robots-audit: --batch-sites: not a positive whole number: "${options.batchSites}"\n`);
        io.exitCode = 2;
        return;
      }
      const ipDays = commandConfig(io).ROBOTS_AUDIT_LOG_IP_RETENTION_DAYS;
      const clearIpsBefore = ipDays === 0 ? null : new Date(Date.now() - ipDays * 86_400_000);
      const result = await withDatabase(options, (_db, pool) => pruneBefore(pool, { before, batchSites, dryRun: options.dryRun ?? false, clearIpsBefore }));
      if (options.json) {
        io.stdout.write(`${JSON.stringify({ before: before.toISOString(), dryRun: options.dryRun ?? false, ...result })}\n`);
        return;
      }
      const verb = options.dryRun ? 'would remove' : 'removed';
      io.stdout.write(
        `${verb} ${result.snapshots} nights, ${result.failedAttempts} retried attempts, ${result.verdicts} verdict spans and ${result.crawlerRequests} crawler requests (not findings) before ${before.toISOString()}` +
          (options.dryRun ? '\n' : `; ${result.bodies} bodies and ${result.responses} answers no longer referenced\n`),
      );
      if (clearIpsBefore !== null) io.stdout.write(`${options.dryRun ? 'would clear' : 'cleared'} ${result.clientIps} client addresses of crawler requests before ${clearIpsBefore.toISOString()} (ROBOTS_AUDIT_LOG_IP_RETENTION_DAYS=${ipDays})\n`);
    });
};
