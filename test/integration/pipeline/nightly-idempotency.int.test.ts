/**
 * Nightly pipeline, habit 5: every write is idempotent. Replaying a night that already ran is
 * the same run and adds nothing: no fetch, no row in any nightly table, no webhook. A diff job
 * that runs again after a crash before its commit was recorded adds nothing either.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import type { Night } from '../../helpers/nightly.js';
import { addSites, hostOf, replayNight, rows, settleDeliveries, tableCounts, track } from '../../helpers/nightly.js';
import { startWebhookReceiver } from '../../fixtures/webhook-receiver.js';
import type { WebhookReceiver } from '../../fixtures/webhook-receiver.js';

const NIGHT_1 = '2026-05-01T03:00:00.000Z';
const NIGHT_2 = '2026-05-02T03:00:00.000Z';
const BODY_1 = 'User-agent: *\nDisallow: /private/\n';
const BODY_2 = 'User-agent: *\nDisallow: /private/\nDisallow: /products/\n';
/** Time given to anything a replay might have queued to show up. */
const QUIET_MS = 500;

let p: Pipeline;
let receiver: WebhookReceiver;
let siteId: number;
let night2: Night;

beforeAll(async () => {
  p = await startPipeline();
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  receiver = await startWebhookReceiver({ secret });
  ({ twice: siteId } = await addSites(p, ['twice']));
  await track(p, 'twice', ['/products/a']);
  const added = await p.cli(['alerts', 'add', receiver.url, '--secret', secret, '--min-severity', 'info']);
  expect(added.code, added.stderr).toBe(0);
  await replayNight(p, NIGHT_1, { twice: BODY_1 });
  night2 = await replayNight(p, NIGHT_2, { twice: BODY_2 });
  await settleDeliveries(p);
});

afterAll(async () => {
  await p?.close();
  await receiver?.close();
});

describe('habit 5: the same night replayed adds nothing', () => {
  it.each([
    ['the latest night', NIGHT_2],
    ['an earlier night', NIGHT_1],
  ])('audit --at %s again: the same run, no fetch, no new row, no webhook', async (_name, at) => {
    // The night under test raised alerts that were delivered: there is something to repeat.
    expect(receiver.requests.length).toBeGreaterThan(0);
    const before = await tableCounts(p);
    const fetchesBefore = p.web.requestCount(hostOf('twice'));
    const webhooksBefore = receiver.requests.length;
    const [original] = await rows<{ id: number }>(p, 'select id from audit_runs where run_key = $1', [`at-${at}`]);

    const again = await replayNight(p, at, { twice: BODY_2 });
    expect(again.runId).toBe(original!.id);
    expect(again.stdout).toContain(`run ${original!.id} (at-${at}) exists already (completed); 0 missing sites enqueued`);

    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    await settleDeliveries(p);
    expect(await tableCounts(p)).toEqual(before);
    expect(p.web.requestCount(hostOf('twice'))).toBe(fetchesBefore);
    expect(receiver.requests.length).toBe(webhooksBefore);
  });
});

describe('habit 5: a site job that runs again adds nothing', () => {
  it('a site job for a night already stored: no request, no row, no webhook', async () => {
    const before = await tableCounts(p);
    const fetchesBefore = p.web.requestCount(hostOf('twice'));
    const webhooksBefore = receiver.requests.length;
    expect(await p.rt.nights.runSite(night2.runId, siteId, 'test-holder')).toEqual({ kind: 'already-stored' });
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    expect(await tableCounts(p)).toEqual(before);
    expect(p.web.requestCount(hostOf('twice'))).toBe(fetchesBefore);
    expect(receiver.requests.length).toBe(webhooksBefore);
  });

  it('one night handed to the store by two jobs at once is written once, its run counted once', async () => {
    const night3 = '2026-05-03T03:00:00.000Z';
    p.web.set(hostOf('twice'), { status: 200, body: BODY_1 });
    // A run whose batch no worker sees: this test plays two jobs that took the same site.
    const { run } = await p.rt.repos.runs.createRun({ runKey: 'twice-at-once', trigger: 'manual', runAt: new Date(night3), sitesTotal: 1, siteIds: [siteId] });
    const first = p.rt.nights.runSite(run.id, siteId, 'job-a');
    const second = p.rt.nights.runSite(run.id, siteId, 'job-b');
    const outcomes = (await Promise.all([first, second])).map((o) => o.kind).sort();
    expect(outcomes).toEqual(['already-stored', 'stored']);
    const [stored] = await rows<{ n: string }>(p, 'select count(*) as n from snapshots where run_id = $1', [run.id]);
    expect(Number(stored!.n)).toBe(1);
    const [counted] = await rows<{ sites_done: number; status: string }>(p, 'select sites_done, status::text from audit_runs where id = $1', [run.id]);
    expect(counted).toEqual({ sites_done: 1, status: 'completed' });
  });
});
