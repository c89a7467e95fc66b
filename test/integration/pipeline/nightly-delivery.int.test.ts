/**
 * Nightly pipeline, where alerts go: a webhook that fails before it accepts (retried with
 * backoff, delivered once, the same webhook-id every time), a Slack incoming webhook (Block Kit
 * messages, one per alert), and a digest channel (one message per run). The delivery backoff
 * is lowered through ROBOTS_AUDIT_ALERT_BACKOFF_MS so retries take milliseconds.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import type { Night } from '../../helpers/nightly.js';
import { addSites, alertsOf, eventually, replayNight, rows, settleDeliveries, track } from '../../helpers/nightly.js';
import { startWebhookReceiver } from '../../fixtures/webhook-receiver.js';
import type { WebhookReceiver } from '../../fixtures/webhook-receiver.js';

const NIGHT_1 = '2026-06-01T03:00:00.000Z';
const NIGHT_2 = '2026-06-02T03:00:00.000Z';
const NIGHT_3 = '2026-06-03T03:00:00.000Z';
const BASE = 'User-agent: *\nDisallow: /private/\n';
/** Googlebot and Bingbot lose /products/a: critical, plus warnings. */
const PRODUCTS_BLOCKED = `${BASE}Disallow: /products/\n`;
/** GPTBot loses the whole site: warnings only. */
const GPTBOT_BLOCKED = `${BASE}\nUser-agent: GPTBot\nDisallow: /\n`;
/** No rule changes: info only. */
const COMMENTED = `# reviewed\n${BASE}`;

const PIPELINE_ENV = { ROBOTS_AUDIT_ALERT_BACKOFF_MS: '50' };
/** Time given to a digest that should not come to show up anyway. */
const QUIET_MS = 500;
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

describe('delivery retries: a webhook that fails twice gets the alert on the third try, once', () => {
  let p: Pipeline;
  let receiver: WebhookReceiver;
  let night: Night;
  let siteId: number;

  beforeAll(async () => {
    p = await startPipeline({ env: PIPELINE_ENV });
    const secret = newSecret();
    receiver = await startWebhookReceiver({ secret, failFirst: 2 });
    ({ retry: siteId } = await addSites(p, ['retry']));
    await track(p, 'retry', ['/products/a']);
    // Critical only: tonight raises exactly one such alert, so exactly one delivery.
    const added = await p.cli(['alerts', 'add', receiver.url, '--secret', secret, '--min-severity', 'critical']);
    expect(added.code, added.stderr).toBe(0);
    await replayNight(p, NIGHT_1, { retry: BASE });
    night = await replayNight(p, NIGHT_2, { retry: PRODUCTS_BLOCKED });
    await settleDeliveries(p);
  });
  afterAll(async () => {
    await p?.close();
    await receiver?.close();
  });

  it('ends delivered after 3 attempts', async () => {
    const alerts = await alertsOf(p, night.runId, siteId);
    const critical = alerts.filter((a) => a.severity === 'critical');
    expect(critical.map((a) => a.kind)).toEqual(['search_url_disallowed']);
    const deliveries = await rows<{ dedupe_key: string; status: string; attempts: number; last_status: number; last_error: string | null; delivered_at: Date | null }>(
      p,
      'select dedupe_key, status::text, attempts, last_status, last_error, delivered_at from alert_deliveries',
    );
    expect(deliveries).toEqual([
      { dedupe_key: expect.stringMatching(/^ch\d+:alert\d+$/), status: 'delivered', attempts: 3, last_status: 200, last_error: null, delivered_at: expect.any(Date) },
    ]);
  });

  it('the receiver saw 3 signed requests with the same webhook-id and accepted exactly one', async () => {
    const [delivery] = await rows<{ dedupe_key: string }>(p, 'select dedupe_key from alert_deliveries');
    expect(receiver.requests.map((r) => r.status)).toEqual([500, 500, 200]);
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual(Array(3).fill(delivery!.dedupe_key));
    expect(receiver.requests.every((r) => r.verification?.ok === true)).toBe(true);
    // Every attempt carries the same body: only the timestamp header (and signature) may change.
    expect(new Set(receiver.requests.map((r) => r.body)).size).toBe(1);
    expect(JSON.parse(receiver.requests[2]!.body)).toMatchObject({ type: 'robots_audit.alert', data: { kind: 'search_url_disallowed', severity: 'critical' } });
  });
});

describe('Slack and digest channels', () => {
  let p: Pipeline;
  let slack: WebhookReceiver;
  let digest: WebhookReceiver;
  let sites: Record<string, number>;
  let night2: Night;
  let heardAfterNight1: number[];
  const secret = newSecret();

  beforeAll(async () => {
    p = await startPipeline({ env: PIPELINE_ENV });
    slack = await startWebhookReceiver();
    digest = await startWebhookReceiver({ secret });
    sites = await addSites(p, ['alpha', 'beta', 'gamma']);
    for (const name of ['alpha', 'beta', 'gamma']) await track(p, name, ['/products/a']);
    // Slack: per alert, default minimum severity (warning). Digest: signed webhook, warning and up.
    const addSlack = await p.cli(['alerts', 'add', slack.url, '--slack']);
    expect(addSlack.code, addSlack.stderr).toBe(0);
    const addDigest = await p.cli(['alerts', 'add', digest.url, '--digest', '--secret', secret, '--min-severity', 'warning']);
    expect(addDigest.code, addDigest.stderr).toBe(0);

    await replayNight(p, NIGHT_1, { alpha: BASE, beta: BASE, gamma: BASE });
    await settleDeliveries(p);
    heardAfterNight1 = [slack.requests.length, digest.requests.length];
    night2 = await replayNight(p, NIGHT_2, { alpha: PRODUCTS_BLOCKED, beta: GPTBOT_BLOCKED, gamma: COMMENTED });
    // The run reads completed a moment before the job that completed it queues the digest.
    await eventually(async () => digest.requests.length > 0, 'the digest of night 2');
    await settleDeliveries(p);
  });
  afterAll(async () => {
    await p?.close();
    await slack?.close();
    await digest?.close();
  });

  it('a baseline night raises no alert, so neither channel hears anything', async () => {
    const [night1] = await rows<{ n: string }>(p, 'select count(*) as n from alerts a join audit_runs r on r.id = a.run_id where r.run_key = $1', [`at-${NIGHT_1}`]);
    expect(Number(night1!.n)).toBe(0);
    expect(heardAfterNight1).toEqual([0, 0]);
  });

  it('Slack gets one Block Kit message per alert at or above warning, naming the site and the flipped URLs', async () => {
    const [alpha, beta, gamma] = await Promise.all(['alpha', 'beta', 'gamma'].map((n) => alertsOf(p, night2.runId, sites[n]!)));
    const expected = [...alpha!, ...beta!].filter((a) => a.severity !== 'info');
    expect(gamma!.map((a) => a.kind)).toEqual(['comments_only']);
    expect(slack.requests).toHaveLength(expected.length);

    const messages = slack.requests.map((r) => {
      expect(r.headers['content-type']).toBe('application/json');
      // Slack incoming webhooks are not signed: the URL is the secret.
      expect(r.headers['webhook-signature']).toBeUndefined();
      return JSON.parse(r.body) as { text: string; blocks: { type: string; text?: { type: string; text: string } }[] };
    });
    for (const m of messages) {
      expect(m.text).toMatch(/^\[(CRITICAL|WARNING)\] /);
      expect(m.blocks[0]).toMatchObject({ type: 'section', text: { type: 'mrkdwn' } });
    }
    expect(messages.map((m) => m.text).sort()).toEqual(expected.map((a) => `[${a.severity.toUpperCase()}] ${a.title}`).sort());

    const critical = messages.find((m) => m.text.startsWith('[CRITICAL]'))!;
    const text = critical.blocks.map((b) => b.text?.text ?? '').join('\n');
    expect(text).toContain(`*Site:* ${p.origin('alpha')}`);
    expect(text).toContain(`${p.origin('alpha')}/products/a - Googlebot: allowed -&gt; disallowed (line 3: Disallow: /products/)`);
    expect(text).toContain(`${p.origin('alpha')}/products/a - Bingbot: allowed -&gt; disallowed`);

    const ai = messages.find((m) => m.text.includes('AI crawler access changed') && m.text.includes(p.origin('beta')))!;
    expect(ai.blocks.map((b) => b.text?.text ?? '').join('\n')).toContain(`${p.origin('beta')}/ - GPTBot: allowed -&gt; disallowed (line 5: Disallow: /)`);
  });

  it('the digest channel gets one signed message for the run with every alert at or above warning', async () => {
    expect(digest.requests).toHaveLength(1);
    const [request] = digest.requests;
    expect(request!.verification).toEqual({ ok: true });
    const [delivery] = await rows<{ dedupe_key: string; status: string; run_id: number | null; alert_id: string | null }>(
      p,
      'select d.dedupe_key, d.status::text, d.run_id, d.alert_id from alert_deliveries d join alert_channels c on c.id = d.channel_id where c.digest',
    );
    expect(delivery).toEqual({ dedupe_key: expect.stringMatching(new RegExp(`^ch\\d+:run${night2.runId}:digest$`)), status: 'delivered', run_id: night2.runId, alert_id: null });
    expect(request!.headers['webhook-id']).toBe(delivery!.dedupe_key);

    const body = JSON.parse(request!.body) as { type: string; data: { runId: string; counts: Record<string, number>; sites: number; alerts: { kind: string; severity: string; origin: string }[]; omitted: number } };
    const runAlerts = await rows<{ kind: string; severity: string; origin: string }>(
      p,
      "select a.kind, a.severity::text, s.origin from alerts a join sites s on s.id = a.site_id where a.run_id = $1 and a.severity in ('critical', 'warning')",
      [night2.runId],
    );
    expect(body.type).toBe('robots_audit.digest');
    expect(body.data.runId).toBe(String(night2.runId));
    expect(body.data.sites).toBe(2);
    expect(body.data.omitted).toBe(0);
    expect(body.data.counts).toEqual({ critical: 1, warning: runAlerts.length - 1, info: 0 });
    const key = (a: { kind: string; origin: string }) => `${a.origin} ${a.kind}`;
    expect(body.data.alerts.map(key).sort()).toEqual(runAlerts.map(key).sort());
    // Most severe first.
    expect(body.data.alerts[0]).toMatchObject({ severity: 'critical', kind: 'search_url_disallowed', origin: p.origin('alpha') });
  });

  it('a night with info alerts only sends nothing to channels that want warning and up', async () => {
    const slackBefore = slack.requests.length;
    const night3 = await replayNight(p, NIGHT_3, { alpha: PRODUCTS_BLOCKED, beta: GPTBOT_BLOCKED, gamma: BASE });
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    await settleDeliveries(p);
    // gamma is back to the version of night 1 (issue 18: flapping); its versions differ in comments only: info.
    expect((await alertsOf(p, night3.runId, sites.gamma!)).map((a) => [a.severity, a.kind])).toEqual([['info', 'flapping_started']]);
    const [deliveries] = await rows<{ n: string }>(
      p,
      'select count(*) as n from alert_deliveries d left join alerts a on a.id = d.alert_id where coalesce(a.run_id, d.run_id) = $1',
      [night3.runId],
    );
    expect(Number(deliveries!.n)).toBe(0);
    expect(slack.requests.length).toBe(slackBefore);
    expect(digest.requests).toHaveLength(1);
  });
});

describe('a digest survives a failure of the job that completed the run', () => {
  let p: Pipeline;
  let digest: WebhookReceiver;

  beforeAll(async () => {
    p = await startPipeline({ env: PIPELINE_ENV });
    digest = await startWebhookReceiver();
    await addSites(p, ['solo']);
    await track(p, 'solo', ['/products/a']);
    const added = await p.cli(['alerts', 'add', digest.url, '--digest', '--min-severity', 'warning']);
    expect(added.code, added.stderr).toBe(0);
    await replayNight(p, NIGHT_1, { solo: BASE });
  });
  afterAll(async () => {
    await p?.close();
    await digest?.close();
  });

  it('queues the digest when the diff job is retried after failing between completing the run and queueing it', async () => {
    // Fault injection (Postgres gone for a moment): the first attempt to write the digest's
    // delivery fails, after the run was marked completed. The diff job fails and is retried.
    const alertsRepo = p.rt.repos.alerts;
    const createDeliveries = alertsRepo.createDeliveries;
    let injected = 0;
    alertsRepo.createDeliveries = async (targets) => {
      if (injected === 0 && targets.some((t) => 'digestRunId' in t)) {
        injected += 1;
        throw new Error('injected: connection terminated');
      }
      return createDeliveries(targets);
    };
    try {
      const night = await replayNight(p, NIGHT_2, { solo: PRODUCTS_BLOCKED });
      // The diff queue retries after its backoff (1 s).
      await eventually(async () => digest.requests.length > 0, 'the digest to arrive', 10_000);
      await settleDeliveries(p);
      expect(injected).toBe(1);
      expect(digest.requests).toHaveLength(1);
      expect(JSON.parse(digest.requests[0]!.body)).toMatchObject({ type: 'robots_audit.digest', data: { runId: String(night.runId), counts: { critical: 1 } } });
      const [delivery] = await rows<{ status: string }>(p, 'select status::text from alert_deliveries where run_id = $1', [night.runId]);
      expect(delivery).toEqual({ status: 'delivered' });
    } finally {
      alertsRepo.createDeliveries = createDeliveries;
    }
  });
});
