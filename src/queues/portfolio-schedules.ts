/**
 * Portfolio schedules as BullMQ job schedulers on the runs queue, beside the nightly one: one job
 * scheduler per portfolio that has a schedule (id `portfolio-<id>`), each firing a run of that
 * portfolio only, keyed by its firing time. Postgres holds the schedules (`portfolios schedule`);
 * the scheduler process brings Redis in line with them on start and periodically.
 */
import { defaultRepeatStrategy } from 'bullmq';
import type { Queue } from 'bullmq';
import { JOBS } from './contracts.js';
import type { StartRunPayload } from './contracts.js';

/** Job scheduler ids of portfolio schedules start with this; the nightly one (`nightly`) does not. */
export const PORTFOLIO_SCHEDULER_PREFIX = 'portfolio-';

export const portfolioSchedulerId = (portfolioId: number) => `${PORTFOLIO_SCHEDULER_PREFIX}${portfolioId}`;

export class InvalidScheduleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidScheduleError';
  }
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * The first firing of `cron` in `timeZone` after `from`, as BullMQ computes it: checks the pattern
 * (five fields, or six with seconds first) and the zone before they are stored, with a message a
 * person can act on.
 */
export function nextFiring(cron: string, timeZone: string, from: Date): Date {
  if (!isTimeZone(timeZone)) throw new InvalidScheduleError(`unknown time zone "${timeZone}" (an IANA name such as Europe/Paris, or UTC)`);
  const fields = cron.trim().split(/\s+/).length;
  if (fields !== 5 && fields !== 6) throw new InvalidScheduleError(`cron "${cron}": five fields (minute hour day-of-month month day-of-week), or six with seconds first`);
  let next: number | undefined;
  try {
    next = defaultRepeatStrategy(from.getTime(), { pattern: cron, tz: timeZone });
  } catch (err) {
    throw new InvalidScheduleError(`cron "${cron}": ${(err as Error).message}`);
  }
  if (next === undefined) throw new InvalidScheduleError(`cron "${cron}" never fires`);
  return new Date(next);
}

export interface PortfolioSchedule {
  portfolioId: number;
  portfolio: string;
  cron: string;
  timeZone: string;
}

export interface ScheduleSync {
  /** Job scheduler ids created or changed. */
  upserted: string[];
  /** Job scheduler ids removed (their portfolio's schedule was switched off, or the portfolio is gone). */
  removed: string[];
}

type RunsQueue = Pick<Queue, 'getJobSchedulers' | 'upsertJobScheduler' | 'removeJobScheduler'>;

/**
 * Makes the portfolio job schedulers of the runs queue those of `wanted`: creates the missing,
 * changes those whose pattern, zone or portfolio differ, removes those no longer wanted. One that
 * is already right is left alone (upserting it would move its next firing).
 */
export async function syncPortfolioSchedulers(runs: RunsQueue, wanted: readonly PortfolioSchedule[]): Promise<ScheduleSync> {
  const existing = new Map((await runs.getJobSchedulers(0, -1)).filter((s) => s.key.startsWith(PORTFOLIO_SCHEDULER_PREFIX)).map((s) => [s.key, s]));
  const done: ScheduleSync = { upserted: [], removed: [] };
  for (const schedule of wanted) {
    const id = portfolioSchedulerId(schedule.portfolioId);
    const data: StartRunPayload = { portfolio: schedule.portfolio, runPer: 'firing' };
    const current = existing.get(id);
    existing.delete(id);
    const template = current?.template?.data as Partial<StartRunPayload> | undefined;
    if (current && current.pattern === schedule.cron && current.tz === schedule.timeZone && template?.portfolio === data.portfolio && template?.runPer === data.runPer) continue;
    await runs.upsertJobScheduler(id, { pattern: schedule.cron, tz: schedule.timeZone }, { name: JOBS.startRun, data });
    done.upserted.push(id);
  }
  for (const id of existing.keys()) {
    await runs.removeJobScheduler(id);
    done.removed.push(id);
  }
  return done;
}
