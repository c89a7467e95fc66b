/**
 * Fetch outcomes: what happened to one robots.txt fetch, in classes the policy layer maps to
 * full allow / full disallow / conditional allow (src/policy). Pure.
 */

import type { FetchOutcome } from '../policy/fetch-outcome.js';

/**
 * The classes are defined once, in src/policy/fetch-outcome.ts (shared with the policy and the
 * database enum):
 * - `ok`: 2xx and the body read to its end or to the size cap.
 * - `unavailable`: 4xx other than 429 (R-12: full allow).
 * - `rate_limited`: 429, a 4xx the auditor reports on its own (D-4).
 * - `server_error`: 5xx (R-13: full disallow).
 * - `network_error`: no usable response: DNS failure, refused, reset, TLS failure, timeouts,
 *   invalid response or status, broken chunking, body cut short, undecodable body, SSRF refusal
 *   treated as a server error). `errorCode` says which.
 * - `redirect_limit`: too many redirects or a loop (R-11: treated as a 404).
 */
export type { FetchOutcome };

/** Redirect statuses that are followed. 300, 304, 305 and 306 are not redirects to follow. */
export const FOLLOWED_REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * Error codes the fetcher sets itself. Others come from Node and undici as they are
 * (ENOTFOUND, ECONNREFUSED, ECONNRESET, UND_ERR_CONNECT_TIMEOUT, UND_ERR_HEADERS_TIMEOUT,
 * UND_ERR_BODY_TIMEOUT, UND_ERR_SOCKET, HPE_INVALID_CHUNK_SIZE, CERT_HAS_EXPIRED, ...).
 */
export const FetchErrorCode = {
  /** The total deadline (totalTimeoutMs) passed, redirects included. */
  TOTAL_TIMEOUT: 'TOTAL_TIMEOUT',
  /** The SSRF guard refused the address (ssrf-guard.ts). */
  SSRF_BLOCKED: 'SSRF_BLOCKED',
  /** Content-Encoding unknown, or the compressed body is corrupt or incomplete. */
  DECODE_ERROR: 'DECODE_ERROR',
  /** A followed 3xx status without a Location header. */
  REDIRECT_NO_LOCATION: 'REDIRECT_NO_LOCATION',
  /** A Location that is not a URL, or not http(s). */
  REDIRECT_BAD_LOCATION: 'REDIRECT_BAD_LOCATION',
  /** A status outside 2xx-5xx, or a 3xx that is not a followed redirect: an invalid response. */
  INVALID_STATUS: 'INVALID_STATUS',
  /** The origin's scheme is one the fetcher cannot speak (ftp, R-6). */
  UNSUPPORTED_SCHEME: 'UNSUPPORTED_SCHEME',
  /** a redirect to a URL already requested in this fetch (`redirect_limit`). */
  REDIRECT_LOOP: 'REDIRECT_LOOP',
  /** more redirects than maxRedirects (`redirect_limit`). */
  TOO_MANY_REDIRECTS: 'TOO_MANY_REDIRECTS',
  /** The caller aborted the fetch (FetchOptions.signal). */
  ABORTED: 'ABORTED',
  /** An error that carried no code of its own. */
  UNKNOWN: 'UNKNOWN',
} as const;

/** Outcome for the status of the last response, once redirects are dealt with. */
export function outcomeForStatus(status: number): FetchOutcome {
  if (status >= 200 && status <= 299) return 'ok';
  if (status === 429) return 'rate_limited'; // D-4
  if (status >= 400 && status <= 499) return 'unavailable';
  if (status >= 500 && status <= 599) return 'server_error';
  // 1xx as a final status, a 3xx that is not followed, 600+: an invalid response.
  return 'network_error';
}

/**
 * undici 7 builds HTTPParserError.code from a reverse lookup its llhttp constants do not
 * provide, so the code arrives undefined; llhttp's reason text still says what broke.
 */
const PARSER_REASONS: ReadonlyArray<[RegExp, string]> = [
  [/chunk size/i, 'HPE_INVALID_CHUNK_SIZE'],
  [/content-length/i, 'HPE_INVALID_CONTENT_LENGTH'],
  [/transfer-encoding/i, 'HPE_INVALID_TRANSFER_ENCODING'],
  [/status/i, 'HPE_INVALID_STATUS'],
  [/expected http\//i, 'HPE_INVALID_CONSTANT'],
  [/header/i, 'HPE_INVALID_HEADER_TOKEN'],
  [/version/i, 'HPE_INVALID_VERSION'],
  [/expected lf|lf expected/i, 'HPE_LF_EXPECTED'],
  [/expected cr|cr expected/i, 'HPE_CR_EXPECTED'],
];

function parserErrorCode(err: object): string | null {
  if ((err as { name?: unknown }).name !== 'HTTPParserError') return null;
  const message = String((err as { message?: unknown }).message ?? '');
  return PARSER_REASONS.find(([pattern]) => pattern.test(message))?.[1] ?? 'HPE_INVALID_RESPONSE';
}

/** A code for an error thrown by Node or undici: its own `code`, or the first one inside it. */
export function errorCodeOf(err: unknown): string {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current !== null && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const { code } = current as { code?: unknown };
    if (typeof code === 'string' && code !== '') return code;
    const parserCode = parserErrorCode(current);
    if (parserCode) return parserCode;
    // Happy eyeballs reports every failed attempt in an AggregateError; the first one speaks.
    if (current instanceof AggregateError && current.errors.length > 0) {
      current = current.errors[0];
      continue;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return FetchErrorCode.UNKNOWN;
}

/** A readable message for any thrown value. */
export function errorMessageOf(err: unknown): string {
  if (err instanceof AggregateError && err.message === '' && err.errors.length > 0) {
    return err.errors.map(errorMessageOf).join('; ');
  }
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}
