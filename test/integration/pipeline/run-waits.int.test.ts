/**
 * Issue 26, item 5: a site that answers `503` with `Retry-After: 99999999999` held its whole run
 * for an hour, in silence. Now a wait past ROBOTS_AUDIT_RUN_HOLD_SECONDS holds that site only:
 * the run completes for the others (their nights, alerts and digest), the site is pending until
 * its retry (R-13: its Retry-After honoured up to ROBOTS_AUDIT_RETRY_AFTER_CAP), and every wait
 * is said (`audit --wait`, `stats`, the metrics, `history`). Its night comes with its retry, once;
 * its alerts go to the per-alert channels as always and, for digest channels, in a late digest of
 * the run that carries nothing else. A wait within the hold keeps the run waiting, as before.
 *
 * Real parts only: the fixture web on 127.0.0.1, Postgres, Redis, the workers in-process, the CLI.
 * The cap is 6 s and the hold 1 s, so the test waits seconds, not an hour.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatsReport } from '../../../src/cli/commands/stats.command.js';
import type { RunSummary } from '../../../src/cli/commands/audit.command.js';
import { createDb } from '../../../src/db/client.js';
import { createPipelineMetrics } from '../../../src/metrics/pipeline-metrics.js';
import { createDashboard } from '../../../src/web/server.js';
import { jobIds } from '../../../src/queues/contracts.js';
import { waitsNow } from '../../../src/services/pipeline-status.js';
import { startWebhookReceiver } from '../../fixtures/webhook-receiver.js';
import type { WebhookReceiver } from '../../fixtures/webhook-receiver.js';
import { addSites, alertsOf, eventually, rows, settleDeliveries, snapshotOf } from '../../helpers/nightly.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { parseScrape } from '../../helpers/prometheus.js';

const NIGHT_0 = '2026-10-01T03:00:00.000Z';
const NIGHT_1 = '2026-10-02T03:00:00.000Z';
const NIGHT_2 = '2026-10-03T03:00:00.000Z';
const BODY = 'User-agent: *\nDisallow: /private/\n';
const EVERYTHING_BLOCKED = 'User-agent: *\nDisallow: /\n';
/** The user's measurement: far past any cap. */
const HUGE_RETRY_AFTER = '99999999999';
/** Longer than WAIT_NOTICE_SECONDS (5 s): a wait `audit --wait` names. */
const RETRY_AFTER_CAP_SECONDS = 6;
const ORDINARY = ['w-a', 'w-b', 'w-c'] as const;

interface RunRow {
  id: number;
  status: string;
  sites_done: number;
  finished_at: Date | null;
  counts: { waiting?: Record<string, string>; pending?: Record<string, string>; late?: Record<string, string> };
}

interface DigestBody {
  type: string;
  data: { runId: string; late: boolean; pending: { origin: string; until: string }[]; alerts: { origin: string; kind: string }[] };
}

let p: Pipeline;
let digest: WebhookReceiver;
let perAlert: WebhookReceiver;
let ids: Record<(typeof ORDINARY)[number] | 'w-slow' | 'w-blip', number>;

/** Answers 503 with the given Retry-After to the first request, `body` to every later one. */
function failsOnceThen(retryAfter: string, body: string) {
  let requests = 0;
  return (_req: IncomingMessage, res: ServerResponse) => {
    requests += 1;
    const first = requests === 1;
    const text = first ? 'busy\n' : body;
    res.writeHead(first ? 503 : 200, { 'content-type': 'text/plain', 'content-length': String(Buffer.byteLength(text)), ...(first ? { 'retry-after': retryAfter } : {}) });
    res.end(text);
  };
}

async function runOf(at: string): Promise<RunRow> {
  const [run] = await rows<RunRow & Record<string, unknown>>(p, 'select id, status::text, sites_done, finished_at, counts from audit_runs where run_key = $1', [`at-${at}`]);
  return run!;
}

const digestBodies = () => digest.requests.map((r) => JSON.parse(r.body) as DigestBody);

beforeAll(async () => {
  p = await startPipeline({
    env: { ROBOTS_AUDIT_RETRY_AFTER_CAP: String(RETRY_AFTER_CAP_SECONDS), ROBOTS_AUDIT_RUN_HOLD_SECONDS: '1', ROBOTS_AUDIT_ALERT_BACKOFF_MS: '50' },
  });
  digest = await startWebhookReceiver();
  perAlert = await startWebhookReceiver();
  for (const [url, extra] of [
    [digest.url, ['--digest']],
    [perAlert.url, []],
  ] as const) {
    const added = await p.cli(['alerts', 'add', url, '--min-severity', 'info', ...extra]);
    expect(added.code, added.stderr).toBe(0);
  }
  ids = await addSites(p, [...ORDINARY, 'w-slow', 'w-blip']);
  for (const name of Object.keys(ids)) p.web.set(`${name}.test`, { status: 200, body: BODY });
  const baseline = await p.cli(['audit', '--wait', '--at', NIGHT_0]);
  expect(baseline.code, baseline.stderr).toBe(0);
});

afterAll(async () => {
  await p?.close();
  await digest?.close();
  await perAlert?.close();
});

describe("issue 26: a site's long wait holds that site only", () => {
  let night: { code: number; stdout: string; stderr: string };
  let run: RunRow;
  // Read while the site waits (its retry is due RETRY_AFTER_CAP_SECONDS after its failure).
  let again: RunSummary;
  let stats: StatsReport;
  let statsTable: string;
  let scrape: ReturnType<typeof parseScrape>;
  let historyWhileWaiting: string;
  let runsPage: string;
  let runPage: string;

  beforeAll(async () => {
    for (const name of ORDINARY) p.web.set(`${name}.test`, { status: 200, body: EVERYTHING_BLOCKED });
    p.web.set('w-slow.test', failsOnceThen(HUGE_RETRY_AFTER, EVERYTHING_BLOCKED));
    // Within the hold: a Retry-After of 0 is retried at once (MIN_RETRY_DELAY_MS), and the run waits for it.
    p.web.set('w-blip.test', failsOnceThen('0', BODY));
    night = await p.cli(['audit', '--wait', '--at', NIGHT_1]);
    run = await runOf(NIGHT_1);

    // The same night again: the run exists, completed; its summary says who is still to come.
    const repeated = await p.cli(['audit', '--wait', '--json', '--at', NIGHT_1]);
    expect(repeated.code, repeated.stderr).toBe(0);
    again = JSON.parse(repeated.stdout) as RunSummary;
    const json = await p.cli(['stats', '--json']);
    expect(json.code, json.stderr).toBe(0);
    stats = JSON.parse(json.stdout) as StatsReport;
    statsTable = (await p.cli(['stats'])).stdout;
    historyWhileWaiting = (await p.cli(['history', p.origin('w-slow')])).stdout;
    const metrics = createPipelineMetrics({ processMetrics: false });
    const idle = { inUse: 0, waiting: 0, size: 1 };
    metrics.observe({
      queueDepths: async () => [],
      runsInProgress: async () => [],
      waits: () => waitsNow(p.rt.db.pool, new Date()),
      fetchSlots: () => idle,
      largeBodySlots: () => idle,
    });
    scrape = parseScrape(await metrics.registry.metrics());
    const reader = createDb(p.db.url, { max: 2, readOnly: true });
    const app = await createDashboard({ pool: reader.pool, token: null, databaseName: 'test' });
    try {
      runsPage = (await app.inject({ method: 'GET', url: '/runs' })).body;
      runPage = (await app.inject({ method: 'GET', url: `/runs/${run.id}` })).body;
    } finally {
      await app.close();
      await reader.close();
    }
    // All of it before the retry came: what it says is what a user sees while the site waits.
    expect(await rows(p, 'select 1 from snapshots where run_id = $1 and site_id = $2', [run.id, ids['w-slow']])).toEqual([]);
  });

  it('the run completes for the other sites without waiting for the retry', async () => {
    expect(night.code, night.stderr + night.stdout).toBe(0);
    expect(run.status).toBe('completed');
    const until = new Date(run.counts.late![String(ids['w-slow'])]!);
    // It completed before the retry was due: it did not wait for it.
    expect(run.finished_at!.getTime()).toBeLessThan(until.getTime());
    expect(run.sites_done).toBe(4);
    for (const name of ORDINARY) expect((await snapshotOf(p, run.id, ids[name])).outcome).toBe('ok');
  });

  it('the waiting site is recorded on its run, pending until its retry, and late', () => {
    const slow = String(ids['w-slow']);
    expect(Object.keys(run.counts.waiting ?? {})).toEqual([slow]);
    expect(run.counts.pending).toEqual(run.counts.waiting);
    expect(run.counts.late).toEqual(run.counts.waiting);
    const until = new Date(run.counts.waiting![slow]!);
    // Retry-After 99999999999 capped at 3 s, counted from the failed attempt.
    expect(until.getTime() - run.finished_at!.getTime()).toBeLessThanOrEqual(RETRY_AFTER_CAP_SECONDS * 1000);
  });

  it('a wait within the hold keeps the run waiting: its night is stored before the run completed, and it is not late', async () => {
    const blip = await snapshotOf(p, run.id, ids['w-blip']);
    expect(blip).toMatchObject({ outcome: 'ok' });
    expect(run.counts.late?.[String(ids['w-blip'])]).toBeUndefined();
    const [attempts] = await rows<{ n: string }>(p, 'select count(*) as n from fetch_attempts where run_id = $1 and site_id = $2', [run.id, ids['w-blip']]);
    expect(Number(attempts!.n)).toBe(2);
  });

  it('audit --wait names the waiting site as it sees it, with until when and why, and ends saying it is pending', () => {
    const until = run.counts.waiting![String(ids['w-slow'])]!;
    const origin = p.origin('w-slow');
    expect(night.stdout).toContain(
      `waiting: ${origin} until ${until} (in `,
    );
    expect(night.stdout).toMatch(
      new RegExp(`waiting: .*w-slow.* \\(in \\d+s\\): 503 with Retry-After ${HUGE_RETRY_AFTER} s \\(capped at ${RETRY_AFTER_CAP_SECONDS} s\\); attempt 2 of 3 next; the run does not wait for it`),
    );
    expect(night.stdout).toMatch(/pending sites: +1, not waited for/);
    expect(night.stdout).toContain(`    ${origin} until ${until}: 503 with Retry-After ${HUGE_RETRY_AFTER} s`);
    // The blip's wait (100 ms) is too short to be worth a line.
    expect(night.stdout).not.toContain('w-blip');
  });

  it('audit --wait --json lists the pending site in its summary', () => {
    const until = run.counts.waiting![String(ids['w-slow'])];
    expect(again.run.status).toBe('completed');
    expect(again.pendingSites).toEqual([{ origin: p.origin('w-slow'), until, why: expect.stringContaining(`503 with Retry-After ${HUGE_RETRY_AFTER} s`) }]);
  });

  it('stats lists the waiting site with its due time, as pending', () => {
    const until = run.counts.waiting![String(ids['w-slow'])]!;
    expect(stats.waitingSites).toEqual({
      count: 1,
      pending: 1,
      latestUntil: until,
      soonest: [{ runId: run.id, runKey: `at-${NIGHT_1}`, origin: p.origin('w-slow'), until, pending: true, why: expect.stringContaining('attempt 2 of 3 next') }],
    });
    expect(statsTable).toContain(`sites waiting for a retry: 1, 1 pending (their run does not wait for them), the latest until ${until}`);
    expect(statsTable).toMatch(new RegExp(`${until.replace(/[.]/g, '\\.')} \\(in \\d+s\\) +http://w-slow\\.test:\\d+ +${run.id} +no +503 with Retry-After`));
  });

  it('history says its night is pending until its retry, the previous policy standing meanwhile', () => {
    const until = run.counts.waiting![String(ids['w-slow'])]!;
    expect(historyWhileWaiting).toContain(`pending until ${until}: the night of 2026-10-02 03:00Z (at-${NIGHT_1}) waits for its retry after 503, Retry-After: ${HUGE_RETRY_AFTER}`);
    expect(historyWhileWaiting).toContain('until then the policy of the night before stands');
  });

  it('the other sites alerts are stored and their digest says which site is pending and until when', async () => {
    for (const name of ORDINARY) expect((await alertsOf(p, run.id, ids[name])).length).toBeGreaterThan(0);
    expect(await alertsOf(p, run.id, ids['w-slow'])).toEqual([]);
    await eventually(async () => digest.requests.length >= 1, 'the run digest');
    const [first] = digestBodies();
    expect(first!.type).toBe('robots_audit.digest');
    expect(first!.data.late).toBe(false);
    expect(first!.data.pending).toEqual([{ origin: p.origin('w-slow'), until: run.counts.late![String(ids['w-slow'])] }]);
    expect(new Set(first!.data.alerts.map((a) => a.origin))).toEqual(new Set(ORDINARY.map((n) => p.origin(n))));
  });

  it("the dashboard's runs page shows the completed run's pending site, and the run's page when it is due and why", () => {
    expect(runsPage).toContain(`<a class="warn" href="/runs/${run.id}#waits"`);
    expect(runsPage).toContain('>1 pending</a>');
    const until = run.counts.waiting![String(ids['w-slow'])]!;
    expect(runPage).toContain('<h2 id="waits">Waiting for a retry</h2>');
    expect(runPage).toContain('The run did not wait for these sites');
    expect(runPage).toContain(`<time datetime="${until}">`);
    expect(runPage).toContain(`503, Retry-After: ${HUGE_RETRY_AFTER}`);
    expect(runPage).toContain('no: pending');
  });

  it('metrics: one site pending, none holding, the seconds until its retry', () => {
    expect(scrape.value('robots_audit_sites_waiting', { state: 'pending' })).toBe(1);
    expect(scrape.value('robots_audit_sites_waiting', { state: 'holding' })).toBe(0);
    expect(scrape.value('robots_audit_longest_wait_seconds')).toBeGreaterThan(0);
    expect(scrape.value('robots_audit_longest_wait_seconds')).toBeLessThanOrEqual(RETRY_AFTER_CAP_SECONDS);
  });

  it('its night is stored once when its retry comes, and the late digest carries its alerts only', async () => {
    await eventually(async () => (await rows(p, 'select 1 from snapshots where run_id = $1 and site_id = $2', [run.id, ids['w-slow']])).length === 1, "the pending site's night", 15_000);
    await eventually(async () => digest.requests.length >= 2, 'the late digest');
    await settleDeliveries(p);
    const after = await runOf(NIGHT_1);
    expect(after).toMatchObject({ status: 'completed', sites_done: 5 });
    expect(after.counts.waiting).toBeUndefined();
    expect(after.counts.pending).toBeUndefined();
    expect(after.counts.late).toEqual(run.counts.late);
    expect(after.finished_at).toEqual(run.finished_at);

    const slow = await snapshotOf(p, run.id, ids['w-slow']);
    expect(slow).toMatchObject({ outcome: 'ok', policy: 'rules' });
    const attempts = await rows<{ attempt: number; status: number }>(p, 'select attempt, status from fetch_attempts where run_id = $1 and site_id = $2 order by attempt', [run.id, ids['w-slow']]);
    expect(attempts).toEqual([
      { attempt: 1, status: 503 },
      { attempt: 2, status: 200 },
    ]);
    const slowAlerts = await alertsOf(p, run.id, ids['w-slow']);
    expect(slowAlerts.length).toBeGreaterThan(0);

    const bodies = digestBodies();
    expect(bodies).toHaveLength(2);
    expect(bodies[1]!.data.late).toBe(true);
    expect(bodies[1]!.data.runId).toBe(String(run.id));
    expect(bodies[1]!.data.alerts.map((a) => a.kind).sort()).toEqual(slowAlerts.map((a) => a.kind).sort());
    expect(new Set(bodies[1]!.data.alerts.map((a) => a.origin))).toEqual(new Set([p.origin('w-slow')]));
    expect(digest.requests[1]!.headers['webhook-id']).toMatch(new RegExp(`^ch\\d+:run${run.id}:late-digest$`));

    // The per-alert channel got every alert of the run once, the late site's included.
    const [total] = await rows<{ n: string }>(p, 'select count(*) as n from alerts where run_id = $1', [run.id]);
    const ofRun = perAlert.requests.filter((r) => (JSON.parse(r.body) as { data: { runId: string } }).data.runId === String(run.id));
    expect(ofRun).toHaveLength(Number(total!.n));
    // Nothing delivered twice.
    const sent = [...digest.requests, ...perAlert.requests].map((r) => r.headers['webhook-id']);
    expect(new Set(sent).size).toBe(sent.length);
  });

  it("history shows the site's night in its place now, and no pending line", async () => {
    const history = await p.cli(['history', p.origin('w-slow')]);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).not.toContain('pending until');
  });

  it("the late site's job running twice stores nothing more and delivers nothing more", async () => {
    const before = await rows(p, 'select (select count(*) from snapshots where run_id = $1) as nights, (select count(*) from alert_deliveries) as deliveries', [run.id]);
    const outcome = await p.rt.nights.runSite(run.id, ids['w-slow'], 'a-second-try');
    expect(outcome).toEqual({ kind: 'already-stored' });
    await settleDeliveries(p);
    expect(await rows(p, 'select (select count(*) from snapshots where run_id = $1) as nights, (select count(*) from alert_deliveries) as deliveries', [run.id])).toEqual(before);
    expect(digest.requests).toHaveLength(2);
    expect((await runOf(NIGHT_1)).sites_done).toBe(5);
  });
});

describe('a pending site is never lost: reconcile of a completed run re-queues its lost job, due when its retry is', () => {
  it('its job deleted from Redis is queued again by reconcile, due when its retry is, and its night stored once', async () => {
    for (const name of ORDINARY) p.web.set(`${name}.test`, { status: 200, body: EVERYTHING_BLOCKED });
    p.web.set('w-blip.test', { status: 200, body: BODY });
    p.web.set('w-slow.test', failsOnceThen(HUGE_RETRY_AFTER, EVERYTHING_BLOCKED));
    p.web.resetCounters();
    const audit = await p.cli(['audit', '--wait', '--at', NIGHT_2]);
    expect(audit.code, audit.stderr).toBe(0);
    const run = await runOf(NIGHT_2);
    expect(run.status).toBe('completed');
    const slow = ids['w-slow'];
    const until = new Date(run.counts.waiting![String(slow)]!);

    // Redis forgets its job (delayed until its retry).
    const jobId = jobIds.fetchSite({ runId: run.id, siteId: slow });
    await eventually(async () => (await p.rt.queues.site.getJob(jobId)) !== undefined, 'the site job');
    await (await p.rt.queues.site.getJob(jobId))!.remove();
    expect((await p.rt.repos.runs.completedRunsWithWaits()).map((r) => r.id)).toContain(run.id);

    expect(await p.rt.lifecycle.reconcile(run.id)).toEqual({ sites: 1, failed: 0 });
    const requeued = await p.rt.queues.site.getJob(jobId);
    expect(requeued).toBeDefined();
    if (Date.now() < until.getTime() - 200) expect(await requeued!.getState()).toBe('delayed');
    // Reconciling again while the job waits adds nothing.
    expect(await p.rt.lifecycle.reconcile(run.id)).toEqual({ sites: 0, failed: 0 });

    await eventually(async () => (await rows(p, 'select 1 from snapshots where run_id = $1 and site_id = $2', [run.id, slow])).length === 1, "the pending site's night", 15_000);
    const retried = p.web.requests('w-slow.test').slice(1);
    // Honoured: not fetched again before its retry was due.
    for (const r of retried) expect(r.at.getTime()).toBeGreaterThanOrEqual(until.getTime() - 50);
    const after = await runOf(NIGHT_2);
    expect(after.counts.waiting).toBeUndefined();
    expect(after.sites_done).toBe(5);
    expect(await p.rt.lifecycle.reconcile(run.id)).toEqual({ sites: 0, failed: 0 });
    const [nights] = await rows<{ n: string }>(p, 'select count(*) as n from snapshots where run_id = $1 and site_id = $2', [run.id, slow]);
    expect(Number(nights!.n)).toBe(1);
  });
});

describe('a pending site removed while it waits', () => {
  it('is counted skipped when its retry comes, and leaves the waits of its completed run', async () => {
    const night3 = '2026-10-04T03:00:00.000Z';
    p.web.set('w-slow.test', failsOnceThen(HUGE_RETRY_AFTER, EVERYTHING_BLOCKED));
    const audit = await p.cli(['audit', '--wait', '--at', night3]);
    expect(audit.code, audit.stderr).toBe(0);
    const run = await runOf(night3);
    const slow = String(ids['w-slow']);
    expect(run).toMatchObject({ status: 'completed', counts: { late: { [slow]: expect.any(String) } } });
    const removed = await p.cli(['sites', 'remove', p.origin('w-slow')]);
    expect(removed.code, removed.stderr).toBe(0);
    await eventually(async () => (await runOf(night3)).counts.waiting === undefined, 'the removed site to leave the waits', 15_000);
    const after = await runOf(night3);
    expect(after.counts).toMatchObject({ skipped: { [slow]: 1 }, late: run.counts.late });
    expect(after.counts.pending).toBeUndefined();
    expect(after.sites_done).toBe(run.sites_done);
    expect(await p.rt.repos.runs.completedRunsWithWaits()).toEqual([]);
  });
});
