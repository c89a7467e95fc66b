/**
 * `robots-audit stats`: what the pipeline holds right now, read from Redis and Postgres. The
 * state is built for real: two nights run by fetch workers with no alerts worker (their
 * deliveries stay pending), a third run started with no worker at all (its batch waits, the run
 * is in progress), and a job that fails for good (a payload no processor accepts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipelineWorkers } from '../../../src/services/pipeline-workers.js';
import type { StatsReport } from '../../../src/cli/commands/stats.command.js';
import { JOBS } from '../../../src/queues/contracts.js';
import { addSites, eventually, rows } from '../../helpers/nightly.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';

const BODY = 'User-agent: *\nDisallow: /private/\n';
const EVERYTHING_BLOCKED = 'User-agent: *\nDisallow: /\n';

let p: Pipeline;
let runId: number;
let json: StatsReport;
let table: string;

beforeAll(async () => {
  p = await startPipeline({ workers: false });
  const added = await p.cli(['alerts', 'add', 'http://127.0.0.1:9/never-delivered', '--min-severity', 'info']);
  expect(added.code, added.stderr).toBe(0);
  await addSites(p, ['st-a', 'st-b', 'st-c'], 'clients');

  // Two nights by fetch and site workers only: the second raises alerts nobody delivers.
  const fetching = startPipelineWorkers(p.rt, ['fetch', 'site']);
  try {
    for (const [at, body] of [
      ['2026-09-01T03:00:00.000Z', BODY],
      ['2026-09-02T03:00:00.000Z', EVERYTHING_BLOCKED],
    ] as const) {
      for (const name of ['st-a', 'st-b', 'st-c']) p.web.set(`${name}.test`, { status: 200, body });
      const run = await p.cli(['audit', '--wait', '--at', at]);
      expect(run.code, run.stderr).toBe(0);
    }
  } finally {
    await fetching.close(1_000);
  }

  // A run of the portfolio with no worker: in progress, its one batch waiting.
  const started = await p.cli(['audit', '--portfolio', 'clients', '--at', '2026-09-03T03:00:00.000Z']);
  expect(started.code, started.stderr).toBe(0);
  runId = Number(/^run (\d+) /.exec(started.stdout)?.[1]);

  // A job no processor accepts fails at once, for good, with its reason.
  await p.rt.queues.alerts.add(JOBS.deliverAlert, { deliveryId: 'not-a-number' }, { jobId: 'deliver-bogus' });
  const alerts = startPipelineWorkers(p.rt, ['alerts']);
  // It tries the real deliveries too (to a closed port): they fail and stay pending, to be retried
  // later; it is stopped once the bogus job failed.
  try {
    await eventually(async () => ((await p.rt.queues.alerts.getJobCounts('failed')).failed ?? 0) >= 1, 'the bogus job to fail');
  } finally {
    await alerts.close(1_000);
  }

  const run = await p.cli(['stats', '--json']);
  expect(run.code, run.stderr).toBe(0);
  json = JSON.parse(run.stdout) as StatsReport;
  const shown = await p.cli(['stats']);
  expect(shown.code, shown.stderr).toBe(0);
  table = shown.stdout;
});
afterAll(async () => p?.close());

describe('stats --json', () => {
  it('has the documented shape, and nothing else', () => {
    expect(Object.keys(json)).toEqual(['at', 'queues', 'runs', 'failedJobs', 'alertDeliveries', 'waitingSites']);
    expect(Object.keys(json.queues)).toEqual(['fetch', 'site', 'alerts', 'runs', 'analysis']);
    for (const q of Object.values(json.queues)) expect(Object.keys(q)).toEqual(['waiting', 'active', 'delayed', 'failed', 'completed']);
    expect(new Date(json.at).toISOString()).toBe(json.at);
  });

  it('queue depths: the waiting batch of the run in progress, the completed batches of the two nights', () => {
    expect(json.queues.fetch).toMatchObject({ waiting: 1, active: 0, failed: 0, completed: 2 });
    expect(json.queues.runs).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0, completed: 0 });
  });

  it('the run in progress with its progress: none of 3 done yet, limited to its portfolio', async () => {
    const [run] = await rows<{ run_key: string; started_at: Date }>(p, 'select run_key, started_at from audit_runs where id = $1', [runId]);
    expect(json.runs).toEqual([
      {
        id: runId,
        key: run!.run_key,
        portfolio: 'clients',
        trigger: 'manual',
        runAt: '2026-09-03T03:00:00.000Z',
        startedAt: run!.started_at.toISOString(),
        total: 3,
        done: 0,
        skipped: 0,
        failed: 0,
        sitesPerSecond: 0,
      },
    ]);
  });

  it('failed jobs: the count, and the latest with its reason', () => {
    expect(json.failedJobs.count).toBe(json.queues.alerts!.failed);
    const bogus = json.failedJobs.latest.find((j) => j.id === 'deliver-bogus');
    expect(bogus).toMatchObject({ queue: 'alerts', name: JOBS.deliverAlert, attempts: 1 });
    expect(bogus!.reason).toContain('deliveryId');
    expect(new Date(bogus!.failedAt!).getTime()).toBeGreaterThan(0);
  });

  it('pending alert deliveries: every delivery of the second night, the oldest first', async () => {
    const [pending] = await rows<{ n: number; oldest: Date }>(p, "select count(*)::int as n, min(created_at) as oldest from alert_deliveries where status = 'pending'");
    expect(pending!.n).toBeGreaterThan(0);
    expect(json.alertDeliveries).toEqual({ pending: pending!.n, oldestPendingSince: pending!.oldest.toISOString() });
  });

  it('waiting sites: none (issue 26; test/integration/pipeline/run-waits.int.test.ts has some)', () => {
    expect(json.waitingSites).toEqual({ count: 0, pending: 0, latestUntil: null, soonest: [] });
  });
});

describe('stats, as a table', () => {
  it('one row per queue, aligned', () => {
    const lines = table.split('\n');
    expect(lines[0]).toBe('QUEUE     WAITING  ACTIVE  DELAYED  FAILED  COMPLETED');
    expect(lines[1]).toMatch(/^fetch\s+1\s+0\s+0\s+0\s+2$/);
    expect(lines.slice(1, 6).map((l) => l.split(/\s+/)[0])).toEqual(['fetch', 'site', 'alerts', 'runs', 'analysis']);
  });

  it('the run in progress, the failed jobs and the pending deliveries', () => {
    expect(table).toContain('runs in progress: 1\n');
    expect(table).toMatch(new RegExp(`\\n\\s*${runId}\\s+\\S+\\s+clients\\s+0/3 \\(0%\\)\\s+0\\s+0\\s+0\\s+`));
    expect(table).toContain(`failed jobs: ${json.failedJobs.count} (latest ${json.failedJobs.latest.length})`);
    expect(table).toContain('deliver-bogus');
    expect(table).toContain(`alert deliveries pending: ${json.alertDeliveries.pending} (oldest since ${json.alertDeliveries.oldestPendingSince})`);
  });
});

describe('stats on an idle pipeline', () => {
  it('says none', async () => {
    const idle = await startPipeline({ workers: false });
    try {
      const run = await idle.cli(['stats']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('runs in progress: none\n');
      expect(run.stdout).toContain('failed jobs: 0\n');
      expect(run.stdout).toContain('alert deliveries pending: 0\n');
      expect(run.stdout).toContain('sites waiting for a retry: none\n');
    } finally {
      await idle.close();
    }
  });
});
