/**
 * A worker killed with SIGKILL a third of the way through a run that two worker processes share
 * (house style: restartable at any line). BullMQ finds the dead worker's jobs stalled once their
 * locks expire and hands them to the other worker; the night store is idempotent. The run must
 * complete with every site exactly once, every verdict span once, and no alert stored twice or
 * delivered under two ids. A webhook the dead worker had sent but not yet recorded as delivered
 * is sent again with the same `webhook-id` (Standard Webhooks: receivers drop a repeated id), so
 * a receiver sees every alert once.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipelineWorkers } from '../../../src/services/pipeline-workers.js';
import { startWebhookReceiver } from '../../fixtures/webhook-receiver.js';
import type { WebhookReceiver } from '../../fixtures/webhook-receiver.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, defaultAgentCount, eventually, replayNight, rows, runRowsPerSite } from '../../helpers/nightly.js';
import { spawnWorker, stopWorker } from '../../helpers/worker-process.js';
import type { WorkerProcess } from '../../helpers/worker-process.js';

const SITES = 60;
const NIGHT_1 = '2026-09-01T03:00:00.000Z';
const NIGHT_2 = '2026-09-02T03:00:00.000Z';
const BEFORE = 'User-agent: *\nDisallow: /private/\n';
/** Night 2: every site blocks GPTBot and drops a rule: rules_changed and ai_access_changed. */
const AFTER = 'User-agent: *\nDisallow: /private/\nDisallow: /tmp/\n\nUser-agent: GPTBot\nDisallow: /\n';

let p: Pipeline;
let receiver: WebhookReceiver;
let siteIds: number[];
const names = Array.from({ length: SITES }, (_, i) => `k${i}`);
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  // Jobs of a dead worker go to the other one within about twice the lock (2 s).
  p = await startPipeline({ workers: false, env: { ROBOTS_AUDIT_JOB_LOCK_MS: '2000', ROBOTS_AUDIT_BATCH_SIZE: '5' } });
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  receiver = await startWebhookReceiver({ secret });
  const added = await p.cli(['alerts', 'add', receiver.url, '--secret', secret, '--min-severity', 'info']);
  expect(added.code, added.stderr).toBe(0);
  siteIds = Object.values(await addSites(p, names));
  // Night 1, the baseline, with the in-process workers.
  const inProcess = startPipelineWorkers(p.rt);
  try {
    await replayNight(p, NIGHT_1, Object.fromEntries(names.map((n) => [n, BEFORE])));
  } finally {
    await inProcess.close(2_000);
  }
}, 60_000);

afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  await p?.close();
  await receiver?.close();
});

describe('SIGKILL a third of the way in, two workers sharing the run', () => {
  it('the run completes; every site once; no alert stored or delivered twice', async () => {
    // Answers spread over 0.1-0.5 s, four fetches at a time per worker: the night lasts seconds.
    names.forEach((n, i) => {
      p.web.set(`${n}.test`, (_req, res) => {
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end(AFTER), 100 + ((i * 37) % 400));
      });
    });
    const env = { ROBOTS_AUDIT_FETCH_CONCURRENCY: '4', ROBOTS_AUDIT_BATCH_CONCURRENCY: '2' };
    const doomed = spawnWorker(p, env);
    const survivor = spawnWorker(p, env);
    workers.push(doomed, survivor);
    await Promise.all([doomed.started(), survivor.started()]);

    const started = await p.cli(['audit', '--at', NIGHT_2]);
    expect(started.code, started.stderr).toBe(0);
    const runId = Number(/^run (\d+) /.exec(started.stdout)?.[1]);
    await eventually(async () => (await p.rt.repos.changes.runProgress(runId)).done >= SITES / 3, 'a third of the sites', 30_000, 10);
    doomed.child.kill('SIGKILL');
    expect((await doomed.exited).signal).toBe('SIGKILL');
    const doneAtKill = (await p.rt.repos.changes.runProgress(runId)).done;
    expect(doneAtKill).toBeLessThan(SITES);

    await eventually(async () => (await p.rt.repos.runs.getRun(runId))?.status === 'completed', 'the run to complete', 60_000, 100);
    await eventually(
      async () => Number((await rows<{ n: string }>(p, "select count(*) as n from alert_deliveries where status = 'pending'"))[0]!.n) === 0,
      'the deliveries',
      30_000,
    );
    await stopWorker(survivor);

    // Every site exactly once: one snapshot, one attempt, one verdict in force per URL x agent.
    const agents = await defaultAgentCount(p);
    expect(await runRowsPerSite(p, runId, siteIds)).toEqual(siteIds.map(() => [1, 1, agents]));
    const run = (await p.rt.repos.runs.getRun(runId))!;
    expect(run.sitesDone).toBe(SITES);
    expect(run.counts.outcome).toEqual({ ok: SITES });
    expect(run.counts.change).toEqual({ raw: SITES, rules: SITES });
    // Each site's GPTBot root verdict flipped once, and only one span of it is open.
    const [flips] = await rows<{ n: string }>(p, 'select count(*) as n from verdict_flips where run_id = $1', [runId]);
    expect(Number(flips!.n)).toBe(SITES);
    const [open] = await rows<{ n: string }>(
      p,
      `select count(*) as n from (select tracked_url_id, user_agent_id from verdicts where to_run_id is null group by 1, 2 having count(*) > 1) d`,
    );
    expect(Number(open!.n)).toBe(0);

    // The same two alerts for every site, each stored once and delivered once.
    const alerts = await rows<{ kind: string; n: string }>(p, 'select kind, count(*) as n from alerts where run_id = $1 group by kind order by kind', [runId]);
    expect(alerts.map((a) => [a.kind, Number(a.n)])).toEqual([
      ['ai_access_changed', SITES],
      ['rules_changed', SITES],
    ]);
    const deliveries = await rows<{ status: string; n: string }>(
      p,
      'select d.status::text, count(*) as n from alert_deliveries d join alerts a on a.id = d.alert_id where a.run_id = $1 group by 1',
      [runId],
    );
    expect(deliveries.map((d) => [d.status, Number(d.n)])).toEqual([['delivered', 2 * SITES]]);
    const received = receiver.requests.filter((r) => r.status === 200);
    const byId = new Map<string, string[]>();
    for (const r of received) {
      const id = String(r.headers['webhook-id']);
      byId.set(id, [...(byId.get(id) ?? []), JSON.stringify((JSON.parse(r.body) as { data: unknown }).data)]);
    }
    expect(byId.size).toBe(2 * SITES);
    // Sent again only what was in flight when the worker died, and then as the same message.
    expect(received.length - byId.size).toBeLessThanOrEqual(p.config.ROBOTS_AUDIT_ALERT_CONCURRENCY);
    for (const bodies of byId.values()) expect(new Set(bodies).size).toBe(1);
    // A site whose fetch the kill cut off is asked again, never more: its baseline, then the changed
    // body and its confirmation (issue 18), both once more at most.
    for (const n of names) expect(p.web.requestCount(`${n}.test`)).toBeLessThanOrEqual(5);
  });
});
