/**
 * Signing and verifying webhooks the Standard Webhooks way (https://www.standardwebhooks.com,
 * spec v1.0.0, "Signature scheme" and "Webhook headers"), so that a receiver can check our
 * deliveries with any of that project's libraries:
 *
 *   webhook-id         the message id; the same on every retry (an idempotency key)
 *   webhook-timestamp  the attempt time, integer unix seconds
 *   webhook-signature  `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, space-separated
 *                      when several keys sign (zero-downtime secret rotation)
 *
 * Pure apart from the clock, which is passed in. Secrets are never logged or returned.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';

/** The prefix the spec gives serialised symmetric secrets. */
export const SECRET_PREFIX = 'whsec_';
/** Version tag of the symmetric (HMAC-SHA256) scheme. */
export const SIGNATURE_VERSION = 'v1';
/** Replay window: a timestamp further than this from the verifier's clock is refused. */
export const DEFAULT_TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

/** A signing secret: `whsec_<base64>` (the key is the decoded part), any other string (its UTF-8 bytes), or raw bytes. */
export type WebhookSecret = string | Uint8Array;

export class WebhookSecretError extends Error {
  override name = 'WebhookSecretError';
}

/** The HMAC key a secret stands for. */
export function secretKey(secret: WebhookSecret): Buffer {
  if (typeof secret !== 'string') return Buffer.from(secret);
  if (!secret.startsWith(SECRET_PREFIX)) return Buffer.from(secret, 'utf8');
  const encoded = secret.slice(SECRET_PREFIX.length);
  // Buffer.from(..., 'base64') skips bad characters silently; a typo in a secret must not
  // become a different, valid-looking key.
  if (encoded.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
    throw new WebhookSecretError('a whsec_ secret must be followed by base64');
  }
  return Buffer.from(encoded, 'base64');
}

export interface SignInput {
  /** `webhook-id`. Must not contain `.`: the id is a field of the dotted signed content (spec). */
  id: string;
  /** The attempt time, unix seconds (a fresh value on every retry). */
  timestamp: number;
  /** The exact bytes that are sent; re-serialised JSON would not verify. */
  body: string | Uint8Array;
}

// The timestamp is hashed as the header carries it, so a verifier never re-formats what was signed.
function hmacBase64(key: Buffer, input: { id: string; timestamp: number | string; body: string | Uint8Array }): string {
  return createHmac('sha256', key)
    .update(`${input.id}.${input.timestamp}.`, 'utf8')
    .update(typeof input.body === 'string' ? Buffer.from(input.body, 'utf8') : input.body)
    .digest('base64');
}

function checkSignInput(input: SignInput): void {
  if (input.id.length === 0 || input.id.includes('.')) throw new TypeError('webhook id must be non-empty and contain no "."');
  if (!Number.isSafeInteger(input.timestamp) || input.timestamp < 0) throw new TypeError('webhook timestamp must be integer unix seconds');
}

/** The `webhook-signature` value: one `v1,<base64>` per secret, space-separated (rotation). */
export function signWebhook(input: SignInput, secrets: WebhookSecret | readonly WebhookSecret[]): string {
  checkSignInput(input);
  const list = Array.isArray(secrets) ? (secrets as readonly WebhookSecret[]) : [secrets as WebhookSecret];
  if (list.length === 0) throw new WebhookSecretError('at least one secret is needed to sign');
  return list.map((s) => `${SIGNATURE_VERSION},${hmacBase64(secretKey(s), input)}`).join(' ');
}

/** The three headers of a signed delivery. */
export function signedWebhookHeaders(
  input: SignInput,
  secrets: WebhookSecret | readonly WebhookSecret[],
): Record<typeof WEBHOOK_ID_HEADER | typeof WEBHOOK_TIMESTAMP_HEADER | typeof WEBHOOK_SIGNATURE_HEADER, string> {
  return {
    [WEBHOOK_ID_HEADER]: input.id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(input.timestamp),
    [WEBHOOK_SIGNATURE_HEADER]: signWebhook(input, secrets),
  };
}

export type VerifyFailure = 'missing_headers' | 'bad_timestamp' | 'timestamp_too_old' | 'timestamp_too_new' | 'no_matching_signature';

export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailure };

export interface VerifyInput {
  /** Header values by lower-case name; arrays (repeated headers) are joined with a space. */
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  body: string | Uint8Array;
  /** The verifier's clock, unix seconds. */
  nowSeconds: number;
  toleranceSeconds?: number;
}

function header(headers: VerifyInput['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(' ') : (value as string | undefined);
}

/**
 * Checks a delivery against one secret (or several, during a rotation). Succeeds when the
 * timestamp is within the tolerance and any `v1` signature in the header matches; other
 * versions (`v1a`, asymmetric) are skipped, as the spec allows. Comparison is constant-time.
 */
export function verifyWebhook(input: VerifyInput, secrets: WebhookSecret | readonly WebhookSecret[]): VerifyResult {
  const id = header(input.headers, WEBHOOK_ID_HEADER);
  const timestamp = header(input.headers, WEBHOOK_TIMESTAMP_HEADER);
  const signatures = header(input.headers, WEBHOOK_SIGNATURE_HEADER);
  if (!id || !timestamp || !signatures) return { ok: false, reason: 'missing_headers' };
  if (!/^\d{1,15}$/.test(timestamp)) return { ok: false, reason: 'bad_timestamp' };
  const sentAt = Number(timestamp);
  const tolerance = input.toleranceSeconds ?? DEFAULT_TIMESTAMP_TOLERANCE_SECONDS;
  if (sentAt < input.nowSeconds - tolerance) return { ok: false, reason: 'timestamp_too_old' };
  if (sentAt > input.nowSeconds + tolerance) return { ok: false, reason: 'timestamp_too_new' };

  const list = Array.isArray(secrets) ? (secrets as readonly WebhookSecret[]) : [secrets as WebhookSecret];
  const expected = list.map((s) => Buffer.from(hmacBase64(secretKey(s), { id, timestamp, body: input.body }), 'utf8'));
  for (const entry of signatures.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== SIGNATURE_VERSION) continue;
    const given = Buffer.from(entry.slice(comma + 1), 'utf8');
    for (const want of expected) {
      if (given.length === want.length && timingSafeEqual(given, want)) return { ok: true };
    }
  }
  return { ok: false, reason: 'no_matching_signature' };
}
