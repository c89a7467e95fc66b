/**
 * Nightly pipeline, the scheduler: each firing of the BullMQ job scheduler on the runs queue
 * starts the run of its night, `nightly-YYYY-MM-DD` in the configured time zone. A second firing
 * for the same night finds that run and adds nothing: no run, no duplicate fetch job, no fetch.
 */
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS, jobIds } from '../../../src/queues/contracts.js';
import { runInputOfSchedulerJob, startPipelineWorkers } from '../../../src/services/pipeline-workers.js';
import type { PipelineWorkers } from '../../../src/services/pipeline-workers.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, eventually, hostOf, rows } from '../../helpers/nightly.js';

const ms = (iso: string) => new Date(iso).getTime();

describe('runInputOfSchedulerJob: a firing names its night', () => {
  it.each([
    ['UTC, 03:00', `repeat:nightly:${ms('2026-11-22T03:00:00Z')}`, 0, 'UTC', null, 'nightly-2026-11-22', '2026-11-22T03:00:00.000Z'],
    ['Europe/Berlin: 23:30 UTC is already the next day', `repeat:nightly:${ms('2026-11-22T23:30:00Z')}`, 0, 'Europe/Berlin', null, 'nightly-2026-11-23', '2026-11-22T23:30:00.000Z'],
    ['America/Los_Angeles: 03:00 UTC is still the day before', `repeat:nightly:${ms('2026-11-22T03:00:00Z')}`, 0, 'America/Los_Angeles', null, 'nightly-2026-11-21', '2026-11-22T03:00:00.000Z'],
    ['a portfolio run is scoped by name', `repeat:clients:${ms('2026-11-22T03:00:00Z')}`, 0, 'UTC', 'clients', 'nightly-2026-11-22-clients', '2026-11-22T03:00:00.000Z'],
    ['an id without a firing time: the job timestamp', 'start-by-hand', ms('2026-11-24T03:00:00Z'), 'UTC', null, 'nightly-2026-11-24', '2026-11-24T03:00:00.000Z'],
  ])('%s', (_name, id, timestamp, timeZone, portfolio, runKey, runAt) => {
    const input = runInputOfSchedulerJob({ id, timestamp, data: { portfolio } }, timeZone);
    expect(input).toEqual({ runKey, trigger: 'scheduled', runAt: new Date(runAt), portfolio });
  });

  it.each([
    ['a portfolio schedule: one run per firing time', `repeat:portfolio-7:${ms('2026-11-22T03:15:00Z')}`, 'clients', 'scheduled-clients-2026-11-22T03:15:00.000Z'],
    ['the next firing, fifteen minutes later, is another run', `repeat:portfolio-7:${ms('2026-11-22T03:30:00Z')}`, 'clients', 'scheduled-clients-2026-11-22T03:30:00.000Z'],
    ['seconds count (a cron with six fields)', `repeat:portfolio-7:${ms('2026-11-22T03:30:02Z')}`, 'clients', 'scheduled-clients-2026-11-22T03:30:02.000Z'],
  ])('%s', (_name, id, portfolio, runKey) => {
    const input = runInputOfSchedulerJob({ id, timestamp: 0, data: { portfolio, runPer: 'firing' } }, 'Europe/Paris');
    expect(input).toMatchObject({ runKey, trigger: 'scheduled', portfolio });
    expect(input.runAt.toISOString()).toBe(runKey.slice('scheduled-clients-'.length));
  });
});

describe('the nightly job scheduler: one run per night', () => {
  let p: Pipeline;
  let runsWorker: PipelineWorkers | null = null;
  let sites: Record<string, number>;
  const firings: { id: string; result: { runId: number; created: boolean; enqueued: number } }[] = [];

  beforeAll(async () => {
    // No fetch worker yet: the fetch jobs a firing adds stay in the queue, to be counted.
    p = await startPipeline({ workers: false });
    sites = await addSites(p, ['one', 'two']);
    for (const name of ['one', 'two']) p.web.set(hostOf(name), { status: 200, body: 'User-agent: *\nDisallow: /private/\n' });
    runsWorker = startPipelineWorkers(p.rt, ['runs']);
    runsWorker.workers[0]!.on('completed', (job: Job, result) => firings.push({ id: job.id!, result }));
    await p.rt.queues.runs.upsertJobScheduler('test', { every: 1000 }, { name: JOBS.startRun, data: { portfolio: null } });
    try {
      await eventually(async () => firings.length >= 2, 'two scheduler firings', 10_000);
    } finally {
      await p.rt.queues.runs.removeJobScheduler('test');
      await runsWorker.close(1_000);
      runsWorker = null;
    }
  });
  afterAll(async () => {
    await runsWorker?.close(1_000);
    await p?.close();
  });

  it('creates the run of the night, nightly-YYYY-MM-DD, scheduled, with every enabled site', async () => {
    const runs = await rows<{ id: number; run_key: string; trigger: string; run_at: Date; sites_total: number }>(
      p,
      'select id, run_key, trigger::text, run_at, sites_total from audit_runs order by id',
    );
    // Two firings a second apart are the same night, unless they straddle midnight (UTC).
    const nights = new Set(firings.map((f) => runInputOfSchedulerJob({ id: f.id, timestamp: 0, data: { portfolio: null } }, 'UTC').runKey));
    expect(runs.map((r) => r.run_key).sort()).toEqual([...nights].sort());
    for (const run of runs) {
      expect(run.run_key).toBe(`nightly-${run.run_at.toISOString().slice(0, 10)}`);
      expect(run).toMatchObject({ trigger: 'scheduled', sites_total: 2 });
    }
  });

  it('a second firing for the same night finds that run: created once, the same run id', () => {
    const byRun = new Map<number, boolean[]>();
    for (const f of firings) byRun.set(f.result.runId, [...(byRun.get(f.result.runId) ?? []), f.result.created]);
    expect([...byRun.values()].some((created) => created.length >= 2)).toBe(true);
    for (const created of byRun.values()) expect(created).toEqual([true, ...Array(created.length - 1).fill(false)]);
  });

  it('enqueues each batch job once, whatever the number of firings (two sites: one batch a run)', async () => {
    const jobs = await p.rt.queues.fetch.getJobs(['waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed']);
    const runs = await rows<{ id: number }>(p, 'select id from audit_runs');
    const expected = runs.map((r) => jobIds.fetchSites({ runId: r.id, batch: 0 }));
    expect(jobs.map((j) => j.id).sort()).toEqual(expected.sort());
    for (const job of jobs) expect([...job.data.siteIds].sort()).toEqual(Object.values(sites).sort());
  });

  it('once the night is done, another firing for it fetches nothing and writes nothing', async () => {
    const workers = startPipelineWorkers(p.rt, ['fetch', 'site']);
    try {
      await eventually(async () => {
        const [open] = await rows<{ n: string }>(p, "select count(*) as n from audit_runs where status <> 'completed'");
        return Number(open!.n) === 0;
      }, 'the scheduled runs to complete');
      const [firing] = firings;
      const runs = await rows<{ n: string }>(p, 'select count(*) as n from audit_runs');
      const [attempts] = await rows<{ n: string }>(p, 'select count(*) as n from fetch_attempts');
      const fetches = p.web.requestCount();

      const again = await p.rt.lifecycle.startRun(runInputOfSchedulerJob({ id: firing!.id, timestamp: 0, data: { portfolio: null } }, 'UTC'));
      expect(again).toMatchObject({ created: false, enqueued: 0, run: { id: firing!.result.runId, status: 'completed' } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await rows(p, 'select count(*) as n from audit_runs')).toEqual(runs);
      expect(await rows(p, 'select count(*) as n from fetch_attempts')).toEqual([attempts]);
      expect(p.web.requestCount()).toBe(fetches);
    } finally {
      await workers.close(1_000);
    }
  });
});
