/**
 * `robots-audit portfolios list|schedule`: the portfolios (made by `sites add --portfolio` and
 * `sites import`) and their own schedules. A portfolio with a schedule gets a run of its sites at
 * each firing, beside the nightly run of every site; the scheduler process picks a change up
 * within ROBOTS_AUDIT_SCHEDULE_SYNC_MS. Sites of such runs are fetched one request at a time per
 * host like any other, and a change is alerted once, by whichever run sees it first.
 */
import type { Command } from 'commander';
import { config } from '../../config/env.js';
import { createPortfoliosRepo } from '../../db/portfolios.repo.js';
import { InvalidScheduleError, nextFiring } from '../../queues/portfolio-schedules.js';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import { textTable } from '../text-table.js';
import type { DatabaseOptions } from '../with-database.js';
import { databaseUrlOption, withDatabase } from '../with-database.js';

/** The time zone of a schedule given without --tz. */
export const DEFAULT_SCHEDULE_TIMEZONE = 'UTC';

interface ListOptions extends DatabaseOptions {
  json?: boolean;
}

interface ScheduleOptions extends DatabaseOptions {
  cron?: string;
  tz?: string;
  off?: boolean;
}

function fail(io: CliIo, message: string, code = 1): void {
  io.stderr.write(`robots-audit: ${message}\n`);
  io.exitCode = code;
}

export const registerPortfoliosCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  const portfolios = program.command('portfolios').description(COMMAND_DESCRIPTIONS.portfolios);

  portfolios
    .command('list')
    .description('List the portfolios with their number of sites and their schedules.')
    .option('--json', 'write a JSON array')
    .addOption(databaseUrlOption())
    .action(async (options: ListOptions) => {
      await withDatabase(options, async (db) => {
        const now = new Date();
        const list = (await createPortfoliosRepo(db).listPortfolios()).map((p) => ({
          name: p.name,
          sites: p.siteCount,
          extraUserAgents: p.extraUserAgents,
          schedule:
            p.scheduleCron === null || p.scheduleTimezone === null
              ? null
              : { cron: p.scheduleCron, timeZone: p.scheduleTimezone, next: nextFiring(p.scheduleCron, p.scheduleTimezone, now).toISOString() },
        }));
        if (options.json) {
          io.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
        } else if (list.length === 0) {
          io.stdout.write('no portfolios (sites add --portfolio <name> makes one)\n');
        } else {
          const rows = list.map((p) => [p.name, String(p.sites), p.schedule ? `${p.schedule.cron} (${p.schedule.timeZone})` : '-', p.schedule?.next ?? '-']);
          io.stdout.write(textTable(['PORTFOLIO', 'SITES', 'SCHEDULE', 'NEXT RUN'], rows, [1]));
        }
      });
    });

  portfolios
    .command('schedule')
    .description("Give a portfolio runs of its own on a cron schedule (beside the nightly run), or remove its schedule.")
    .argument('<portfolio>', 'the portfolio, by name')
    .option('--cron <pattern>', "cron pattern: five fields (minute hour day-of-month month day-of-week), or six with seconds first, e.g. '*/15 * * * *'")
    .option('--tz <zone>', `IANA time zone of the pattern, e.g. Europe/Paris (default: ${DEFAULT_SCHEDULE_TIMEZONE})`)
    .option('--off', 'remove the schedule: the portfolio is audited by the nightly run only')
    .addOption(databaseUrlOption())
    .addHelpText(
      'after',
      `
Each firing starts a run of the portfolio's sites, keyed by its firing time
(scheduled-<portfolio>-<time>). The scheduler picks a change up within
ROBOTS_AUDIT_SCHEDULE_SYNC_MS (60 s by default).`,
    )
    .action(async (name: string, options: ScheduleOptions) => {
      if ((options.cron === undefined) === (options.off !== true)) return fail(io, 'give either --cron <pattern> or --off', 2);
      if (options.off && options.tz !== undefined) return fail(io, '--tz goes with --cron', 2);
      const timeZone = options.tz ?? DEFAULT_SCHEDULE_TIMEZONE;
      let next: Date | null = null;
      if (options.cron !== undefined) {
        try {
          next = nextFiring(options.cron, timeZone, new Date());
        } catch (err) {
          if (err instanceof InvalidScheduleError) return fail(io, err.message, 2);
          throw err;
        }
      }
      await withDatabase(options, async (db) => {
        const repo = createPortfoliosRepo(db);
        const portfolio = await repo.findPortfolio(name);
        if (!portfolio) return fail(io, `unknown portfolio "${name}"`);
        const syncSeconds = Math.round(config().ROBOTS_AUDIT_SCHEDULE_SYNC_MS / 1000);
        if (options.cron !== undefined) {
          const cron = options.cron.trim().split(/\s+/).join(' ');
          await repo.setSchedule(portfolio.id, { cron, timeZone });
          io.stdout.write(`portfolio ${name}: runs on '${cron}' (${timeZone}), next at ${next!.toISOString()}; the scheduler takes it up within ${syncSeconds} s\n`);
        } else {
          const had = portfolio.scheduleCron !== null;
          await repo.setSchedule(portfolio.id, null);
          io.stdout.write(had ? `portfolio ${name}: schedule removed; the scheduler drops it within ${syncSeconds} s\n` : `portfolio ${name}: had no schedule\n`);
        }
      });
    });
};
