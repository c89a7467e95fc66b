import { afterEach, describe, expect, it } from 'vitest';
import { deliverWebhook, isRetryableStatus, RETRY_AFTER_MAX_SECONDS } from '../../../src/http/deliver-webhook.js';
import { createFetchDispatcher } from '../../../src/http/fetch-dispatcher.js';
import type { DeliverWebhookInput } from '../../../src/http/deliver-webhook.js';
import { alertWebhookPayload, slackAlertMessage, webhookBody } from '../../../src/services/alerting/messages.js';
import { closedPort, startWebhookReceiver } from '../../fixtures/webhook-receiver.js';
import type { WebhookReceiver, WebhookReceiverOptions } from '../../fixtures/webhook-receiver.js';
import { alertsOfNight } from '../../helpers/night-alerts.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const [ALERT] = alertsOfNight({
  runId: 'run-1',
  siteId: 's1',
  origin: 'https://shop.example',
  change: {
    kinds: [],
    rulesDiff: null,
    outcomeFrom: 'ok',
    outcomeTo: 'server_error',
    policyFrom: 'rules',
    policyTo: 'disallow_all',
    policyReasonTo: 'R-13',
    fallbackStarted: false,
    fallbackEnded: false,
  },
  flips: [],
});
const BODY = webhookBody(alertWebhookPayload(ALERT!, { raisedAt: new Date('2026-01-02T03:00:00Z') }));

const receivers: WebhookReceiver[] = [];
async function receiver(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver(options);
  receivers.push(r);
  return r;
}
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const send = (url: string, extra: Partial<DeliverWebhookInput> = {}) =>
  deliverWebhook({ url, kind: 'webhook', body: BODY, secret: SECRET, messageId: ALERT!.dedupeKey, timeoutMs: 5000, ...extra });

describe('signed delivery to a Standard Webhooks receiver', () => {
  it('the receiver verifies the signature; 2xx is ok', async () => {
    const r = await receiver({ secret: SECRET });
    const result = await send(r.url);
    expect(result).toMatchObject({ ok: true, status: 200, retryable: false, gone: false, responseSnippet: 'ok' });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(r.requests).toHaveLength(1);
    const [req] = r.requests;
    expect(req!.method).toBe('POST');
    expect(req!.verification).toEqual({ ok: true });
    expect(req!.body).toBe(BODY);
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers['webhook-id']).toBe(ALERT!.dedupeKey);
    expect(req!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  });

  it('the signature timestamp comes from the injected clock', async () => {
    const fixed = Date.parse('2026-01-02T03:00:00Z');
    const r = await receiver({ secret: SECRET, nowSeconds: () => fixed / 1000 + 10 });
    const result = await send(r.url, { now: () => fixed });
    expect(result.ok).toBe(true);
    expect(r.requests[0]!.headers['webhook-timestamp']).toBe(String(fixed / 1000));
  });

  it('a body changed on the way fails verification: 401, permanent', async () => {
    const r = await receiver({ secret: SECRET, tamper: (body) => body.replace('critical', 'info') });
    const result = await send(r.url);
    expect(r.requests[0]!.verification).toEqual({ ok: false, reason: 'no_matching_signature' });
    expect(result).toMatchObject({ ok: false, status: 401, error: 'http_401', retryable: false, gone: false, responseSnippet: 'no_matching_signature' });
  });

  it('a receiver with another secret refuses the delivery', async () => {
    const r = await receiver({ secret: 'whsec_aGVsbG8=' });
    expect((await send(r.url)).status).toBe(401);
  });

  it('a delivery whose timestamp is outside the receiver tolerance is refused', async () => {
    const r = await receiver({ secret: SECRET });
    const result = await send(r.url, { now: () => Date.now() - 10 * 60 * 1000 });
    expect(r.requests[0]!.verification).toEqual({ ok: false, reason: 'timestamp_too_old' });
    expect(result.ok).toBe(false);
  });

  it('without a secret: id and timestamp headers, no signature', async () => {
    const r = await receiver();
    expect((await send(r.url, { secret: undefined })).ok).toBe(true);
    expect(r.requests[0]!.headers['webhook-id']).toBe(ALERT!.dedupeKey);
    expect(r.requests[0]!.headers['webhook-signature']).toBeUndefined();
  });

  it('Slack: the JSON message, no webhook headers even with a secret', async () => {
    const r = await receiver();
    const slack = JSON.stringify(slackAlertMessage(ALERT!, { raisedAt: new Date() }));
    expect((await send(r.url, { kind: 'slack', body: slack })).ok).toBe(true);
    expect(JSON.parse(r.requests[0]!.body)).toMatchObject({ text: `[CRITICAL] ${ALERT!.title}` });
    expect(r.requests[0]!.headers['webhook-id']).toBeUndefined();
    expect(r.requests[0]!.headers['webhook-signature']).toBeUndefined();
  });
});

describe('failures come back as results, never as exceptions', () => {
  it('500 is retryable; the retry (same message id, fresh signature) is delivered', async () => {
    const r = await receiver({ secret: SECRET, failFirst: 1 });
    const first = await send(r.url);
    expect(first).toMatchObject({ ok: false, status: 500, error: 'http_500', retryable: true, gone: false });
    const second = await send(r.url);
    expect(second).toMatchObject({ ok: true, status: 200 });
    expect(r.requests.map((q) => q.headers['webhook-id'])).toEqual([ALERT!.dedupeKey, ALERT!.dedupeKey]);
    expect(r.requests.every((q) => q.verification?.ok)).toBe(true);
  });

  it.each([
    [410, false, true],
    [404, false, false],
    [400, false, false],
    [301, false, false],
    [408, true, false],
    [429, true, false],
    [502, true, false],
    [503, true, false],
  ])('status %i -> retryable %s, gone %s', async (status, retryable, gone) => {
    const r = await receiver({ status });
    const result = await send(r.url);
    expect(result).toMatchObject({ ok: false, status, error: `http_${status}`, retryable, gone });
  });

  it.each([
    ['120', 120],
    ['Fri, 02 Jan 2026 03:01:00 GMT', 60],
    ['Fri, 02 Jan 2026 02:00:00 GMT', 0],
    [String(RETRY_AFTER_MAX_SECONDS * 10), RETRY_AFTER_MAX_SECONDS],
    ['soon', undefined],
    ['-5', undefined],
  ])('Retry-After %j -> retryAfterSeconds %s', async (header, seconds) => {
    const r = await receiver({ status: 503, headers: { 'retry-after': header } });
    const result = await send(r.url, { now: () => Date.parse('2026-01-02T03:00:00Z') });
    expect(result.retryable).toBe(true);
    expect(result.retryAfterSeconds).toBe(seconds);
  });

  it('a URL the SSRF guard refuses -> SSRF_BLOCKED, permanent; the same agent lets allowed networks through', async () => {
    const r = await receiver();
    const guarded = createFetchDispatcher({ connectTimeoutMs: 1000, allowNetworks: [], resolvePins: [] });
    const open = createFetchDispatcher({ connectTimeoutMs: 1000, allowNetworks: ['127.0.0.0/8'], resolvePins: [] });
    try {
      expect(await send(r.url, { dispatcher: guarded.agent })).toMatchObject({ ok: false, status: null, error: 'SSRF_BLOCKED', retryable: false });
      expect(r.requests).toHaveLength(0);
      expect(await send(r.url, { dispatcher: open.agent })).toMatchObject({ ok: true, status: 200 });
    } finally {
      await Promise.all([guarded.close(), open.close()]);
    }
  });

  it('connection refused -> ok:false with the error code, retryable', async () => {
    const port = await closedPort();
    const result = await send(`http://127.0.0.1:${port}/hook`);
    expect(result).toMatchObject({ ok: false, status: null, error: 'ECONNREFUSED', retryable: true, gone: false });
  });

  it('no answer within timeoutMs -> timeout, retryable', async () => {
    const r = await receiver({ hang: true });
    const result = await send(r.url, { timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, status: null, error: 'timeout', retryable: true });
    expect(result.durationMs).toBeGreaterThanOrEqual(250);
  });

  it.each<[string, Partial<DeliverWebhookInput>, string]>([
    ['an invalid URL', { url: 'not a url' }, 'ERR_INVALID_URL'],
    ['a message id with a dot', { messageId: 'msg.1' }, 'invalid_request: webhook id must be non-empty and contain no "."'],
    ['a malformed whsec_ secret', { secret: 'whsec_!!' }, 'invalid_request: a whsec_ secret must be followed by base64'],
  ])('%s -> permanent failure', async (_name, extra, error) => {
    const r = await receiver();
    const result = await send(extra.url ?? r.url, extra);
    expect(result).toMatchObject({ ok: false, status: null, error, retryable: false });
    expect(r.requests).toHaveLength(0);
  });
});

describe('isRetryableStatus', () => {
  it.each([
    [408, true],
    [429, true],
    [500, true],
    [599, true],
    [400, false],
    [410, false],
    [499, false],
  ])('%i -> %s', (status, retryable) => {
    expect(isRetryableStatus(status)).toBe(retryable);
  });
});
