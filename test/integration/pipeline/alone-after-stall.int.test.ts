/**
 * A site job that stalled before runs alone in its process (src/services/exclusive-gate.ts), so
 * that a site whose night kills its process does not take its process-mates' nights with it
 * twice. Here a killer site and three innocent ones are site jobs of one worker process (site
 * concurrency 4) when it dies: all four stall once. In the next process the killer dies again,
 * alone: only it reaches its second stall and gets a `night_failed` night; the innocents, which
 * shared its first death, end with ordinary nights and no alert. Without the gate the four run
 * together again, die together again, and all four get `night_failed`.
 *
 * "Dies" is SIGKILL of a real `robots-audit worker` while the killer's fetch is under way (it
 * never answers), as an out-of-memory kill would.
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipelineWorkers } from '../../../src/services/pipeline-workers.js';
import type { PipelineWorkers } from '../../../src/services/pipeline-workers.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, eventually, rows } from '../../helpers/nightly.js';
import { spawnWorker } from '../../helpers/worker-process.js';
import type { WorkerProcess } from '../../helpers/worker-process.js';

const INNOCENTS = ['innocent0', 'innocent1', 'innocent2'];
const BODY = 'User-agent: *\nDisallow: /private/\n';
/** Site jobs at once in each worker process: the four sites fit in one. */
const SITE_CONCURRENCY = '4';
/** How long an innocent site takes to answer once it answers: long enough to be under way when the killer's fetch starts beside it. */
const INNOCENT_ANSWER_MS = 500;

let p: Pipeline;
let inProcess: PipelineWorkers | undefined;
const spawned: WorkerProcess[] = [];
let siteIds: Record<string, number>;
/** Until the first process is dead, the innocents hang too, so that all four are under way when it dies. */
let innocentsHang = true;
let killerHangs = true;

beforeAll(async () => {
  // A dead worker's job is seen stalled within about twice the lock (1 s). The batch hands its
  // sites to site jobs at its deadline (0.5 s). Host locks last twice the total timeout and 5 s
  // more, which the next process waits out.
  p = await startPipeline({
    workers: false,
    env: {
      ROBOTS_AUDIT_JOB_LOCK_MS: '1000',
      ROBOTS_AUDIT_BATCH_DEADLINE_MS: '500',
      ROBOTS_AUDIT_HEADERS_TIMEOUT_MS: '3000',
      ROBOTS_AUDIT_BODY_TIMEOUT_MS: '3000',
      ROBOTS_AUDIT_TOTAL_TIMEOUT_MS: '3000',
    },
  });
  siteIds = await addSites(p, ['killer', ...INNOCENTS]);
  for (const name of INNOCENTS) {
    p.web.set(`${name}.test`, (_req: http.IncomingMessage, res: http.ServerResponse) => {
      if (!innocentsHang) setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end(BODY), INNOCENT_ANSWER_MS);
    });
  }
  p.web.set('killer.test', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!killerHangs) res.writeHead(200, { 'content-type': 'text/plain' }).end(BODY);
  });
}, 60_000);

afterAll(async () => {
  for (const w of spawned) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  await inProcess?.close(2_000);
  await p?.close();
});

/** Starts a worker process and kills it once `fetched` says the sites it waits for are being fetched. */
async function killWorkerOnce(fetched: () => boolean, what: string): Promise<WorkerProcess> {
  const w = spawnWorker(p, { ROBOTS_AUDIT_SITE_CONCURRENCY: SITE_CONCURRENCY });
  spawned.push(w);
  await w.started();
  await eventually(async () => fetched(), what, 60_000);
  w.child.kill('SIGKILL');
  await w.exited;
  return w;
}

const requests = (name: string) => p.web.requestCount(`${name}.test`);

describe('a site job that stalled before runs alone in its process', () => {
  it('the innocents that shared the killer first death get ordinary nights; only the killer gets night_failed', async () => {
    const started = await p.cli(['audit', '--at', '2026-11-01T03:00:00.000Z']);
    expect(started.code, started.stderr).toBe(0);
    const runId = Number(/^run (\d+) /.exec(started.stdout)?.[1]);
    const sites = ['killer', ...INNOCENTS];

    // First death: the batch's fetches hang past its deadline, so each site goes on in a site job;
    // the four site jobs are under way together (each site asked a second time) when the process dies.
    await killWorkerOnce(() => sites.every((s) => requests(s) >= 2), 'the four site jobs to be fetching');
    expect(sites.map(requests)).toEqual([2, 2, 2, 2]);

    // Second death: the killer's fetch again, now in a process where it runs alone.
    innocentsHang = false;
    const second = await killWorkerOnce(() => requests('killer') >= 3, 'the killer to be fetched again');

    // A worker that lives: the innocents still to do are stored; the killer fails for good at once.
    inProcess = startPipelineWorkers(p.rt);
    await eventually(async () => (await p.rt.repos.runs.getRun(runId))?.status === 'completed', 'the run to complete', 60_000, 100);

    const stored = await rows<{ site_id: number; outcome: string; error_code: string | null }>(
      p,
      'select site_id, outcome::text, error_code from snapshots where run_id = $1 order by site_id',
      [runId],
    );
    expect(stored).toEqual([
      { site_id: siteIds.killer, outcome: 'night_failed', error_code: 'NIGHT_FAILED' },
      ...INNOCENTS.map((name) => ({ site_id: siteIds[name], outcome: 'ok', error_code: null })),
    ]);
    const failedAlerts = await rows<{ site_id: number; severity: string }>(
      p,
      "select site_id, severity::text from alerts where run_id = $1 and kind = 'night_failed' order by site_id",
      [runId],
    );
    expect(failedAlerts).toEqual([{ site_id: siteIds.killer, severity: 'critical' }]);

    // The innocents did share the killer's first death: each of their jobs stalled once, and no more.
    const innocentJobs = (await p.rt.queues.site.getJobs(['completed'])).filter((j) => (j.data as { siteId: number }).siteId !== siteIds.killer);
    expect(innocentJobs.map((j) => j.stalledCounter)).toEqual([1, 1, 1]);
    const [killerJob] = await p.rt.queues.site.getJobs(['failed']);
    expect((killerJob?.data as { siteId: number }).siteId).toBe(siteIds.killer);
    expect(killerJob?.failedReason).toMatch(/stalled/);
    // Fetched by the batch and by each process it killed, never by the worker that lives.
    expect(requests('killer')).toBe(3);
    expect(second.stderr()).toMatch(/"site job stalled before: it runs alone in its process"/);
    killerHangs = false;
  }, 150_000);
});
