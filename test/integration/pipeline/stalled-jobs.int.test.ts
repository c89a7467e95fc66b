/**
 * Issue 17, item 1: a job whose process dies under it is isolated after the first time. A batch
 * that stalls once fails at once (BATCH_MAX_STALLS = 0) and each of its sites goes on in a site
 * job of its own, so a site that kills its worker never takes its batch-mates with it; a site job
 * that stalls past SITE_MAX_STALLS fails for good: its night is recorded as `night_failed`
 * (item 4: listed by `report failing`, alerted), and its run ends.
 *
 * "Dies" is SIGKILL of a real `robots-audit worker` while the job runs (a hanging site keeps it
 * running), as an out-of-memory kill would.
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

const MATES = ['mate0', 'mate1', 'mate2', 'mate3'];
const BODY = 'User-agent: *\nDisallow: /private/\n';

let p: Pipeline;
let inProcess: PipelineWorkers | undefined;
const spawned: WorkerProcess[] = [];
let siteIds: Record<string, number>;
/** Requests to the hanging site; its answer never comes while `hang` is set. */
let hang = true;

beforeAll(async () => {
  // A dead worker's job is seen stalled within about twice the lock (1 s); its host lock lasts
  // the total timeout and 5 s more, which the next worker waits out.
  p = await startPipeline({ workers: false, env: { ROBOTS_AUDIT_JOB_LOCK_MS: '1000', ROBOTS_AUDIT_TOTAL_TIMEOUT_MS: '3000' } });
  siteIds = await addSites(p, ['killer', ...MATES]);
  for (const m of MATES) p.web.set(`${m}.test`, { status: 200, body: BODY });
  p.web.set('killer.test', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!hang) res.writeHead(200, { 'content-type': 'text/plain' }).end(BODY);
  });
}, 60_000);

afterAll(async () => {
  for (const w of spawned) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  await inProcess?.close(2_000);
  await p?.close();
});

/**
 * Starts a worker process and kills it once the killer site's fetch is under way. Its site jobs
 * run several at once: a mate still storing its night when the killer's fetch starts dies with
 * the process too, but only once, since a site job that stalled before runs alone in its process
 * (alone-after-stall.int.test.ts).
 */
async function killWorkerDuringKillerFetch(): Promise<void> {
  const before = p.web.requestCount('killer.test');
  const w = spawnWorker(p, { ROBOTS_AUDIT_SITE_CONCURRENCY: '4' });
  spawned.push(w);
  await w.started();
  await eventually(async () => p.web.requestCount('killer.test') > before, 'the killer site to be fetched', 40_000);
  w.child.kill('SIGKILL');
  await w.exited;
}

describe('a job whose process dies', () => {
  it('a batch fails at its first stall; its sites go on one by one, the mates are stored, the killer gets a failed night', async () => {
    const started = await p.cli(['audit', '--at', '2026-11-01T03:00:00.000Z']);
    expect(started.code, started.stderr).toBe(0);
    const runId = Number(/^run (\d+) /.exec(started.stdout)?.[1]);

    // The batch's process dies; the next worker finds it stalled and fails it, handing its sites
    // over one by one; the killer's own site job then kills that worker, and the one after it.
    await killWorkerDuringKillerFetch();
    await killWorkerDuringKillerFetch();
    await killWorkerDuringKillerFetch();

    // A worker that lives: the mates' site jobs are stored; the killer's job fails for good at once.
    inProcess = startPipelineWorkers(p.rt);
    await eventually(async () => (await p.rt.repos.runs.getRun(runId))?.status === 'completed', 'the run to complete', 60_000, 100);

    const [batch] = await p.rt.queues.fetch.getJobs(['failed']);
    expect(batch?.failedReason).toMatch(/stalled/);
    const stored = await rows<{ site_id: number; outcome: string; error_code: string | null }>(
      p,
      'select site_id, outcome::text, error_code from snapshots where run_id = $1 order by site_id',
      [runId],
    );
    // Item 4: the killer's night is recorded as failed; the mates' nights are stored as usual.
    expect(stored).toEqual([
      { site_id: siteIds.killer, outcome: 'night_failed', error_code: 'NIGHT_FAILED' },
      ...MATES.map((m) => ({ site_id: siteIds[m], outcome: 'ok', error_code: null })),
    ]);
    const alerts = await rows<{ kind: string; severity: string }>(p, 'select kind, severity::text from alerts where run_id = $1 and site_id = $2', [runId, siteIds.killer]);
    expect(alerts).toEqual([{ kind: 'night_failed', severity: 'critical' }]);
    const failing = await p.cli(['report', 'failing', '--format', 'csv']);
    expect(failing.stdout).toMatch(/killer\.test.*night_failed/);
    expect(failing.stdout).not.toMatch(/mate/);
    const [killerJob] = (await p.rt.queues.site.getJobs(['failed'])).filter((j) => (j.data as { siteId: number }).siteId === siteIds.killer);
    expect(killerJob?.failedReason).toMatch(/stalled/);
    // Fetched once per process it killed, never by the worker that lives.
    expect(p.web.requestCount('killer.test')).toBe(3);
    hang = false;
  }, 120_000);
});
