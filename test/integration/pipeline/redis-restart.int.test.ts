/**
 * Redis restarts in the middle of a night, without persistence: every queued job is gone and the
 * workers lose their connections for a while. Nothing crashes; once Redis is back, reconciling
 * from Postgres (what the scheduler does every minute) finishes the run, with every site once.
 * The test runs its own redis-server on a free port, so that killing it disturbs no other test.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../../fixtures/webhook-receiver.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, defaultAgentCount, eventually, runRowsPerSite } from '../../helpers/nightly.js';

/** A redis-server with no persistence on `port`, ready to answer. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {});
  try {
    await eventually(
      async () => {
        try {
          if (probe.status !== 'ready') await probe.connect();
          return (await probe.ping()) === 'PONG';
        } catch {
          probe.disconnect();
          return false;
        }
      },
      `redis-server on port ${port}`,
      10_000,
    );
  } finally {
    probe.disconnect();
  }
  return child;
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

let port = 0;
let redis: ChildProcess | undefined;
let p: Pipeline;

beforeAll(async () => {
  // A port nothing listens on, for this test's own redis-server.
  port = await closedPort();
  redis = await startRedis(port);
  // Two fetches at a time, one night per transaction: when Redis goes, most sites are not fetched yet.
  p = await startPipeline({ env: { REDIS_URL: `redis://127.0.0.1:${port}`, ROBOTS_AUDIT_FETCH_CONCURRENCY: '2', ROBOTS_AUDIT_WRITE_BATCH: '1' } });
});
afterAll(async () => {
  await p?.close();
  await stop(redis);
});

describe('Redis restarts mid-run and forgets every job', () => {
  it('no process crashes; after reconcile the run completes with one snapshot, attempt and verdict set per site', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `rr${i}`);
    // Answers spread over most of a second (under the test headers timeout) keep the run going across the restart.
    names.forEach((n, i) => {
      p.web.set(`${n}.test`, (_req, res) => {
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end(`User-agent: *\nDisallow: /${n}/\n`);
        }, 100 + 70 * i);
      });
    });
    const sites = await addSites(p, names);
    const { run } = await p.rt.lifecycle.startRun({ runKey: 'redis-restart', trigger: 'manual', runAt: new Date('2026-07-02T03:00:00Z'), portfolio: null });
    await eventually(async () => (await p.rt.repos.changes.runProgress(run.id)).done >= 2, 'the first snapshots', 15_000);

    await stop(redis);
    await new Promise((resolve) => setTimeout(resolve, 500));
    redis = await startRedis(port);
    // The new Redis knows no job: the sites still being fetched have lost theirs.
    const counts = await p.rt.queues.fetch.getJobCounts('waiting', 'active', 'delayed', 'completed');
    expect(Object.values(counts).every((n) => n === 0)).toBe(true);
    expect((await p.rt.repos.changes.runProgress(run.id)).done).toBeLessThan(names.length);

    // What the scheduler's loop does every minute, here every second until the run is over.
    await eventually(
      async () => {
        await p.rt.lifecycle.reconcile(run.id).catch(() => {});
        return (await p.rt.repos.runs.getRun(run.id))?.status === 'completed';
      },
      'the run to complete after reconcile',
      60_000,
      1_000,
    );
    const ids = Object.values(sites);
    const agents = await defaultAgentCount(p);
    expect(await runRowsPerSite(p, run.id, ids)).toEqual(ids.map(() => [1, 1, agents]));
    expect((await p.rt.repos.runs.getRun(run.id))!.sitesDone).toBe(names.length);
    // A site whose job was lost after its request may be asked again, never more.
    for (const n of names) expect(p.web.requestCount(`${n}.test`)).toBeLessThanOrEqual(2);
  });
});
