/**
 * Redis keeps only transient state: when queued jobs are lost (a Redis restart without
 * persistence), reconciling from Postgres finishes the run with nothing missing and nothing twice.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS, jobIds } from '../../../src/queues/contracts.js';
import { ALERT_DELIVERY_ATTEMPTS } from '../../../src/queues/queues.js';
import { reconcileDeliveries, startPipelineWorkers } from '../../../src/services/pipeline-workers.js';
import { startWebhookReceiver } from '../../fixtures/webhook-receiver.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, replayNight, rows, settleDeliveries } from '../../helpers/nightly.js';

let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline({ workers: false, env: { ROBOTS_AUDIT_ALERT_BACKOFF_MS: '20', ROBOTS_AUDIT_JOB_BACKOFF_MS: '20' } });
});
afterAll(async () => p?.close());

async function waitFor(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const count = async (table: string, runId: number) =>
  Number((await p.db.db.execute<{ n: string }>(sql.raw(`select count(*) as n from ${table} where run_id = ${runId}`))).rows[0]!.n);

describe('lost queue state is rebuilt from Postgres', () => {
  it('a run whose batch jobs vanished completes after reconcile, without duplicates', async () => {
    const names = ['l1', 'l2', 'l3', 'l4', 'l5'];
    for (const n of names) p.web.set(`${n}.test`, { status: 200, body: `User-agent: *\nDisallow: /${n}/\n` });
    expect((await p.cli(['sites', 'add', ...names.map((n) => p.origin(n))])).code).toBe(0);

    const { run } = await p.rt.lifecycle.startRun({ runKey: 'lost-1', trigger: 'manual', runAt: new Date('2026-05-01T03:00:00Z'), portfolio: null });
    // Five sites: one batch job.
    expect(await p.rt.queues.fetch.getWaitingCount()).toBe(1);
    // Redis "restarts" and forgets every queued job.
    await p.rt.queues.fetch.obliterate({ force: true });
    expect(await p.rt.queues.fetch.getWaitingCount()).toBe(0);

    const workers = startPipelineWorkers(p.rt);
    try {
      expect(await p.rt.lifecycle.reconcile(run.id)).toEqual({ sites: 5, failed: 0 });
      // Reconciling again while the jobs exist adds nothing (deterministic ids).
      await p.rt.lifecycle.reconcile(run.id);
      await waitFor(async () => (await p.rt.repos.runs.getRun(run.id))!.status === 'completed');
    } finally {
      await workers.close(2_000);
    }
    expect(await count('snapshots', run.id)).toBe(5);
    expect(await count('fetch_attempts', run.id)).toBe(5);
    const [spans] = await rows<{ n: string }>(p, 'select count(*) as n from verdicts where from_run_id = $1', [run.id]);
    expect(Number(spans!.n)).toBeGreaterThan(0);
    expect(p.web.requestCount()).toBe(5);
    expect((await p.rt.repos.runs.getRun(run.id))!.sitesDone).toBe(5);
  });
});

describe('a job that failed for good never stops its run from completing', () => {
  it('a site whose night Postgres refuses every time is counted as failed; the rest of its batch is stored; audit --wait says so', async () => {
    const names = ['f1', 'f2', 'f3'];
    for (const n of names) p.web.set(`${n}.test`, { status: 200, body: `User-agent: *\nDisallow: /${n}/\n` });
    const ids = await addSites(p, names, 'refused');
    // Postgres refuses the nights of f2 (a check that fails the same way on every try).
    await p.db.pool.query(`
      create function refuse_f2() returns trigger language plpgsql as $$
      begin if new.site_id = ${ids.f2} then raise exception 'refused for the test'; end if; return new; end $$;
      create trigger refuse_f2 before insert on snapshots for each row execute function refuse_f2();`);
    const workers = startPipelineWorkers(p.rt);
    try {
      const run = await p.cli(['audit', '--wait', '--at', '2026-05-03T03:00:00Z', '--portfolio', 'refused']);
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(run.stdout).toContain('completed');
      expect(run.stdout).toMatch(/failed sites: +1/);
      expect(run.stderr).toContain(`failed: ${p.origin('f2')}: refused for the test`);
    } finally {
      await workers.close(2_000);
      await p.db.pool.query('drop trigger refuse_f2 on snapshots; drop function refuse_f2();');
    }
    const [run] = await rows<{ id: number; status: string; sites_done: number; counts: { failed?: Record<string, number> } }>(
      p,
      "select id, status::text, sites_done, counts from audit_runs where run_key = 'at-2026-05-03T03:00:00.000Z-refused'",
    );
    expect(run).toMatchObject({ status: 'completed', sites_done: 2, counts: { failed: { [String(ids.f2)]: 1 } } });
    const stored = await rows<{ site_id: number }>(p, 'select site_id from snapshots where run_id = $1 order by site_id', [run!.id]);
    expect(stored.map((r) => r.site_id)).toEqual([ids.f1, ids.f3]);
  });
});

describe('lost delivery jobs are rebuilt from Postgres, also after the run completed', () => {
  it('a pending delivery without a job is queued again and delivered once; one whose retries are used up is marked failed', async () => {
    const receiver = await startWebhookReceiver();
    try {
      expect((await p.cli(['alerts', 'add', receiver.url, '--min-severity', 'info'])).code).toBe(0);
      await addSites(p, ['a1', 'a2']);
      // No alerts worker: the deliveries stay pending. The fetch and site workers are stopped
      // before Redis "restarts": a job ending after the run completed still queues them.
      const pipeline = startPipelineWorkers(p.rt, ['fetch', 'site']);
      let night;
      try {
        await replayNight(p, '2026-05-10T03:00:00Z', { a1: 'User-agent: *\nDisallow: /a\n', a2: 'User-agent: *\nDisallow: /b\n' });
        night = await replayNight(p, '2026-05-11T03:00:00Z', { a1: 'User-agent: *\nDisallow: /\n', a2: 'User-agent: *\nDisallow: /\n' });
      } finally {
        await pipeline.close(2_000);
      }
      const pending = await rows<{ id: number }>(p, "select id from alert_deliveries where status = 'pending' order by id");
      expect(pending.length).toBeGreaterThanOrEqual(2);
      // The run is over, and Redis "restarts": every queued delivery job is gone.
      expect((await p.rt.repos.runs.getRun(night.runId))!.status).toBe('completed');
      await p.rt.queues.alerts.obliterate({ force: true });
      // One delivery had already used up its retries when its job was lost.
      const [exhausted, ...rest] = pending.map((r) => Number(r.id));
      await p.db.pool.query('update alert_deliveries set attempts = $1 where id = $2', [ALERT_DELIVERY_ATTEMPTS, exhausted]);

      expect(await reconcileDeliveries(p.rt)).toEqual({ requeued: rest.length, retried: 0, givenUp: 1 });
      // Again while the jobs wait: nothing new.
      expect(await reconcileDeliveries(p.rt)).toEqual({ requeued: 0, retried: 0, givenUp: 0 });
      const alerts = startPipelineWorkers(p.rt, ['alerts']);
      try {
        await settleDeliveries(p);
      } finally {
        await alerts.close(2_000);
      }
      const after = await rows<{ id: number; status: string }>(p, 'select id, status::text from alert_deliveries where id = any($1) order by id', [pending.map((r) => r.id)]);
      expect(after).toEqual(pending.map((r) => ({ id: r.id, status: Number(r.id) === exhausted ? 'failed' : 'delivered' })));
      // Each re-queued delivery reached the receiver exactly once.
      const ids = receiver.requests.map((r) => r.headers['webhook-id']);
      expect(ids).toHaveLength(rest.length);
      expect(new Set(ids).size).toBe(rest.length);
      expect(await reconcileDeliveries(p.rt)).toEqual({ requeued: 0, retried: 0, givenUp: 0 });
    } finally {
      await receiver.close();
    }
  });

  it('a delivery whose job failed without the row being told is retried', async () => {
    // A receiver that is down: the job fails; the worker then dies before updating the row.
    const down = await startWebhookReceiver({ status: 503 });
    const up = await startWebhookReceiver();
    try {
      const [channel] = await rows<{ id: number }>(p, 'select id from alert_channels order by id limit 1');
      await p.db.pool.query('update alert_channels set url = $1 where id = $2', [down.url, channel!.id]);
      const [alert] = await rows<{ id: number }>(p, 'select id from alerts order by id limit 1');
      const [delivery] = await rows<{ id: number }>(
        p,
        "insert into alert_deliveries (channel_id, alert_id, dedupe_key) values ($1, $2, 'reconcile-test') returning id",
        [channel!.id, alert!.id],
      );
      const deliveryId = Number(delivery!.id);
      await p.rt.queues.alerts.add(JOBS.deliverAlert, { deliveryId }, { jobId: jobIds.deliverAlert({ deliveryId }), attempts: 1 });
      const alerts = startPipelineWorkers(p.rt, ['alerts']);
      try {
        const job = await p.rt.queues.alerts.getJob(jobIds.deliverAlert({ deliveryId }));
        const deadline = Date.now() + 10_000;
        while ((await job!.getState()) !== 'failed' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        expect(await job!.getState()).toBe('failed');
        // The failed handler gave the delivery up; undo that, as if the worker had died first.
        await p.db.pool.query("update alert_deliveries set status = 'pending', attempts = 1 where id = $1", [deliveryId]);
        await p.db.pool.query('update alert_channels set url = $1 where id = $2', [up.url, channel!.id]);
        expect(await reconcileDeliveries(p.rt)).toEqual({ requeued: 0, retried: 1, givenUp: 0 });
        await settleDeliveries(p);
      } finally {
        await alerts.close(2_000);
      }
      const [row] = await rows<{ status: string; attempts: number }>(p, 'select status::text, attempts from alert_deliveries where id = $1', [deliveryId]);
      expect(row).toEqual({ status: 'delivered', attempts: 2 });
      expect(up.requests.map((r) => r.headers['webhook-id'])).toEqual(['reconcile-test']);
    } finally {
      await down.close();
      await up.close();
    }
  });
});
