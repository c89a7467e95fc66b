/**
 * The demo's webhook receiver checks every delivery's Standard Webhooks signature, as a
 * customer's endpoint would: a delivery signed with the channel's secret is counted, anything
 * else is refused with 401 and counted apart.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedWebhookHeaders } from '../../../src/http/standard-webhooks.js';
import type { WebhookReceiver } from '../../../src/demo/webhook-receiver.js';
import { startWebhookReceiver } from '../../../src/demo/webhook-receiver.js';

const SECRET = `whsec_${Buffer.from('demo secret for the receiver test').toString('base64')}`;
const OTHER = `whsec_${Buffer.from('some other secret').toString('base64')}`;
const BODY = JSON.stringify({ type: 'alert', timestamp: '2025-08-29T22:00:00.000Z', data: { severity: 'critical', kind: 'site_unreachable', title: 'robots.txt unreachable' } });

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver(SECRET, 'hooks.demo');
});
afterAll(() => receiver.close());

/** POSTs to the receiver on 127.0.0.1 (its URL names hooks.demo, which only the demo pins). */
async function post(body: string, headers: Record<string, string>, path = '/webhook'): Promise<number> {
  const port = new URL(receiver.url).port;
  const res = await request(`http://127.0.0.1:${port}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  await res.body.dump();
  return res.statusCode;
}

const signed = (secret: string, body = BODY) => signedWebhookHeaders({ id: `msg_${Math.random().toString(36).slice(2)}`, timestamp: Math.floor(Date.now() / 1000), body }, secret);

describe('startWebhookReceiver', () => {
  it('names the host it was given in its URL', () => {
    expect(receiver.url).toMatch(/^http:\/\/hooks\.demo:\d+\/webhook$/);
  });

  it('accepts a delivery signed with the secret and records its alert', async () => {
    expect(await post(BODY, signed(SECRET))).toBe(204);
    expect(receiver.verified.at(-1)).toEqual({ severity: 'critical', kind: 'site_unreachable', title: 'robots.txt unreachable' });
  });

  it.each<[string, () => [string, Record<string, string>], string]>([
    ['signed with another secret', () => [BODY, signed(OTHER)], 'no_matching_signature'],
    ['a body changed after signing', () => [BODY.replace('critical', 'info'), signed(SECRET)], 'no_matching_signature'],
    ['no signature headers', () => [BODY, {}], 'missing_headers'],
  ])('refuses a delivery %s with 401', async (_, make, reason) => {
    const verifiedBefore = receiver.verified.length;
    const [body, headers] = make();
    expect(await post(body, headers)).toBe(401);
    expect(receiver.verified).toHaveLength(verifiedBefore);
    expect(receiver.rejected.at(-1)).toBe(reason);
  });

  it('answers 404 elsewhere', async () => {
    expect(await post(BODY, signed(SECRET), '/other')).toBe(404);
  });
});
