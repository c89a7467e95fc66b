/**
 * Nightly pipeline, a rule change: night 1 disallows /private/, night 2 also disallows
 * /products/. The night's diff, the verdicts that flipped, the alerts, and their signed
 * webhook deliveries, end to end through `audit --at` and the in-process workers.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import type { AlertRow, ChangeRow, FlipRow, Night } from '../../helpers/nightly.js';
import { addSites, alertsOf, changeOf, defaultAgentTokens, flipsOf, replayNight, rows, settleDeliveries, track, verdictsOn } from '../../helpers/nightly.js';
import { startWebhookReceiver } from '../../fixtures/webhook-receiver.js';
import type { WebhookReceiver } from '../../fixtures/webhook-receiver.js';

const NIGHT_1 = '2026-02-01T03:00:00.000Z';
const NIGHT_2 = '2026-02-02T03:00:00.000Z';
const BODY_1 = 'User-agent: *\nDisallow: /private/\n';
const BODY_2 = 'User-agent: *\nDisallow: /private/\nDisallow: /products/\n';

let p: Pipeline;
let receiver: WebhookReceiver;
const secret = `whsec_${randomBytes(24).toString('base64')}`;
let siteId: number;
let night1: Night;
let night2: Night;
let agents: string[];

beforeAll(async () => {
  p = await startPipeline();
  receiver = await startWebhookReceiver({ secret });
  ({ shop: siteId } = await addSites(p, ['shop']));
  await track(p, 'shop', ['/products/a', '/private/x']);
  const added = await p.cli(['alerts', 'add', receiver.url, '--secret', secret, '--min-severity', 'info']);
  expect(added.code, added.stderr).toBe(0);
  agents = await defaultAgentTokens(p);
  night1 = await replayNight(p, NIGHT_1, { shop: BODY_1 });
  night2 = await replayNight(p, NIGHT_2, { shop: BODY_2 });
  await settleDeliveries(p);
});

afterAll(async () => {
  await p?.close();
  await receiver?.close();
});

describe('first night: a baseline', () => {
  it('records first_seen, verdicts for every tracked URL x default agent, no flips, no alerts', async () => {
    expect((await changeOf(p, night1.runId, siteId))?.kinds).toEqual(['first_seen']);
    // Root, /products/a, /private/x, each for the ten default agents: one span each, opened tonight.
    expect(agents).toHaveLength(10);
    expect(await verdictsOn(p, night1.runId, siteId)).toHaveLength(3 * agents.length);
    const [spans] = await rows<{ n: string }>(p, 'select count(*) as n from verdicts where from_run_id = $1', [night1.runId]);
    expect(Number(spans!.n)).toBe(3 * agents.length);
    expect(await flipsOf(p, night1.runId, siteId)).toEqual([]);
    expect(await alertsOf(p, night1.runId, siteId)).toEqual([]);
  });
});

describe('second night: Disallow: /products/ added', () => {
  let change: ChangeRow | undefined;
  let flips: FlipRow[];
  let alerts: AlertRow[];
  beforeAll(async () => {
    change = await changeOf(p, night2.runId, siteId);
    flips = await flipsOf(p, night2.runId, siteId);
    alerts = await alertsOf(p, night2.runId, siteId);
  });

  it('stores a raw and rules change with the text diff and the rule diff', () => {
    expect(change?.kinds).toEqual(expect.arrayContaining(['raw', 'rules']));
    expect(change?.kinds).not.toContain('comments_only');
    expect(change?.text_diff).toContain('+Disallow: /products/');
    expect(change?.text_diff).not.toContain('-Disallow: /private/');
    expect(change?.rule_diff).toMatchObject({
      kinds: ['rules'],
      agents: [
        {
          token: '*',
          change: 'changed',
          rulesAdded: [{ kind: 'disallow', pattern: '/products/', value: '/products/', line: 3 }],
          rulesRemoved: [],
          disallowAllAdded: false,
        },
      ],
    });
  });

  it('flips /products/a for every default agent, allowed -> disallowed, cause rules_changed', () => {
    expect(flips.map((f) => f.token)).toEqual(agents);
    for (const f of flips) {
      expect(f).toEqual({
        url: `${p.origin('shop')}/products/a`,
        token: f.token,
        from_allowed: true,
        to_allowed: false,
        cause: 'rules_changed',
        // Nothing matched /products/a on night 1: it was allowed by default.
        rule_before: null,
        rule_after: { line: 3, kind: 'disallow', value: '/products/', pattern: '/products/' },
      });
    }
  });

  it('raises a critical search_url_disallowed for Googlebot and Bingbot, and warnings', () => {
    expect(alerts.map((a) => [a.severity, a.kind])).toEqual([
      ['critical', 'search_url_disallowed'],
      ['warning', 'ai_access_changed'],
      ['warning', 'rules_changed'],
    ]);
    const critical = alerts[0]!;
    expect(critical.title).toContain(p.origin('shop'));
    expect(critical.details.flips?.map((f) => [f.url, f.agent, f.from, f.to])).toEqual([
      [`${p.origin('shop')}/products/a`, 'Bingbot', true, false],
      [`${p.origin('shop')}/products/a`, 'Googlebot', true, false],
    ]);
    const rulesChanged = alerts.find((a) => a.kind === 'rules_changed')!;
    expect(rulesChanged.details.diffLines).toEqual(expect.arrayContaining([expect.stringContaining('/products/')]));
  });

  it('delivers every alert once to the webhook, with a valid Standard Webhooks signature', async () => {
    const deliveries = await rows<{ dedupe_key: string; status: string; attempts: number; alert_id: string }>(
      p,
      'select d.dedupe_key, d.status::text, d.attempts, d.alert_id from alert_deliveries d join alerts a on a.id = d.alert_id where a.run_id = $1',
      [night2.runId],
    );
    expect(deliveries).toHaveLength(alerts.length);
    expect(deliveries.every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);

    expect(receiver.requests).toHaveLength(alerts.length);
    for (const request of receiver.requests) {
      expect(request.method).toBe('POST');
      expect(request.headers['webhook-id']).toEqual(expect.any(String));
      expect(request.headers['webhook-timestamp']).toMatch(/^\d+$/);
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      // The receiver checked the signature with the channel's secret, as a customer would.
      expect(request.verification).toEqual({ ok: true });
      expect(request.status).toBe(200);
    }
    // webhook-id is the delivery's dedupe key: one per alert and channel.
    expect(receiver.requests.map((r) => r.headers['webhook-id']).sort()).toEqual(deliveries.map((d) => d.dedupe_key).sort());

    const bodies = receiver.requests.map((r) => JSON.parse(r.body) as { type: string; timestamp: string; data: Record<string, unknown> });
    expect(bodies.map((b) => b.data.kind).sort()).toEqual(alerts.map((a) => a.kind).sort());
    for (const body of bodies) {
      const alert = alerts.find((a) => a.kind === body.data.kind)!;
      expect(body.type).toBe('robots_audit.alert');
      expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
      expect(body.data).toMatchObject({
        id: alert.dedupe_key,
        severity: alert.severity,
        kind: alert.kind,
        title: alert.title,
        runId: String(night2.runId),
        siteId: String(siteId),
        origin: p.origin('shop'),
        details: alert.details,
      });
      expect(body.data.textDiff).toContain('+Disallow: /products/');
    }
  });
});

describe('verdict_latest: what is blocked right now', () => {
  it('holds the verdicts of the latest run, one row per tracked URL x agent, with the deciding line and since when', async () => {
    const latest = await rows<{ url: string; token: string; run_id: number; allowed: boolean; rule_line: number | null; since_run_id: number }>(
      p,
      'select url, token, run_id, allowed, rule_line, since_run_id from verdict_latest where site_id = $1 order by url, token',
      [siteId],
    );
    expect(latest).toHaveLength(3 * agents.length);
    expect(new Set(latest.map((r) => r.run_id))).toEqual(new Set([night2.runId]));
    // Only /products/a changed on night 2; the other verdicts hold since night 1.
    expect(new Set(latest.filter((r) => r.url.endsWith('/products/a')).map((r) => r.since_run_id))).toEqual(new Set([night2.runId]));
    expect(new Set(latest.filter((r) => !r.url.endsWith('/products/a')).map((r) => r.since_run_id))).toEqual(new Set([night1.runId]));
    const products = latest.filter((r) => r.url.endsWith('/products/a'));
    expect(products.map((r) => [r.allowed, r.rule_line])).toEqual(agents.map(() => [false, 3]));
    const root = latest.filter((r) => r.url === `${p.origin('shop')}/`);
    expect(root.every((r) => r.allowed && r.rule_line === null)).toBe(true);
  });
});
