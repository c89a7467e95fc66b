/**
 * `robots-audit audit`: start a run now. `--wait` follows it to the end with a progress bar (on
 * a terminal; plain lines otherwise), prints its summary and exits non-zero when it could not
 * complete. `--at` records the run at that time: the run's policy clock (the 30-day rule, D-3)
 * uses it, so demos, tests and backfills can replay nights. `--work` processes the jobs in this
 * process too, for one-off runs without a separate worker.
 */
import { randomUUID } from 'node:crypto';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { sql } from 'drizzle-orm';
import type { RunProgress } from '../../db/index.js';
import { tallyOf } from '../../db/runs.repo.js';
import { loadWaits } from '../../db/run-waits.js';
import { retryScheduleOf } from '../../config/env.js';
import { noticeableWait } from '../../policy/run-hold.js';
import { waitKey, waitLine, waitWhy } from '../wait-lines.js';
import { jobIds, QUEUES } from '../../queues/contracts.js';
import { createRuntime } from '../../services/runtime.js';
import type { Runtime } from '../../services/runtime.js';
import { finishRunIfComplete, startPipelineWorkers } from '../../services/pipeline-workers.js';
import { pendingDeliveriesOfRun } from '../../db/changes.repo.js';
import { terminalText } from '../../reports/terminal-text.js';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import type { ConnectionOptions } from '../pipeline-config.js';
import { addConnectionOptions, cliLogger, pipelineConfig, requireServices } from '../pipeline-config.js';

interface AuditOptions extends ConnectionOptions {
  portfolio?: string;
  wait?: boolean;
  at?: string;
  work?: boolean;
  json?: boolean;
}

/** How often `--wait` looks at the run. */
export const WAIT_POLL_MS = 250;
/** With no progress for this long, `--wait` re-enqueues what lost jobs left undone. */
export const WAIT_RECONCILE_MS = 30_000;
/**
 * With no progress for this long and no worker connected to the queues, `--wait` says once that
 * nothing is taking its jobs, and how to start a worker (issue 17: it waited in silence forever).
 */
export const NO_WORKER_NOTICE_MS = 10_000;
/** How often `--wait` asks Redis which workers are connected, while the run makes no progress. */
const WORKER_CHECK_MS = 2_000;
/** Waits `--wait` names, one line each, per run (a night of many 5xx answers would flood it); the rest are counted. */
export const WAIT_LINES_SHOWN = 20;

export interface RunSummary {
  run: { id: number; key: string; status: string; runAt: string; startedAt: string | null; finishedAt: string | null; sites: number };
  outcomes: Record<string, number>;
  policies: Record<string, number>;
  changes: Record<string, number>;
  flips: number;
  /** Usage preferences that changed (usage_flips: a purpose of a tracked URL x agent). */
  usageFlips: number;
  alerts: Record<string, number>;
  /** Sites whose job failed for good (Postgres down for long, say): the run ended without them. */
  failedSites: number;
  /**
   * Sites the run did not wait for (issue 26): waiting for a retry due past
   * ROBOTS_AUDIT_RUN_HOLD_SECONDS, their nights to come with it, their alerts in a late digest.
   */
  pendingSites: { origin: string | null; until: string; why: string }[];
}

export function runKeyFor(at: Date | null, portfolio: string | null, now: Date): string {
  const scope = portfolio ? `-${portfolio}` : '';
  // --at names the night: the same night replayed twice is the same run (and adds nothing).
  return at ? `at-${at.toISOString()}${scope}` : `manual-${now.toISOString()}-${randomUUID().slice(0, 8)}${scope}`;
}

/** Failed-for-good sites named after a run's summary; the count covers the others. */
const FAILED_SITES_SHOWN = 20;

/** The first `limit` sites of the run that failed for good, with their site job's last error when it is still kept. */
async function failedSitesOf(rt: Runtime, run: RunProgress, limit: number): Promise<string[]> {
  // Sites whose night is recorded as failed, with why; then those only counted failed.
  const recorded = await rt.db.db.execute<{ origin: string; error_message: string | null }>(
    sql`select s.origin, n.error_message from snapshots n join sites s on s.id = n.site_id
        where n.run_id = ${run.id} and n.outcome = 'night_failed' order by s.origin limit ${limit}`,
  );
  const failed = recorded.rows.map((r) => `${r.origin}: ${r.error_message ?? 'night failed'}`);
  for (const siteId of Object.keys(run.counts.failed ?? {}).map(Number).slice(0, Math.max(0, limit - failed.length))) {
    const job = await rt.queues.site.getJob(jobIds.fetchSite({ runId: run.id, siteId }));
    const site = await rt.repos.sites.getSite(siteId);
    failed.push(`${site?.origin ?? `site ${siteId}`}: ${job?.failedReason ?? 'failed'}`);
  }
  return failed;
}

export async function summarizeRun(rt: Runtime, run: RunProgress, failedSites: number): Promise<RunSummary> {
  const counts = run.counts;
  const now = new Date();
  const schedule = retryScheduleOf(rt.config);
  const pending = run.status === 'completed' && counts.waiting ? await loadWaits(rt.db.pool, { runId: run.id }) : [];
  const flips = await rt.db.db.execute<{ n: string; usage: string }>(
    sql`select (select count(*) from verdict_flips where run_id = ${run.id}) as n, (select count(*) from usage_flips where run_id = ${run.id}) as usage`,
  );
  const alerts = await rt.db.db.execute<{ severity: string; n: string }>(
    sql`select severity::text, count(*) as n from alerts where run_id = ${run.id} group by severity`,
  );
  return {
    run: {
      id: run.id,
      key: run.runKey,
      status: run.status,
      runAt: run.runAt.toISOString(),
      startedAt: run.startedAt?.toISOString() ?? null,
      finishedAt: run.finishedAt?.toISOString() ?? null,
      sites: run.sitesTotal,
    },
    outcomes: counts.outcome ?? {},
    policies: counts.policy ?? {},
    changes: counts.change ?? {},
    flips: Number(flips.rows[0]?.n ?? 0),
    usageFlips: Number(flips.rows[0]?.usage ?? 0),
    alerts: Object.fromEntries(alerts.rows.map((r) => [r.severity, Number(r.n)])),
    failedSites,
    pendingSites: pending.map((w) => ({ origin: w.origin, until: w.until.toISOString(), why: waitWhy(w, schedule, now) })),
  };
}

function formatCounts(counts: Record<string, number>): string {
  const entries = Object.entries(counts);
  return entries.length === 0 ? 'none' : entries.map(([k, n]) => `${k} ${n}`).join(', ');
}

export function formatSummary(s: RunSummary): string {
  return [
    `run ${s.run.id} (${s.run.key}) ${s.run.status}: ${s.run.sites} sites, night of ${s.run.runAt}`,
    `  fetch outcomes: ${formatCounts(s.outcomes)}`,
    `  policies:       ${formatCounts(s.policies)}`,
    `  changes:        ${formatCounts(s.changes)}`,
    `  verdict flips:  ${s.flips}`,
    `  usage flips:    ${s.usageFlips}`,
    `  alerts:         ${formatCounts(s.alerts)}`,
    ...(s.failedSites > 0 ? [`  failed sites:   ${s.failedSites}`] : []),
    ...(s.pendingSites.length > 0
      ? [
          `  pending sites:  ${s.pendingSites.length}, not waited for: each night comes with its retry, its alerts in a late digest`,
          ...s.pendingSites.map((p) => `    ${terminalText(p.origin ?? '(removed site)')} until ${p.until}: ${p.why}`),
        ]
      : []),
  ].join('\n');
}

/** Time left at the current rate, as `1h02m`, `3m20s` or `45s`; `-` before there is a rate. */
export function etaText(remaining: number, perSecond: number): string {
  if (remaining <= 0) return '0s';
  if (!(perSecond > 0)) return '-';
  const s = Math.ceil(remaining / perSecond);
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

/**
 * Follows a run to its end and resolves with it. Progress is written to `progressOut` (a bar on a
 * terminal, plain lines otherwise). With no progress for a while, what lost jobs left undone is
 * queued again (the scheduler's reconcile loop does the same when nobody waits).
 */
async function waitForRun(rt: Runtime, runId: number, progressOut: CliIo['stdout'], noticeOut: CliIo['stderr'] | null): Promise<RunProgress> {
  const tty = Boolean((progressOut as NodeJS.WriteStream).isTTY);
  const bar = tty
    ? new cliProgress.SingleBar(
        { format: 'sites {bar} {value}/{total} | unreachable {failures} | {rate}/s | ETA {eta}', hideCursor: true, stream: progressOut as NodeJS.WriteStream },
        cliProgress.Presets.shades_classic,
      )
    : null;
  const started = Date.now();
  let lastLine = 0;
  let lastPolled = -1;
  const first = (await rt.repos.runs.getRunProgress(runId))!;
  bar?.start(first.sitesTotal, 0, { failures: 0, rate: '0.0', eta: '-' });
  let progressAt = Date.now();
  let lastDone = -1;
  const watch = noticeOut === null ? null : watchForWorkers(rt, () => progressAt, noticeOut, () => bar && progressOut.write('\n'));
  const waits = waitAnnouncer(rt, (line) => {
    if (bar) progressOut.write('\n');
    progressOut.write(`${line}\n`);
  });
  try {
    return await followRun(rt, runId, WAIT_POLL_MS, async (run, done) => {
      await waits.see(run);
      if (done !== lastDone) {
        lastDone = done;
        progressAt = Date.now();
      }
      const failures = (run.counts.outcome?.server_error ?? 0) + (run.counts.outcome?.network_error ?? 0);
      const rate = (done / Math.max(0.001, (Date.now() - started) / 1000)).toFixed(1);
      if (bar) bar.update(done, { failures, rate, eta: etaText(run.sitesTotal - done, Number(rate)) });
      else if (done !== lastPolled && (Date.now() - lastLine > 2_000 || done >= run.sitesTotal)) {
        progressOut.write(`progress: ${done}/${run.sitesTotal} sites, ${failures} unreachable, ${rate}/s\n`);
        lastLine = Date.now();
      }
      lastPolled = done;
    });
  } finally {
    watch?.stop();
    bar?.stop();
  }
}

/**
 * Says each wait of the run as soon as it is seen (issue 26: a site's Retry-After held its run
 * for an hour in silence): one line per site whose wait is longer than WAIT_NOTICE_SECONDS, again
 * when it waits anew after another failed retry; past WAIT_LINES_SHOWN, the rest are counted.
 */
function waitAnnouncer(rt: Runtime, write: (line: string) => void): { see(run: RunProgress): Promise<void> } {
  const schedule = retryScheduleOf(rt.config);
  const seen = new Set<string>();
  let shown = 0;
  let untold = 0;
  return {
    async see(run) {
      const fresh = Object.entries(run.counts.waiting ?? {}).filter(
        ([siteId, until]) => !seen.has(waitKey({ runId: run.id, siteId: Number(siteId), until: new Date(until) })),
      );
      if (fresh.length === 0) return;
      const unseen = new Set(fresh.map(([siteId, until]) => waitKey({ runId: run.id, siteId: Number(siteId), until: new Date(until) })));
      const now = new Date();
      let more = 0;
      // Only the waits not looked at yet: a night of many 5xx answers has thousands.
      for (const wait of await loadWaits(rt.db.pool, { runId: run.id, siteIds: fresh.map(([siteId]) => Number(siteId)) })) {
        const key = waitKey(wait);
        if (!unseen.has(key)) continue;
        seen.add(key);
        if (wait.since !== null && !noticeableWait(wait.since, wait.until)) continue;
        if (shown < WAIT_LINES_SHOWN) {
          write(`waiting: ${waitLine(wait, schedule, now)}`);
          shown += 1;
        } else more += 1;
      }
      if (more > 0) {
        untold += more;
        write(`waiting: ${untold} more ${untold === 1 ? 'wait' : 'waits'} not listed (robots-audit stats lists the soonest)`);
      }
    },
  };
}

/**
 * While the run makes no progress for NO_WORKER_NOTICE_MS, asks Redis which workers are connected
 * to the fetch and site queues (BullMQ `getWorkers`: the clients that named themselves workers of
 * a queue); when none is, writes one line saying so and how to start one. The wait goes on.
 */
function watchForWorkers(rt: Runtime, progressAt: () => number, out: CliIo['stderr'], beforeNotice: () => unknown): { stop(): void } {
  let told = false;
  let checking = false;
  const timer = setInterval(() => {
    if (told || checking || Date.now() - progressAt() < NO_WORKER_NOTICE_MS) return;
    checking = true;
    void Promise.all([rt.queues.fetch.getWorkers(), rt.queues.site.getWorkers()])
      .then(([batch, site]) => {
        if (told || batch.length + site.length > 0) return;
        told = true;
        beforeNotice();
        out.write(
          `robots-audit: no worker is taking jobs (queue prefix "${rt.config.ROBOTS_AUDIT_QUEUE_PREFIX}"): start one with \`robots-audit worker\` (same REDIS_URL and queue prefix), or run \`audit --work\`; still waiting\n`,
        );
      })
      // Redis away: the wait itself reports it; this line is only a hint.
      .catch(() => undefined)
      .finally(() => (checking = false));
  }, WORKER_CHECK_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * Polls a run every `pollMs` until it is no longer running, telling `onPoll` its sites accounted
 * for (stored, skipped or failed). With no progress for WAIT_RECONCILE_MS, what lost jobs left
 * undone is queued again and the run ended if it is complete.
 */
export async function followRun(
  rt: Runtime,
  runId: number,
  pollMs: number,
  onPoll: (run: RunProgress, done: number) => void | Promise<void> = () => {},
): Promise<RunProgress> {
  let lastDone = -1;
  let lastChange = Date.now();
  for (;;) {
    const run = (await rt.repos.runs.getRunProgress(runId))!;
    const tally = tallyOf(run);
    const done = tally.done + tally.skipped + tally.failed;
    await onPoll(run, done);
    if (run.status !== 'running') return run;
    if (done !== lastDone) {
      lastDone = done;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > WAIT_RECONCILE_MS) {
      await rt.lifecycle.reconcile(runId);
      await finishRunIfComplete(rt, runId);
      lastChange = Date.now();
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

export const registerAuditCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  addConnectionOptions(
    program
      .command('audit')
      .description(COMMAND_DESCRIPTIONS.audit)
      .option('--portfolio <name>', 'only the sites of this portfolio')
      .option('--wait', 'follow the run to its end, naming each wait for a retry, print its summary (with its pending sites: those it did not wait for); exit 1 if it could not complete or a site failed for good')
      .option('--at <iso-time>', 'record the run as taking place at this time (its policy clock; replays and backfills)')
      .option('--work', 'also process the jobs in this process (no separate worker needed)')
      .option('--json', 'print the summary as JSON'),
  ).action(async (options: AuditOptions) => {
    let at: Date | null = null;
    if (options.at !== undefined) {
      at = new Date(options.at);
      if (Number.isNaN(at.getTime())) {
        io.stderr.write(`robots-audit: --at: not an ISO time: "${options.at}"\n`);
        io.exitCode = 2;
        return;
      }
    }
    const config = pipelineConfig(io, options);
    await requireServices(config);
    const log = cliLogger(config, io, options.work ? 'warn' : undefined);
    const rt = await createRuntime(config, log);
    const workers = options.work ? startPipelineWorkers(rt) : null;
    try {
      const { run, created, enqueued } = await rt.lifecycle.startRun({
        runKey: runKeyFor(at, options.portfolio ?? null, new Date()),
        trigger: 'manual',
        runAt: at ?? new Date(),
        portfolio: options.portfolio ?? null,
      });
      if (!options.json) {
        io.stdout.write(
          created
            ? `run ${run.id} (${run.runKey}) started: ${run.sitesTotal} sites\n`
            : `run ${run.id} (${run.runKey}) exists already (${run.status}); ${enqueued} missing sites enqueued\n`,
        );
      }
      if (!options.wait && !options.work) return;
      // --json: stdout carries the summary alone, so that it parses; progress goes to stderr.
      const ended = await waitForRun(rt, run.id, options.json ? io.stderr : io.stdout, workers ? null : io.stderr);
      // Deliveries go out once the run ended; let the in-process worker finish them.
      if (workers) await drainAlerts(rt, run.id);
      // A site whose night is recorded as night_failed failed for good too (issue 17).
      const failedCount = tallyOf(ended).failed + (ended.counts.outcome?.night_failed ?? 0);
      const summary = await summarizeRun(rt, ended, failedCount);
      io.stdout.write(options.json ? `${JSON.stringify(summary)}\n` : `${formatSummary(summary)}\n`);
      for (const f of await failedSitesOf(rt, ended, FAILED_SITES_SHOWN)) io.stderr.write(`failed: ${f}\n`);
      if (ended.status !== 'completed' || failedCount > 0) io.exitCode = 1;
    } finally {
      await workers?.close(config.ROBOTS_AUDIT_SHUTDOWN_GRACE_MS);
      await rt.close();
    }
  });
};

/** Waits (bounded) until no delivery of the run is pending: delivered, or given up. */
async function drainAlerts(rt: Runtime, runId: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await pendingDeliveriesOfRun(rt.db.db, runId)).length === 0) return;
    await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
  }
  rt.log.warn({ queue: QUEUES.alerts, runId }, 'alert deliveries still pending; a worker will finish them');
}
