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
  // Nights are stored two at a time, so that a run of twelve sites writes in several transactions;
  // a job whose write failed is retried after 200 ms.
  p = await startPipeline({ env: { ROBOTS_AUDIT_WRITE_BATCH: '2', ROBOTS_AUDIT_JOB_BACKOFF_MS: '200' } });
});
afterAll(async () => p?.close());

/**
 * Makes writes wait, then ends every connection to the database but its own, as a server
 * restart would: a lock on `snapshots` and `verdicts` holds the transaction storing nights when
 * it reaches them, so that it is cut off in the middle, not between two queries.
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
    while (waiting < 1 && Date.now() < deadline) {
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
 * Takes the lock on `snapshots` and `verdicts` in a transaction, never waiting for it: a night
 * transaction holding `snapshots` and asking for `verdicts` while this one held `verdicts` and
 * asked for `snapshots` would be a deadlock, which Postgres ends by aborting one of the two.
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
  it('the run completes: one snapshot, one attempt and one set of verdicts per site; its counts once', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `pg${i}`);
    // Answers spread over time keep the run going while the connections are dropped.
    names.forEach((n, i) => {
      p.web.set(`${n}.test`, (_req, res) => {
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end(`User-agent: *\nDisallow: /${n}/\n`);
        }, 150 + 100 * i);
      });
    });
    const sites = await addSites(p, names);
    const { run } = await p.rt.lifecycle.startRun({ runKey: 'pg-restart', trigger: 'manual', runAt: new Date('2026-07-01T03:00:00Z'), portfolio: null });
    await eventually(async () => (await p.rt.repos.changes.runProgress(run.id)).done >= 1, 'the first night stored', 15_000, 10);
    expect((await p.rt.repos.runs.getRun(run.id))!.status).toBe('running');

    const dropped = await dropConnectionsMidWrite(p.db.url, p.db.name);
    expect(dropped.waiting).toBeGreaterThanOrEqual(1);
    expect(dropped.ended).toBeGreaterThanOrEqual(dropped.waiting);

    // The batch whose write failed is retried after the job backoff.
    await eventually(async () => (await p.rt.repos.runs.getRun(run.id))?.status === 'completed', 'the run to complete', 60_000, 200);
    const ids = Object.values(sites);
    const agents = await defaultAgentCount(p);
    expect(await runRowsPerSite(p, run.id, ids)).toEqual(ids.map(() => [1, 1, agents]));
    const finished = (await p.rt.repos.runs.getRun(run.id))!;
    expect(finished.sitesDone).toBe(names.length);
    expect(finished.counts.outcome).toEqual({ ok: names.length });
  });
});
