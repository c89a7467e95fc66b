/**
 * Redis keeps only transient state: when queued jobs are lost (a Redis restart without
 * persistence), reconciling from Postgres finishes the run with nothing missing and nothing twice.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipelineWorkers } from '../../../src/services/pipeline-workers.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';

let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline({ workers: false });
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
  it('a run whose fetch and diff jobs vanished completes after reconcile, without duplicates', async () => {
    const names = ['l1', 'l2', 'l3', 'l4', 'l5'];
    for (const n of names) p.web.set(`${n}.test`, { status: 200, body: `User-agent: *\nDisallow: /${n}/\n` });
    expect((await p.cli(['sites', 'add', ...names.map((n) => p.origin(n))])).code).toBe(0);

    const { run } = await p.rt.lifecycle.startRun({ runKey: 'lost-1', trigger: 'manual', runAt: new Date('2026-05-01T03:00:00Z'), portfolio: null });
    expect(await p.rt.queues.fetch.getWaitingCount()).toBe(5);
    // Redis "restarts" and forgets every queued job.
    await p.rt.queues.fetch.obliterate({ force: true });
    expect(await p.rt.queues.fetch.getWaitingCount()).toBe(0);

    const workers = startPipelineWorkers(p.rt, ['fetch', 'diff', 'alerts']);
    try {
      expect(await p.rt.lifecycle.reconcile(run.id)).toEqual({ fetches: 5, diffs: 0 });
      // Reconciling again while the jobs exist adds nothing (deterministic ids).
      await p.rt.lifecycle.reconcile(run.id);
      await waitFor(async () => (await p.rt.repos.runs.getRun(run.id))!.status === 'completed');
    } finally {
      await workers.close(2_000);
    }
    expect(await count('snapshots', run.id)).toBe(5);
    expect(await count('fetch_attempts', run.id)).toBe(5);
    expect(await count('verdicts', run.id)).toBeGreaterThan(0);
    expect(p.web.requestCount()).toBe(5);
  });

  it('a snapshot whose diff job vanished is diffed after reconcile', async () => {
    p.web.set('d1.test', { status: 200, body: 'User-agent: *\nDisallow: /x\n' });
    await p.cli(['sites', 'add', p.origin('d1')]);
    const { run } = await p.rt.lifecycle.startRun({ runKey: 'lost-2', trigger: 'manual', runAt: new Date('2026-05-02T03:00:00Z'), portfolio: null });
    const fetchOnly = startPipelineWorkers(p.rt, ['fetch']);
    try {
      await waitFor(async () => (await p.rt.repos.changes.runProgress(run.id)).snapshots === run.sitesTotal);
    } finally {
      await fetchOnly.close(2_000);
    }
    await p.rt.queues.diff.obliterate({ force: true });
    expect((await p.rt.repos.runs.getRun(run.id))!.status).toBe('running');

    const workers = startPipelineWorkers(p.rt, ['diff', 'alerts']);
    try {
      const again = await p.rt.lifecycle.reconcile(run.id);
      expect(again.fetches).toBe(0);
      expect(again.diffs).toBe(run.sitesTotal);
      await waitFor(async () => (await p.rt.repos.runs.getRun(run.id))!.status === 'completed');
    } finally {
      await workers.close(2_000);
    }
    expect(await count('snapshots', run.id)).toBe(run.sitesTotal);
    expect(await count('fetch_attempts', run.id)).toBe(run.sitesTotal);
  });
});
