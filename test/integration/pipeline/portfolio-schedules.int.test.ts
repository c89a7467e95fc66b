/**
 * Portfolio schedules: the scheduler process (workers/scheduler.ts, in this process) keeps one
 * BullMQ job scheduler per portfolio with a schedule, beside the nightly one, and each firing
 * starts a run of that portfolio keyed by its firing time. Two portfolios share a site and fire
 * every two seconds, at the same seconds:
 *
 * - their runs never fetch the shared site at the same time (the per-host Redis lock), and all
 *   complete;
 * - a change of the shared site is alerted once, by whichever run stores the next night;
 * - a check that finds nothing changed stores one snapshot per site and updates its state,
 *   nothing else;
 * - a schedule added while the scheduler runs is taken up, one switched off is removed;
 * - the nightly job scheduler, lost with a Redis that restarted empty, is made again.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/env.js';
import { createLogger } from '../../../src/log/logger.js';
import { PORTFOLIO_SCHEDULER_PREFIX } from '../../../src/queues/portfolio-schedules.js';
import { runScheduler } from '../../../workers/scheduler.js';
import { addSites, eventually, rows, tableCounts } from '../../helpers/nightly.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';

/** Every two seconds (BullMQ reads a sixth, leading field as seconds). */
const EVERY_2_S = '*/2 * * * * *';
/** How long the shared site takes to answer: long enough for two runs' fetches to meet. */
const ANSWER_MS = 300;
const BODY_1 = 'User-agent: *\nDisallow: /private/\n';
const BODY_2 = 'User-agent: *\nDisallow: /private/\nDisallow: /drafts/\n';

let p: Pipeline;
const stop = new AbortController();
let scheduler: Promise<void>;
let body = BODY_1;
/** [start, end] of every request the shared site answered, milliseconds. */
const answered: [number, number][] = [];
let portfolioIds: Record<'east' | 'west', number>;
let sharedId: number;

type RunRow = {
  id: number;
  run_key: string;
  run_at: Date;
  status: string;
  portfolio: string;
  created_at: Date;
};

const runsOf = (portfolio?: string) =>
  rows<RunRow>(
    p,
    `select r.id, r.run_key, r.run_at, r.status::text, f.name as portfolio, r.created_at
       from audit_runs r join portfolios f on f.id = r.portfolio_id
      where $1::text is null or f.name = $1 order by r.id`,
    [portfolio ?? null],
  );

async function completedRunsAfter(portfolio: string, since: Date): Promise<number> {
  return (await runsOf(portfolio)).filter((r) => r.status === 'completed' && r.created_at > since).length;
}

async function schedule(args: string[]): Promise<void> {
  const run = await p.cli(['portfolios', 'schedule', ...args]);
  expect(run.code, run.stderr).toBe(0);
}

beforeAll(async () => {
  p = await startPipeline({
    env: {
      // The nightly schedule must not fire during the test.
      ROBOTS_AUDIT_SCHEDULE: '0 0 1 1 *',
      ROBOTS_AUDIT_SCHEDULE_SYNC_MS: '200',
      ROBOTS_AUDIT_HOST_BUSY_DELAY_MS: '20',
      // Generous fetch timeouts: on a loaded machine the shared site's answers must not time out
      // (a failure is a change of its own, alerted as such, which is not what is tested here).
      ROBOTS_AUDIT_HEADERS_TIMEOUT_MS: '10000',
      ROBOTS_AUDIT_BODY_TIMEOUT_MS: '10000',
      ROBOTS_AUDIT_TOTAL_TIMEOUT_MS: '15000',
    },
  });
  ({ shared: sharedId } = await addSites(p, ['shared', 'east-only'], 'east'));
  await addSites(p, ['shared'], 'west');
  const ids = await rows<{ id: number; name: string }>(p, 'select id, name from portfolios');
  portfolioIds = { east: ids.find((r) => r.name === 'east')!.id, west: ids.find((r) => r.name === 'west')!.id };
  p.web.set('east-only.test', { status: 200, body: BODY_1 });
  p.web.set('shared.test', (_req, res) => {
    const start = Date.now();
    setTimeout(() => {
      answered.push([start, Date.now()]);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(body);
    }, ANSWER_MS);
  });
  // East is scheduled before the scheduler starts (taken up at start), west while it runs.
  await schedule(['east', '--cron', EVERY_2_S]);
  const config = loadConfig({ ...p.env, ROBOTS_AUDIT_LOG_LEVEL: 'warn' });
  scheduler = runScheduler(config, createLogger('warn', new PassThrough().resume()), { signal: stop.signal });
  await eventually(async () => (await completedRunsAfter('east', new Date(0))) >= 1, 'a first run of east', 20_000);
  await schedule(['west', '--cron', EVERY_2_S, '--tz', 'Europe/Paris']);
}, 60_000);

afterAll(async () => {
  stop.abort();
  await scheduler;
  await p?.close();
});

describe('a schedule per portfolio', () => {
  it('one job scheduler per scheduled portfolio, beside the nightly one', async () => {
    await eventually(async () => (await p.rt.queues.runs.getJobSchedulers()).length === 3, 'the west job scheduler');
    const schedulers = await p.rt.queues.runs.getJobSchedulers();
    expect(schedulers.map((s) => [s.key, s.pattern, s.tz, s.template?.data]).sort()).toEqual(
      [
        ['nightly', '0 0 1 1 *', 'UTC', { portfolio: null }],
        [`${PORTFOLIO_SCHEDULER_PREFIX}${portfolioIds.east}`, EVERY_2_S, 'UTC', { portfolio: 'east', runPer: 'firing' }],
        [`${PORTFOLIO_SCHEDULER_PREFIX}${portfolioIds.west}`, EVERY_2_S, 'Europe/Paris', { portfolio: 'west', runPer: 'firing' }],
      ].sort(),
    );
  });

  it('the nightly job scheduler, lost (a Redis restarted without persistence), is made again at the next sync', async () => {
    expect(await p.rt.queues.runs.removeJobScheduler('nightly')).toBe(true);
    await eventually(async () => (await p.rt.queues.runs.getJobScheduler('nightly')) !== undefined, 'the nightly job scheduler again');
    expect(await p.rt.queues.runs.getJobScheduler('nightly')).toMatchObject({ key: 'nightly', pattern: '0 0 1 1 *', tz: 'UTC', template: { data: { portfolio: null } } });
  });

  it('each firing starts a run of its portfolio only, keyed by its firing time', async () => {
    await eventually(async () => (await completedRunsAfter('west', new Date(0))) >= 2, 'two runs of west', 20_000);
    const runs = await runsOf();
    for (const run of runs) {
      expect(run.run_key).toBe(`scheduled-${run.portfolio}-${run.run_at.toISOString()}`);
      // Firings on even seconds.
      expect(run.run_at.getTime() % 2000).toBe(0);
    }
    const sites = await rows<{ run_id: number; site_id: number }>(p, 'select run_id, site_id from snapshots');
    for (const run of runs.filter((r) => r.status === 'completed')) {
      const expected = run.portfolio === 'east' ? 2 : 1;
      expect(sites.filter((s) => s.run_id === run.id)).toHaveLength(expected);
    }
  });
});

describe('two schedules on one site', () => {
  let changedAt: Date;
  let before: Awaited<ReturnType<typeof tableCounts>>;
  let after: Awaited<ReturnType<typeof tableCounts>>;
  let between: RunRow[];

  beforeAll(async () => {
    changedAt = new Date();
    body = BODY_2;
    // The change is seen, then both schedules run again on the changed body.
    await eventually(async () => (await completedRunsAfter('east', changedAt)) >= 2 && (await completedRunsAfter('west', changedAt)) >= 2, 'both schedules to run on the change', 30_000);
    // Nothing changes from here on: what the next runs store is the price of an unchanged check.
    before = await tableCounts(p);
    const from = new Date();
    await eventually(async () => (await completedRunsAfter('east', from)) >= 2 && (await completedRunsAfter('west', from)) >= 2, 'more unchanged runs', 30_000);
    // Only completed runs are compared: stop the schedules and let the last runs end.
    await schedule(['east', '--off']);
    await schedule(['west', '--off']);
    await eventually(async () => (await p.rt.queues.runs.getJobSchedulers()).length === 1, 'the portfolio schedulers to go');
    await eventually(async () => (await runsOf()).every((r) => r.status === 'completed'), 'the last runs to complete');
    after = await tableCounts(p);
    between = (await runsOf()).filter((r) => r.created_at > from);
  }, 90_000);

  it('never fetched the shared site twice at once, and every run completed', async () => {
    expect(p.web.maxInFlight('shared.test')).toBe(1);
    const sorted = [...answered].sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]![0]).toBeGreaterThanOrEqual(sorted[i - 1]![1]);
    const runs = await runsOf();
    expect(runs.every((r) => r.status === 'completed')).toBe(true);
    // Both schedules fired at the same seconds: their runs met on the shared site.
    const eastTimes = new Set(runs.filter((r) => r.portfolio === 'east').map((r) => r.run_at.getTime()));
    expect(runs.some((r) => r.portfolio === 'west' && eastTimes.has(r.run_at.getTime()))).toBe(true);
    // One answer per night, plus the confirmation of the changed body (issue 18) by each run that
    // found it changed: one, or two when both schedules' runs met on it.
    const stored = (await rows(p, 'select 1 from snapshots where site_id = $1', [sharedId])).length;
    expect(answered.length - stored).toBeGreaterThanOrEqual(1);
    expect(answered.length - stored).toBeLessThanOrEqual(2);
  });

  it('the change is alerted once, by one run, whichever schedule stored the next night', async () => {
    const alerts = await rows<{ kind: string; run_id: number }>(p, 'select kind, run_id from alerts where site_id = $1 and created_at > $2', [sharedId, changedAt]);
    // The rules change: one alert, one change row, whatever the number of runs that saw the new body.
    expect(alerts.filter((a) => a.kind === 'rules_changed')).toHaveLength(1);
    const changes = await rows<{ run_id: number }>(
      p,
      "select run_id from snapshot_changes where site_id = $1 and 'rules' = any(kinds) and run_id in (select id from audit_runs where created_at > $2)",
      [sharedId, changedAt],
    );
    expect(changes).toEqual([{ run_id: alerts.find((a) => a.kind === 'rules_changed')!.run_id }]);
    // Nothing alerted twice: every alert of the change is the one run's.
    const ofTheChange = alerts.filter((a) => a.run_id === changes[0]!.run_id);
    expect(new Set(ofTheChange.map((a) => a.kind)).size).toBe(ofTheChange.length);
    expect(alerts.filter((a) => a.run_id !== changes[0]!.run_id && ofTheChange.some((c) => c.kind === a.kind))).toEqual([]);
  });

  it('an unchanged check stores one snapshot per site and run, and nothing else', async () => {
    const completed = between.length;
    expect(completed).toBeGreaterThanOrEqual(4);
    const nights = (await rows<{ n: number }>(p, 'select count(*)::int as n from snapshots where run_id = any($1)', [between.map((r) => r.id)]))[0]!.n;
    expect(nights).toBe(between.reduce((n, r) => n + (r.portfolio === 'east' ? 2 : 1), 0));
    const grew = Object.fromEntries(Object.entries(after).map(([table, n]) => [table, n - before[table as keyof typeof before]]).filter(([, d]) => d !== 0));
    expect(Object.keys(grew).sort()).toEqual(['audit_runs', 'snapshots']);
    // site_state: updated in place to the latest night (one row per site).
    const [state] = await rows<{ run_id: number }>(p, 'select run_id from site_state where site_id = $1', [sharedId]);
    const [latest] = await rows<{ run_id: number }>(p, 'select run_id from snapshots where site_id = $1 order by run_at desc, run_id desc limit 1', [sharedId]);
    expect(state!.run_id).toBe(latest!.run_id);
    expect(after.site_state).toBe(2);
  });

  it('a schedule switched off is removed: no run of it starts afterwards', async () => {
    const off = new Date();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await runsOf()).filter((r) => r.created_at > off)).toEqual([]);
    expect((await p.rt.queues.runs.getJobSchedulers()).map((s) => s.key)).toEqual(['nightly']);
  });
});
