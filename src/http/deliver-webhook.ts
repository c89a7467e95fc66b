/**
 * One delivery attempt of an alert to a webhook or a Slack incoming webhook: a POST of JSON,
 * signed the Standard Webhooks way for `webhook` endpoints that have a secret. Never throws:
 * every failure comes back as a result that says whether trying again can help. Retries (and
 * their backoff, honouring `retryAfterSeconds`) are the queue's job, not this function's.
 *
 * Status handling follows the Standard Webhooks spec ("Delivery success and failure"):
 *   2xx                 delivered
 *   3xx                 failure, not followed (the endpoint URL should be updated): permanent
 *   408, 429, 5xx       retryable (429/503 may carry Retry-After)
 *   410 Gone            permanent, and `gone`: the receiver wants no more deliveries
 *   other 4xx           permanent
 *   no response         retryable (refused, reset, DNS failure, timeout), except a bad URL
 */
import type { Dispatcher } from 'undici';
import { request } from 'undici';
import type { WebhookSecret } from './standard-webhooks.js';
import { signedWebhookHeaders } from './standard-webhooks.js';
import { parseRetryAfter } from './retry-after.js';

/** Whole-attempt deadline; the spec recommends giving receivers 15 to 30 s. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 15_000;
/** Characters of the response body kept for the delivery log (Slack explains errors there). */
export const RESPONSE_SNIPPET_MAX_BYTES = 1_024;
/** Upper bound on a Retry-After we report back, seconds (a day). */
export const RETRY_AFTER_MAX_SECONDS = 24 * 3600;

export type DeliveryKind = 'webhook' | 'slack';

export interface DeliverWebhookInput {
  url: string;
  kind: DeliveryKind;
  /** The exact JSON text to send (and sign). */
  body: string;
  /** Signing secret(s) of a `webhook` endpoint; ignored for Slack, whose URL is the secret. */
  secret?: WebhookSecret | readonly WebhookSecret[];
  /** `webhook-id`: the same on every attempt of one message (an idempotency key). */
  messageId: string;
  timeoutMs?: number;
  /** Clock in milliseconds since the epoch: the signature timestamp and the duration. */
  now?: () => number;
  /**
   * Undici dispatcher. Webhook URLs are user input: pass the SSRF-guarded agent
   * (`createFetchDispatcher(...).agent`); without one the global dispatcher is used.
   */
  dispatcher?: Dispatcher;
  userAgent?: string;
}

export interface DeliveryResult {
  ok: boolean;
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  /** `http_<status>` or the error code (`ECONNREFUSED`, `UND_ERR_CONNECT_TIMEOUT`, `timeout`, ...). */
  error?: string;
  /** Whether a later attempt may succeed. */
  retryable: boolean;
  /** 410 Gone: disable the endpoint. */
  gone: boolean;
  /** From a Retry-After header (seconds or HTTP date), capped at `RETRY_AFTER_MAX_SECONDS`. */
  retryAfterSeconds?: number;
  durationMs: number;
  /** The first bytes of the response body, for the delivery log. */
  responseSnippet?: string;
}

/** Retry-After as seconds from now (RFC 9110 §10.2.3), capped; undefined when absent or unreadable. */
function retryAfterSeconds(value: string | string[] | undefined, nowMs: number): number | undefined {
  const seconds = parseRetryAfter(Array.isArray(value) ? value[0] : value, new Date(nowMs));
  return seconds === null ? undefined : Math.min(seconds, RETRY_AFTER_MAX_SECONDS);
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * Errors that say the request itself is wrong, not the network: a bad URL, or an address the SSRF
 * guard refuses (a webhook URL pointing into a private network is a configuration matter).
 */
const PERMANENT_ERROR_CODES = new Set(['ERR_INVALID_URL', 'UND_ERR_INVALID_ARG', 'ERR_INVALID_ARG_TYPE', 'SSRF_BLOCKED']);

function errorCode(err: unknown): string {
  if (err instanceof Error) {
    if (err.name === 'TimeoutError' || err.name === 'AbortError') return 'timeout';
    const code = (err as Error & { code?: unknown }).code;
    if (typeof code === 'string' && code.length > 0) return code;
    const cause = (err as Error & { cause?: unknown }).cause;
    if (cause !== undefined && cause !== err) return errorCode(cause);
    return err.name;
  }
  return 'unknown_error';
}

async function readSnippet(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      chunks.push(buf);
      size += buf.length;
      if (size >= RESPONSE_SNIPPET_MAX_BYTES) break;
    }
  } catch {
    // The status decides the result; a body that breaks off is not a delivery failure.
  } finally {
    // Leaving the loop early does not free the socket by itself.
    body.destroy();
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_SNIPPET_MAX_BYTES).toString('utf8');
}

function requestHeaders(input: DeliverWebhookInput, timestamp: number): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (input.userAgent) headers['user-agent'] = input.userAgent;
  if (input.kind === 'webhook') {
    headers['webhook-id'] = input.messageId;
    headers['webhook-timestamp'] = String(timestamp);
    if (input.secret !== undefined) Object.assign(headers, signedWebhookHeaders({ id: input.messageId, timestamp, body: input.body }, input.secret));
  }
  return headers;
}

export async function deliverWebhook(input: DeliverWebhookInput): Promise<DeliveryResult> {
  const now = input.now ?? Date.now;
  const started = now();
  const elapsed = () => Math.max(0, now() - started);
  const timeoutMs = input.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  let headers: Record<string, string>;
  try {
    headers = requestHeaders(input, Math.floor(started / 1000));
  } catch (err) {
    // A bad secret or message id will not get better by retrying.
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, status: null, error: `invalid_request: ${message}`, retryable: false, gone: false, durationMs: elapsed() };
  }
  try {
    const response = await request(input.url, {
      method: 'POST',
      headers,
      body: input.body,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
      ...(input.dispatcher ? { dispatcher: input.dispatcher } : {}),
    });
    const status = response.statusCode;
    const responseSnippet = await readSnippet(response.body);
    const durationMs = elapsed();
    if (status >= 200 && status < 300) return { ok: true, status, retryable: false, gone: false, durationMs, responseSnippet };
    const retryAfter = retryAfterSeconds(response.headers['retry-after'], now());
    return {
      ok: false,
      status,
      error: `http_${status}`,
      retryable: isRetryableStatus(status),
      gone: status === 410,
      ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
      durationMs,
      responseSnippet,
    };
  } catch (err) {
    const code = errorCode(err);
    return { ok: false, status: null, error: code, retryable: !PERMANENT_ERROR_CODES.has(code), gone: false, durationMs: elapsed() };
  }
}
