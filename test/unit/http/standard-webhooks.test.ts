import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMESTAMP_TOLERANCE_SECONDS,
  WebhookSecretError,
  secretKey,
  signWebhook,
  signedWebhookHeaders,
  verifyWebhook,
} from '../../../src/http/standard-webhooks.js';

// The published test vector of the Standard Webhooks reference libraries: reproducing it is what
// says a receiver using one of those libraries will accept our signatures.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const headersFor = (signature: string, id = VECTOR.id, timestamp = String(VECTOR.timestamp)) => ({
  'webhook-id': id,
  'webhook-timestamp': timestamp,
  'webhook-signature': signature,
});

describe('signing: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">', () => {
  it('reproduces the reference test vector', () => {
    expect(signWebhook(VECTOR, VECTOR.secret)).toBe(VECTOR.signature);
  });

  it('signs bytes and the same text alike', () => {
    expect(signWebhook({ ...VECTOR, body: new TextEncoder().encode(VECTOR.body) }, VECTOR.secret)).toBe(VECTOR.signature);
  });

  it('a whsec_ secret is its base64-decoded bytes; any other string is its UTF-8 bytes', () => {
    expect(secretKey('whsec_aGVsbG8=')).toEqual(Buffer.from('hello'));
    expect(secretKey('hello')).toEqual(Buffer.from('hello'));
    expect(secretKey(Uint8Array.from([1, 2, 3]))).toEqual(Buffer.from([1, 2, 3]));
    expect(signWebhook(VECTOR, 'whsec_aGVsbG8=')).toBe(signWebhook(VECTOR, 'hello'));
  });

  it.each(['whsec_', 'whsec_not base64!', 'whsec_ab$cd'])('refuses the malformed secret %j', (secret) => {
    expect(() => signWebhook(VECTOR, secret)).toThrow(WebhookSecretError);
  });

  it('signs with every secret during a rotation, space-separated', () => {
    const header = signWebhook(VECTOR, ['whsec_aGVsbG8=', VECTOR.secret]);
    const parts = header.split(' ');
    expect(parts).toHaveLength(2);
    expect(parts[1]).toBe(VECTOR.signature);
  });

  it.each([
    ['an id with a dot', { ...VECTOR, id: 'msg.1' }],
    ['an empty id', { ...VECTOR, id: '' }],
    ['a fractional timestamp', { ...VECTOR, timestamp: 1.5 }],
  ])('refuses %s', (_name, input) => {
    expect(() => signWebhook(input, VECTOR.secret)).toThrow(TypeError);
  });

  it('builds the three headers', () => {
    expect(signedWebhookHeaders(VECTOR, VECTOR.secret)).toEqual(headersFor(VECTOR.signature));
  });
});

describe('verifying', () => {
  const now = VECTOR.timestamp + 10;

  it('accepts the reference vector', () => {
    expect(verifyWebhook({ headers: headersFor(VECTOR.signature), body: VECTOR.body, nowSeconds: now }, VECTOR.secret)).toEqual({ ok: true });
  });

  it('accepts when any of several signatures matches, skipping other versions', () => {
    const header = `v1a,aGVsbG8= v1,bm9wZQ== ${VECTOR.signature}`;
    expect(verifyWebhook({ headers: headersFor(header), body: VECTOR.body, nowSeconds: now }, VECTOR.secret).ok).toBe(true);
  });

  it('accepts with any of several secrets (rotation on the receiving side)', () => {
    expect(verifyWebhook({ headers: headersFor(VECTOR.signature), body: VECTOR.body, nowSeconds: now }, ['whsec_aGVsbG8=', VECTOR.secret]).ok).toBe(true);
  });

  it.each([
    ['a tampered body', headersFor(VECTOR.signature), '{"test": 2432232315}', 'no_matching_signature'],
    ['another id', headersFor(VECTOR.signature, 'msg_other'), VECTOR.body, 'no_matching_signature'],
    ['a signature of another version only', headersFor(VECTOR.signature.replace('v1,', 'v2,')), VECTOR.body, 'no_matching_signature'],
    ['a truncated signature', headersFor(VECTOR.signature.slice(0, -4)), VECTOR.body, 'no_matching_signature'],
    ['no signature header', { 'webhook-id': VECTOR.id, 'webhook-timestamp': String(VECTOR.timestamp) }, VECTOR.body, 'missing_headers'],
    ['a non-numeric timestamp', headersFor(VECTOR.signature, VECTOR.id, '16142653e1'), VECTOR.body, 'bad_timestamp'],
  ])('refuses %s', (_name, headers, body, reason) => {
    expect(verifyWebhook({ headers, body, nowSeconds: now }, VECTOR.secret)).toEqual({ ok: false, reason });
  });

  it('refuses the wrong secret', () => {
    expect(verifyWebhook({ headers: headersFor(VECTOR.signature), body: VECTOR.body, nowSeconds: now }, 'whsec_aGVsbG8=')).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it.each([
    [-DEFAULT_TIMESTAMP_TOLERANCE_SECONDS, true],
    [-DEFAULT_TIMESTAMP_TOLERANCE_SECONDS - 1, false],
    [DEFAULT_TIMESTAMP_TOLERANCE_SECONDS, true],
    [DEFAULT_TIMESTAMP_TOLERANCE_SECONDS + 1, false],
  ])('a timestamp %i s from the verifier clock -> accepted %s (default tolerance 5 min)', (offset, accepted) => {
    const result = verifyWebhook({ headers: headersFor(VECTOR.signature), body: VECTOR.body, nowSeconds: VECTOR.timestamp - offset }, VECTOR.secret);
    expect(result.ok).toBe(accepted);
    if (!result.ok) expect(result.reason).toBe(offset < 0 ? 'timestamp_too_old' : 'timestamp_too_new');
  });

  it('takes a custom tolerance', () => {
    const input = { headers: headersFor(VECTOR.signature), body: VECTOR.body, nowSeconds: VECTOR.timestamp + 60 };
    expect(verifyWebhook({ ...input, toleranceSeconds: 30 }, VECTOR.secret)).toEqual({ ok: false, reason: 'timestamp_too_old' });
    expect(verifyWebhook({ ...input, toleranceSeconds: 60 }, VECTOR.secret).ok).toBe(true);
  });

  it('round-trips what it signs', () => {
    const input = { id: 'msg_abc', timestamp: 1_700_000_000, body: '{"type":"robots_audit.alert"}' };
    const headers = signedWebhookHeaders(input, 'a raw secret');
    expect(verifyWebhook({ headers, body: input.body, nowSeconds: input.timestamp }, 'a raw secret').ok).toBe(true);
  });
});
