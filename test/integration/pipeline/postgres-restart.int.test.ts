/**
 * Postgres drops every connection in the middle of a night (a restart, a failover): the jobs
 * that were writing fail, their transactions roll back, and the queues retry them. The run
 * still completes, with every site exactly once and nothing half-written.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, defaultAgentCount, eventually, runRowsPerSite } from '../../helpers/nightly.js';

let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline();
});
afterAll(async () => p?.close());

/**
 * Makes writes wait, then ends every connection to the database but its own, as a server
 * restart would: a lock on `snapshots` and `verdicts` holds the fetch and diff transactions
 * that reach them, so that they are cut off in the middle, not between two queries.
 * Returns how many backends were waiting on the lock and how many were ended.
 */
async function dropConnectionsMidWrite(url: string, database: string): Promise<{ waiting: number; ended: number }> {
  const locker = new pg.Client({ connectionString: url });
  locker.on('error', () => {});
  await locker.connect();
  try {
    await lockWithoutWaiting(locker);
    let waiting = 0;
    const deadline = Date.now() + 10_000;
    while (waiting < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const r = await locker.query<{ n: string }>("select count(*) as n from pg_stat_activity where datname = $1 and wait_event_type = 'Lock'", [database]);
      waiting = Number(r.rows[0]!.n);
    }
    const ended = await locker.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [database]);
    await locker.query('rollback');
    return { waiting, ended: ended.rowCount ?? 0 };
  } finally {
    await locker.end();
  }
}

/**
 * Takes the lock on `snapshots` and `verdicts` in a transaction, never waiting for it: a diff
 * transaction holding `verdicts` and asking for `snapshots` while this one held `snapshots` and
 * asked for `verdicts` would be a deadlock, which Postgres ends by aborting one of the two.
 * With NOWAIT a busy table fails the attempt at once; it is rolled back and tried again.
 */
async function lockWithoutWaiting(client: pg.Client): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    await client.query('begin');
    try {
      await client.query('lock table snapshots, verdicts in share row exclusive mode nowait');
      return;
    } catch (error) {
      await client.query('rollback');
      // 55P03: lock_not_available.
      if ((error as { code?: string }).code !== '55P03' || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

describe('Postgres connections dropped while a run goes on', () => {
  it('the run completes: one snapshot, one diff and one set of verdicts per site; no attempt twice', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `pg${i}`);
    // Slow answers keep the run going while the connections are dropped.
    for (const n of names) {
      p.web.set(`${n}.test`, (_req, res) => {
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end(`User-agent: *\nDisallow: /${n}/\n`);
        }, 150);
      });
    }
    const sites = await addSites(p, names);
    const { run } = await p.rt.lifecycle.startRun({ runKey: 'pg-restart', trigger: 'manual', runAt: new Date('2026-07-01T03:00:00Z'), portfolio: null });
    await eventually(async () => (await p.rt.repos.changes.runProgress(run.id)).snapshots >= 1, 'the first snapshot', 15_000);
    expect((await p.rt.repos.runs.getRun(run.id))!.status).toBe('running');

    const dropped = await dropConnectionsMidWrite(p.db.url, p.db.name);
    expect(dropped.waiting).toBeGreaterThanOrEqual(2);
    expect(dropped.ended).toBeGreaterThanOrEqual(dropped.waiting);

    // Retries wait for the queues' backoff (5 s for a fetch whose write failed).
    await eventually(async () => (await p.rt.repos.runs.getRun(run.id))?.status === 'completed', 'the run to complete', 60_000, 200);
    const ids = Object.values(sites);
    const agents = await defaultAgentCount(p);
    expect(await runRowsPerSite(p, run.id, ids)).toEqual(ids.map(() => [1, 1, 1, agents]));
    const finished = (await p.rt.repos.runs.getRun(run.id))!;
    expect(finished.sitesDiffed).toBe(names.length);
    expect(finished.counts.outcome).toEqual({ ok: names.length });
  });
});
