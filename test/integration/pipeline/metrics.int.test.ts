/**
 * A worker's /metrics, scraped over HTTP from a worker running in this process (workers/worker.ts,
 * as `robots-audit worker` runs it), checked by promtool and parsed by a Prometheus text parser:
 * the values, not only the names. Also /healthz and /readyz with Postgres and Redis reachable.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/env.js';
import { createLogger } from '../../../src/log/logger.js';
import { JOBS } from '../../../src/queues/contracts.js';
import { runWorker } from '../../../workers/worker.js';
import { closedPort, startWebhookReceiver } from '../../fixtures/webhook-receiver.js';
import type { WebhookReceiver } from '../../fixtures/webhook-receiver.js';
import { runCli } from '../../helpers/cli.js';
import { spawnWorker, stopWorker } from '../../helpers/worker-process.js';
import { addSites, eventually, rows, settleDeliveries } from '../../helpers/nightly.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { parseScrape, promtoolProblems } from '../../helpers/prometheus.js';
import type { Scrape } from '../../helpers/prometheus.js';

const NIGHT_1 = '2026-08-01T03:00:00.000Z';
const NIGHT_2 = '2026-08-02T03:00:00.000Z';
const BODY = 'User-agent: *\nDisallow: /private/\n';
const EVERYTHING_BLOCKED = 'User-agent: *\nDisallow: /\n';

let p: Pipeline;
let receiver: WebhookReceiver;
let base = '';
const stop = new AbortController();
let worker: Promise<void>;

async function get(path: string, init: RequestInit = {}): Promise<{ status: number; type: string | null; body: string }> {
  const res = await fetch(`${base}${path}`, init);
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

/** /metrics, checked by promtool, then parsed. */
async function scrape(): Promise<Scrape> {
  const res = await get('/metrics');
  expect(res.status).toBe(200);
  expect(res.type).toContain('text/plain; version=0.0.4');
  expect(promtoolProblems(res.body)).toBe('');
  return parseScrape(res.body);
}

async function runIdOf(started: { stdout: string }): Promise<number> {
  return Number(/^run (\d+) /.exec(started.stdout)?.[1]);
}

beforeAll(async () => {
  p = await startPipeline({ workers: false, env: { ROBOTS_AUDIT_ALERT_BACKOFF_MS: '50' } });
  receiver = await startWebhookReceiver({ failFirst: 1 });
  const added = await p.cli(['alerts', 'add', receiver.url, '--min-severity', 'critical']);
  expect(added.code, added.stderr).toBe(0);
  const port = await closedPort();
  base = `http://127.0.0.1:${port}`;
  const config = loadConfig({ ...p.env, ROBOTS_AUDIT_METRICS_HOST: '127.0.0.1', ROBOTS_AUDIT_METRICS_PORT: String(port) });
  worker = runWorker(config, createLogger('warn', new PassThrough().resume()), { signal: stop.signal });
  await eventually(async () => (await get('/readyz').catch(() => ({ status: 0 }))).status === 200, 'the worker to be ready', 20_000);
});

afterAll(async () => {
  stop.abort();
  await worker;
  await receiver?.close();
  await p?.close();
});

describe('/healthz and /readyz, Postgres and Redis reachable', () => {
  it('healthz: 200, the process is up', async () => {
    expect(await get('/healthz')).toMatchObject({ status: 200, body: 'ok\n' });
  });

  it('readyz: 200, both services answer', async () => {
    expect(await get('/readyz')).toMatchObject({ status: 200, body: 'ready\n' });
  });

  it('anything else: 404; a POST: 405', async () => {
    expect((await get('/')).status).toBe(404);
    expect((await get('/metrics', { method: 'POST' })).status).toBe(405);
  });

  it('issue 17: a second worker on the same port serves on the next free one and says which', async () => {
    const port = Number(new URL(base).port);
    const second = spawnWorker(p, { ROBOTS_AUDIT_METRICS_PORT: String(port), ROBOTS_AUDIT_METRICS_HOST: '127.0.0.1' });
    try {
      await second.started();
      const line = second.stderr().split('\n').find((l) => l.includes('is taken'));
      const logged = JSON.parse(line ?? '{}') as { wanted?: number; port?: number; msg?: string };
      expect(logged).toMatchObject({ wanted: port, msg: expect.stringMatching(new RegExp(`^port ${port} is taken .*serving /metrics, /healthz and /readyz on \\d+ instead$`)) });
      expect(logged.port).toBeGreaterThan(port);
      const healthz = await fetch(`http://127.0.0.1:${logged.port}/healthz`);
      expect(healthz.status).toBe(200);
    } finally {
      await stopWorker(second);
    }
  });

  it('every port of the range taken: stops at start with one line naming the setting', async () => {
    const port = new URL(base).port;
    const second = await runCli(['worker', '--metrics-port', port, '--database-url', p.db.url], {
      env: { ...p.env, ROBOTS_AUDIT_METRICS_HOST: '127.0.0.1', ROBOTS_AUDIT_METRICS_PORT_FALLBACKS: '0' },
    });
    expect(second).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `robots-audit: cannot serve /metrics on 127.0.0.1:${port}: EADDRINUSE (ROBOTS_AUDIT_METRICS_PORT sets the port; 0 turns the endpoints off)\n`,
    });
  });
});

describe('after a run of three sites', () => {
  let m: Scrape;
  let runId: number;

  beforeAll(async () => {
    await addSites(p, ['m-ok', 'm-also-ok', 'm-gone']);
    p.web.set('m-ok.test', { status: 200, body: BODY });
    p.web.set('m-also-ok.test', { status: 200, body: BODY });
    p.web.set('m-gone.test', { status: 404, body: 'not here' });
    const run = await p.cli(['audit', '--wait', '--at', NIGHT_1]);
    expect(run.code, run.stderr).toBe(0);
    runId = await runIdOf(run);
    m = await scrape();
  });

  it('fetch outcomes sum to 3: two ok, one unavailable', () => {
    expect(m.sum('robots_audit_fetches_total')).toBe(3);
    expect(m.value('robots_audit_fetches_total', { outcome: 'ok' })).toBe(2);
    expect(m.value('robots_audit_fetches_total', { outcome: 'unavailable' })).toBe(1);
  });

  it('the fetch duration histogram observed each fetch, in buckets from 50 ms to 45 s', () => {
    const ok = m.histogram('robots_audit_fetch_duration_seconds', { outcome: 'ok' });
    expect(ok.count).toBe(2);
    expect(ok.buckets.map(([le]) => le)).toEqual(['0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '20', '45', '+Inf']);
    expect(ok.buckets.at(-1)).toEqual(['+Inf', 2]);
    expect(ok.sum).toBeGreaterThan(0);
    expect(m.histogram('robots_audit_fetch_duration_seconds', { outcome: 'unavailable' }).count).toBe(1);
  });

  it('three nights stored, none stale; one batch job completed', async () => {
    expect(m.value('robots_audit_nights_stored_total')).toBe(3);
    expect(m.value('robots_audit_stale_nights_total')).toBe(0);
    expect(m.value('robots_audit_jobs_total', { queue: 'fetch', result: 'completed' })).toBe(1);
    expect((await rows(p, 'select 1 from snapshots where run_id = $1', [runId])).length).toBe(3);
  });

  it('queue depths: every queue and state, read from Redis (nothing left waiting)', () => {
    for (const queue of ['fetch', 'site', 'alerts', 'runs']) {
      for (const state of ['waiting', 'active', 'delayed', 'failed']) expect(m.value('robots_audit_queue_jobs', { queue, state })).toBe(0);
    }
  });

  it('no run in progress: no run series', () => {
    expect(m.family('robots_audit_run_sites').samples).toEqual([]);
  });

  it('Node process metrics under their standard names', () => {
    expect(m.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(m.value('process_resident_memory_bytes')).toBeGreaterThan(10 * 1024 * 1024);
    expect(m.family('nodejs_eventloop_lag_seconds').type).toBe('gauge');
  });

  it('no label holds a site, a URL or a host', () => {
    const values = m.families.flatMap((f) => f.samples.flatMap((s) => Object.values(s.labels)));
    expect(values.filter((v) => /\.test|http|:\/\//.test(v))).toEqual([]);
  });
});

describe('while a run is in progress, then its alerts', () => {
  let release: () => void = () => {};
  let runId: number;
  let during: Scrape;
  let after: Scrape;

  beforeAll(async () => {
    const held = new Promise<void>((resolve) => (release = resolve));
    // m-ok answers only when released: the run stays in progress with one fetch in flight.
    p.web.set('m-ok.test', (_req, res) => {
      void held.then(() => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(EVERYTHING_BLOCKED);
      });
    });
    const started = await p.cli(['audit', '--at', NIGHT_2]);
    expect(started.code, started.stderr).toBe(0);
    runId = await runIdOf(started);
    await eventually(async () => (await p.rt.repos.changes.runProgress(runId)).done === 2 && p.web.inFlight('m-ok.test') === 1, 'two nights stored, one fetch held');
    during = await scrape();
    release();
    await eventually(async () => (await p.rt.repos.runs.getRun(runId))?.status === 'completed', 'the run to complete');
    await settleDeliveries(p);
    after = await scrape();
  });
  afterAll(() => release());

  it('run progress of the run in progress: 3 planned, 2 done, none skipped or failed', () => {
    const run_id = String(runId);
    expect(during.value('robots_audit_run_sites', { run_id, state: 'planned' })).toBe(3);
    expect(during.value('robots_audit_run_sites', { run_id, state: 'done' })).toBe(2);
    expect(during.value('robots_audit_run_sites', { run_id, state: 'skipped' })).toBe(0);
    expect(during.value('robots_audit_run_sites', { run_id, state: 'failed' })).toBe(0);
  });

  it('the held fetch is in flight, out of the process\'s slots', () => {
    expect(during.value('robots_audit_fetches_in_flight')).toBe(1);
    expect(during.value('robots_audit_fetch_slots')).toBe(p.config.ROBOTS_AUDIT_FETCH_CONCURRENCY);
    expect(during.value('robots_audit_large_bodies_waiting')).toBe(0);
  });

  it('once it ended: its series are gone, seven fetches (m-ok changed: confirmed by a second) and six nights in all', () => {
    expect(after.samples('robots_audit_run_sites', { run_id: String(runId) })).toEqual([]);
    expect(after.sum('robots_audit_fetches_total')).toBe(7);
    expect(after.value('robots_audit_nights_stored_total')).toBe(6);
    expect(after.value('robots_audit_fetches_in_flight')).toBe(0);
  });

  it('alert deliveries by result match the deliveries table (the receiver failed the first try)', async () => {
    const [table] = await rows<{ delivered: number; attempts: number }>(
      p,
      "select count(*) filter (where status = 'delivered')::int as delivered, sum(attempts)::int as attempts from alert_deliveries",
    );
    expect(table!.delivered).toBeGreaterThan(0);
    expect(after.value('robots_audit_alert_deliveries_total', { result: 'delivered' })).toBe(table!.delivered);
    expect(after.value('robots_audit_alert_deliveries_total', { result: 'retried' })).toBe(table!.attempts - table!.delivered);
    expect(after.value('robots_audit_alert_deliveries_total', { result: 'retried' })).toBe(1);
    expect(after.value('robots_audit_jobs_total', { queue: 'alerts', result: 'completed' })).toBe(table!.delivered);
    expect(after.value('robots_audit_jobs_total', { queue: 'alerts', result: 'retried' })).toBe(1);
  });
});

describe('a job that fails for good', () => {
  it('is counted failed, not retried; its delivery too', async () => {
    const before = await scrape();
    // A payload no processor accepts: UnrecoverableError, no retry.
    await p.rt.queues.alerts.add(JOBS.deliverAlert, { deliveryId: 'not-a-number' }, { jobId: 'deliver-metrics-bogus' });
    await eventually(async () => ((await p.rt.queues.alerts.getJobCounts('failed')).failed ?? 0) === 1, 'the bogus job to fail');
    const m = await scrape();
    const delta = (name: string, labels: Record<string, string>) => m.sum(name, labels) - before.sum(name, labels);
    expect(delta('robots_audit_jobs_total', { queue: 'alerts', result: 'failed' })).toBe(1);
    expect(delta('robots_audit_jobs_total', { queue: 'alerts', result: 'retried' })).toBe(0);
    expect(delta('robots_audit_alert_deliveries_total', { result: 'failed' })).toBe(1);
    expect(m.value('robots_audit_queue_jobs', { queue: 'alerts', state: 'failed' })).toBe(1);
  });
});
