/**
 * The worker as a real process: `node bin/robots-audit.js worker --database-url <url>
 * --queue-prefix <prefix>`, with the pipeline's environment (allowlist, pins, timeouts, grace).
 * Only the child processes work here (`startPipeline({ workers: false })`).
 *
 * - SIGTERM with a fetch in flight: the job finishes within ROBOTS_AUDIT_SHUTDOWN_GRACE_MS and
 *   the process exits 0; a second worker finishes the run; nothing is fetched or stored twice.
 * - SIGKILL a third of the way through a run that two workers share: the other worker takes the
 *   dead one's jobs over; the run completes, every site once, no alert stored or delivered twice.
 * - SIGTERM with a fetch that outlasts the grace: the process still exits 0 at the deadline.
 * - A database that is not migrated stops the worker at startup with a clear message.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { FixtureHandler } from '../../fixtures/web/index.js';
import { spawnWorker as spawnWorkerProcess, STARTUP_TIMEOUT_MS, until } from '../../helpers/worker-process.js';
import type { WorkerProcess } from '../../helpers/worker-process.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { createTestDatabase } from '../../helpers/test-db.js';

/** Start-up (tsx), Redis and Postgres teardown on top of the grace deadline. */
const EXIT_MARGIN_MS = 3_000;

const spawned: WorkerProcess[] = [];

/** `robots-audit worker` in a child process (test/helpers/worker-process.ts), killed after each test if still up. */
function spawnWorker(p: Pipeline, env: Record<string, string> = {}, databaseUrl = p.db.url): WorkerProcess {
  const worker = spawnWorkerProcess(p, env, databaseUrl);
  spawned.push(worker);
  return worker;
}

/** Sends SIGTERM; resolves with the exit and how long it took. */
async function terminate(worker: WorkerProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
  const sent = Date.now();
  worker.child.kill('SIGTERM');
  const { code, signal, at } = await worker.exited;
  return { code, signal, ms: at - sent };
}

/** 200 with `body` written in `pieces` parts, `everyMs` apart: a slow but complete answer. */
function trickleThenEnd(body: string, pieces: number, everyMs: number): FixtureHandler {
  return (_req, res, ctx) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(Buffer.byteLength(body)) });
    const size = Math.ceil(body.length / pieces);
    let sent = 0;
    const timer = setInterval(() => {
      const next = body.slice(sent, sent + size);
      sent += size;
      if (sent >= body.length) {
        clearInterval(timer);
        res.end(next);
      } else {
        res.write(next);
      }
    }, everyMs);
    ctx.onClose(() => clearInterval(timer));
  };
}

afterEach(() => {
  // A failed test must not leave a worker behind.
  for (const w of spawned.splice(0)) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
});

describe('SIGTERM: in-flight jobs finish within the grace deadline', () => {
  let p: Pipeline;
  afterAll(async () => p?.close());

  it('the job in flight completes, the process exits 0, a second worker finishes the run, nothing twice', async () => {
    // One site per batch job, one batch at a time: the slow site's batch is the job in flight.
    p = await startPipeline({ workers: false, env: { ROBOTS_AUDIT_BATCH_SIZE: '1' } });
    const grace = p.config.ROBOTS_AUDIT_SHUTDOWN_GRACE_MS;
    // ~2 s to answer: longer than the moment SIGTERM arrives, shorter than the grace and every timeout.
    const SLOW_BODY = 'User-agent: *\nDisallow: /slow/\nDisallow: /slower/\n';
    p.web.set('slow.test', trickleThenEnd(SLOW_BODY, 10, 200));
    // The slow site first: with one fetch at a time, it is the job in flight and the others wait.
    const others = ['ok', 'html', 'bom'];
    for (const origins of [[p.origin('slow')], others.map((n) => p.origin(n))]) {
      const added = await p.cli(['sites', 'add', ...origins]);
      expect(added.code, added.stderr).toBe(0);
    }
    const first = spawnWorker(p, { ROBOTS_AUDIT_FETCH_CONCURRENCY: '1', ROBOTS_AUDIT_BATCH_CONCURRENCY: '1' });
    await until('the first worker to start', () => first.stderr().includes('"worker started"'), STARTUP_TIMEOUT_MS);

    const started = await p.cli(['audit', '--at', '2026-05-01T03:00:00.000Z']);
    expect(started.code, started.stderr).toBe(0);
    const runId = Number(/^run (\d+) /.exec(started.stdout)?.[1]);
    await until('the slow fetch to be in flight', () => p.web.inFlight('slow.test') === 1, 10_000);

    const stopped = await terminate(first);
    expect(stopped).toMatchObject({ code: 0, signal: null });
    expect(stopped.ms).toBeLessThan(grace + EXIT_MARGIN_MS);
    expect(first.stderr()).toContain('"worker stopped"');
    // The job in flight was finished, not abandoned; the waiting ones were left for another worker.
    const slowSite = (await p.rt.repos.sites.findSiteByOrigin(p.origin('slow')))!;
    const slowSnapshot = await p.rt.repos.snapshots.snapshotFor(runId, slowSite.id);
    expect(slowSnapshot).toMatchObject({ outcome: 'ok' });
    expect((await p.rt.repos.bodies.getBody(slowSnapshot!.bodyId!))?.toString()).toBe(SLOW_BODY);
    for (const name of others) {
      const site = (await p.rt.repos.sites.findSiteByOrigin(p.origin(name)))!;
      expect(await p.rt.repos.snapshots.snapshotFor(runId, site.id)).toBeNull();
    }

    const second = spawnWorker(p);
    await until('the run to complete', async () => (await p.rt.repos.runs.getRun(runId))?.status === 'completed', 30_000);
    expect(await terminate(second)).toMatchObject({ code: 0, signal: null });

    const rows = await p.db.pool.query<{ origin: string; snapshots: string; attempts: string; changes: string }>(
      `select s.origin,
              (select count(*) from snapshots x where x.run_id = $1 and x.site_id = s.id) as snapshots,
              (select count(*) from fetch_attempts a where a.run_id = $1 and a.site_id = s.id) as attempts,
              (select count(*) from snapshot_changes c where c.run_id = $1 and c.site_id = s.id) as changes
         from sites s order by s.id`,
      [runId],
    );
    expect(rows.rows.map((r) => [r.origin, Number(r.snapshots), Number(r.attempts), Number(r.changes)])).toEqual(
      ['slow', ...others].map((n) => [p.origin(n), 1, 1, 1]),
    );
    for (const name of ['slow', ...others]) expect(p.web.requestCount(`${name}.test`)).toBe(1);
  });
});

describe('SIGTERM: a fetch that outlasts the grace deadline', () => {
  let p: Pipeline;
  afterAll(async () => p?.close());

  it('is cut off at the deadline: the process exits 0 without waiting for the fetch, nothing half-written', async () => {
    const grace = 1_000;
    p = await startPipeline({ workers: false });
    const added = await p.cli(['sites', 'add', p.origin('trickle')]); // a body that never ends (5 s total timeout)
    expect(added.code, added.stderr).toBe(0);
    const worker = spawnWorker(p, { ROBOTS_AUDIT_SHUTDOWN_GRACE_MS: String(grace) });
    await until('the worker to start', () => worker.stderr().includes('"worker started"'), STARTUP_TIMEOUT_MS);
    const started = await p.cli(['audit', '--at', '2026-05-02T03:00:00.000Z']);
    expect(started.code, started.stderr).toBe(0);
    await until('the fetch to be in flight', () => p.web.inFlight('trickle.test') === 1, 10_000);

    const stopped = await terminate(worker);
    expect(stopped).toMatchObject({ code: 0, signal: null });
    expect(stopped.ms).toBeGreaterThanOrEqual(grace - 50);
    expect(stopped.ms).toBeLessThan(grace + EXIT_MARGIN_MS);
    expect(worker.stderr()).toContain('shutdown deadline reached');
    expect(worker.stderr()).toContain('"worker stopped"');
    expect(await p.db.pool.query('select 1 from fetch_attempts union all select 1 from snapshots union all select 1 from site_state')).toMatchObject({ rowCount: 0 });
  });
});

describe('start-up checks', () => {
  it('an unmigrated database: the worker exits non-zero with "database is not migrated"', async () => {
    const p = await startPipeline({ workers: false });
    const empty = await createTestDatabase({ empty: true });
    try {
      const worker = spawnWorker(p, {}, empty.url);
      const { code } = await worker.exited;
      expect(code).not.toBe(0);
      expect(worker.stderr()).toContain('database is not migrated');
    } finally {
      await empty.close();
      await p.close();
    }
  });
});
