/**
 * `robots-audit stats`: the pipeline as an operator reads it now. Jobs per queue and state
 * (Redis), runs in progress and how far they got (Postgres), the failed jobs with the latest few
 * and their reasons, the alert deliveries still pending, and the sites waiting for a retry (the
 * soonest few, with until when and why; issue 26). A table on a terminal; `--json` for scripts,
 * its shape documented in the README and kept stable.
 */
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import { assertMigrated, createDb } from '../../db/index.js';
import { createPipelineStatusRepo } from '../../db/pipeline-status.repo.js';
import type { PendingDeliveries } from '../../db/pipeline-status.repo.js';
import { createRedis } from '../../queues/connection.js';
import { createQueues } from '../../queues/queues.js';
import { latestFailedJobs, queueDepths, runsInProgress } from '../../services/pipeline-status.js';
import type { FailedJob, QueueDepth, RunProgress } from '../../services/pipeline-status.js';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import type { ConnectionOptions } from '../pipeline-config.js';
import { addConnectionOptions, pipelineConfig, requireServices } from '../pipeline-config.js';
import { textTable } from '../text-table.js';
import { loadWaits, loadWaitTotals } from '../../db/run-waits.js';
import type { SiteWait, WaitTotals } from '../../db/run-waits.js';
import { retryScheduleOf } from '../../config/env.js';
import type { RetrySchedule } from '../../policy/retry-schedule.js';
import { durationText, msUntil } from '../../policy/run-hold.js';
import { terminalText } from '../../reports/terminal-text.js';
import { waitWhy } from '../wait-lines.js';

/** Failed jobs listed by default (the count covers them all). */
export const STATS_FAILED_JOBS_SHOWN = 5;
/** Waiting sites listed, the soonest due first (the count covers them all). */
export const STATS_WAITS_SHOWN = 5;

interface StatsOptions extends ConnectionOptions {
  json?: boolean;
  failedJobs: string;
}

export interface StatsReport {
  at: string;
  queues: Record<string, Omit<QueueDepth, 'queue'>>;
  runs: {
    id: number;
    key: string;
    portfolio: string | null;
    trigger: string;
    runAt: string;
    startedAt: string | null;
    total: number;
    done: number;
    skipped: number;
    failed: number;
    sitesPerSecond: number | null;
  }[];
  failedJobs: { count: number; latest: (Omit<FailedJob, 'failedAt'> & { failedAt: string | null })[] };
  alertDeliveries: { pending: number; oldestPendingSince: string | null };
  /** Sites waiting for a retry, in every run; `pending`: those their run does not wait for. */
  waitingSites: {
    count: number;
    pending: number;
    latestUntil: string | null;
    soonest: { runId: number; runKey: string; origin: string | null; until: string; pending: boolean; why: string }[];
  };
}

export interface WaitsNow {
  totals: WaitTotals;
  soonest: SiteWait[];
  schedule: RetrySchedule;
}

export function statsReport(at: Date, depths: QueueDepth[], runs: RunProgress[], failed: FailedJob[], deliveries: PendingDeliveries, waits: WaitsNow): StatsReport {
  return {
    at: at.toISOString(),
    queues: Object.fromEntries(depths.map(({ queue, waiting, active, delayed, failed: f, completed }) => [queue, { waiting, active, delayed, failed: f, completed }])),
    runs: runs.map((r) => ({
      id: r.runId,
      key: r.runKey,
      portfolio: r.portfolio,
      trigger: r.trigger,
      runAt: r.runAt.toISOString(),
      startedAt: r.startedAt?.toISOString() ?? null,
      total: r.total,
      done: r.done,
      skipped: r.skipped,
      failed: r.failed,
      sitesPerSecond: r.sitesPerSecond === null ? null : Math.round(r.sitesPerSecond * 100) / 100,
    })),
    failedJobs: {
      count: depths.reduce((n, d) => n + d.failed, 0),
      latest: failed.map((j) => ({ ...j, failedAt: j.failedAt?.toISOString() ?? null })),
    },
    alertDeliveries: { pending: deliveries.count, oldestPendingSince: deliveries.oldestCreatedAt?.toISOString() ?? null },
    waitingSites: {
      count: waits.totals.waiting,
      pending: waits.totals.pending,
      latestUntil: waits.totals.latestUntil?.toISOString() ?? null,
      soonest: waits.soonest.map((w) => ({
        runId: w.runId,
        runKey: w.runKey,
        origin: w.origin,
        until: w.until.toISOString(),
        pending: w.pending,
        why: waitWhy(w, waits.schedule, at),
      })),
    },
  };
}

const percent = (part: number, whole: number) => (whole === 0 ? '100%' : `${Math.floor((100 * part) / whole)}%`);

export function formatStats(report: StatsReport): string {
  const queueRows = Object.entries(report.queues).map(([name, q]) => [name, ...[q.waiting, q.active, q.delayed, q.failed, q.completed].map(String)]);
  let out = textTable(['QUEUE', 'WAITING', 'ACTIVE', 'DELAYED', 'FAILED', 'COMPLETED'], queueRows, [1, 2, 3, 4, 5]);

  out += `\nruns in progress: ${report.runs.length === 0 ? 'none' : report.runs.length}\n`;
  if (report.runs.length > 0) {
    const runRows = report.runs.map((r) => {
      const finished = r.done + r.skipped + r.failed;
      return [
        String(r.id),
        r.key,
        r.portfolio ?? '-',
        `${finished}/${r.total} (${percent(finished, r.total)})`,
        String(r.done),
        String(r.skipped),
        String(r.failed),
        r.sitesPerSecond === null ? '-' : `${r.sitesPerSecond.toFixed(1)}/s`,
        r.startedAt ?? '-',
      ];
    });
    out += textTable(['RUN', 'KEY', 'PORTFOLIO', 'PROGRESS', 'DONE', 'SKIPPED', 'FAILED', 'RATE', 'STARTED'], runRows, [0, 4, 5, 6, 7]);
  }

  const { count, latest } = report.failedJobs;
  out += `\nfailed jobs: ${count}${latest.length > 0 ? ` (latest ${latest.length})` : ''}\n`;
  if (latest.length > 0) {
    const rows = latest.map((j) => [j.failedAt ?? '-', j.queue, j.id, String(j.attempts), j.reason]);
    out += textTable(['FAILED AT', 'QUEUE', 'JOB', 'ATTEMPTS', 'REASON'], rows, [3]);
  }

  const { pending, oldestPendingSince } = report.alertDeliveries;
  out += `\nalert deliveries pending: ${pending}${oldestPendingSince ? ` (oldest since ${oldestPendingSince})` : ''}\n`;

  const waits = report.waitingSites;
  if (waits.count === 0) return `${out}\nsites waiting for a retry: none\n`;
  const notWaited = waits.pending > 0 ? `, ${waits.pending} pending (their run does not wait for them)` : '';
  out += `\nsites waiting for a retry: ${waits.count}${notWaited}, the latest until ${waits.latestUntil}\n`;
  const at = new Date(report.at);
  const rows = waits.soonest.map((w) => [
    `${w.until} (in ${durationText(msUntil(new Date(w.until), at))})`,
    terminalText(w.origin ?? '(removed site)'),
    String(w.runId),
    w.pending ? 'no' : 'yes',
    w.why,
  ]);
  out += textTable(['UNTIL', 'SITE', 'RUN', 'HOLDS RUN', 'WHY'], rows, [2]);
  return out;
}

function count(value: string): string {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('a whole number');
  return value;
}

export const registerStatsCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  addConnectionOptions(
    program
      .command('stats')
      .description(COMMAND_DESCRIPTIONS.stats)
      .option('--json', 'print one JSON object (shape: README, robots-audit stats)')
      .addOption(new Option('--failed-jobs <n>', 'how many of the latest failed jobs to list').default(String(STATS_FAILED_JOBS_SHOWN)).argParser(count)),
  ).action(async (options: StatsOptions) => {
    const config = pipelineConfig(io, options);
    await requireServices(config);
    const db = createDb(config.DATABASE_URL, { max: 2, applicationName: 'robots-audit stats' });
    // A producer connection: a command gives up on a Redis that went away instead of waiting.
    const redis = createRedis(config.REDIS_URL, 'producer');
    redis.on('error', () => {});
    const queues = createQueues(redis, config.ROBOTS_AUDIT_QUEUE_PREFIX, { siteAttempts: 1, jobBackoffMs: config.ROBOTS_AUDIT_JOB_BACKOFF_MS });
    try {
      await assertMigrated(db.db);
      const now = new Date();
      const status = createPipelineStatusRepo(db.db);
      const [depths, runs, failed, deliveries, totals, soonest] = await Promise.all([
        queueDepths(queues),
        runsInProgress(status, now),
        latestFailedJobs(queues, Number(options.failedJobs)),
        status.pendingDeliveries(),
        loadWaitTotals(db.pool),
        loadWaits(db.pool, { limit: STATS_WAITS_SHOWN }),
      ]);
      const report = statsReport(now, depths, runs, failed, deliveries, { totals, soonest, schedule: retryScheduleOf(config) });
      io.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatStats(report));
    } finally {
      await queues.close();
      redis.disconnect();
      await db.close();
    }
  });
};
