/**
 * fetchRobotsTxt: one plain GET of `<origin>/robots.txt`, redirects followed by
 * hand, body read under caps (R-18, D-6), every failure turned into a recorded outcome
 * (R-10..R-15, D-4). Nothing a website does makes it throw; only a bad argument does
 * (InvalidUrlError for the origin, RangeError/Error for bad options).
 */
import { request, type Dispatcher } from 'undici';
import { robotsTxtUrl } from '../robots/origin.js';
import { cacheLifetime } from './cache-lifetime.js';
import { CHALLENGE_SNIFF_BYTES, CHALLENGE_VENDOR_NAMES, detectChallenge, type Challenge } from './challenge.js';
import { createFetchDispatcher } from './fetch-dispatcher.js';
import type { FetchedHeaders, FetchHop, FetchResult } from './fetch-result.js';
import { resolveFetchOptions, type FetchOptions } from './options.js';
import {
  errorCodeOf,
  errorMessageOf,
  FetchErrorCode,
  FOLLOWED_REDIRECT_STATUSES,
  outcomeForStatus,
  type FetchOutcome,
} from './outcome.js';
import { readBody, type BodyRead } from './read-body.js';
import { parseRetryAfter } from './retry-after.js';

/** Schemes this fetcher speaks. ftp (R-6, Google-specific) is recorded as unsupported. */
const FETCHABLE_SCHEMES = new Set(['http:', 'https:']);
const ACCEPT = 'text/plain,*/*';
const ACCEPT_ENCODING = 'gzip, deflate, br';
/** Statuses bot walls answer with (challenge.ts): their first bytes are read for the detector. */
const CHALLENGE_STATUSES: ReadonlySet<number> = new Set([401, 403, 405, 429, 503]);

/** Headers of a fetch that got no response. */
export const NO_HEADERS: FetchedHeaders = {
  contentType: null,
  contentLength: null,
  contentEncoding: null,
  cacheControl: null,
  expires: null,
  age: null,
  date: null,
  retryAfter: null,
  lastModified: null,
  etag: null,
};

type RawHeaders = Dispatcher.ResponseData['headers'];

function header(headers: RawHeaders, name: string): string | null {
  const value = headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

function pickHeaders(headers: RawHeaders): FetchedHeaders {
  return {
    contentType: header(headers, 'content-type'),
    contentLength: header(headers, 'content-length'),
    contentEncoding: header(headers, 'content-encoding'),
    cacheControl: header(headers, 'cache-control'),
    expires: header(headers, 'expires'),
    age: header(headers, 'age'),
    date: header(headers, 'date'),
    retryAfter: header(headers, 'retry-after'),
    lastModified: header(headers, 'last-modified'),
    etag: header(headers, 'etag'),
  };
}

function firstHeader(headers: RawHeaders, name: string): string | null {
  const value = headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

function contentLengthOf(value: string | null): number | null {
  return value !== null && /^\d+$/.test(value.trim()) ? Number(value.trim()) : null;
}

/** Drops a body we will not read; the connection goes with it. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

interface Ending {
  outcome: FetchOutcome;
  errorCode?: string;
  errorMessage?: string;
  read?: BodyRead;
  challenge?: Challenge;
}

export async function fetchRobotsTxt(origin: string, options: Partial<FetchOptions> = {}): Promise<FetchResult> {
  const requestedUrl = robotsTxtUrl(origin);
  const opts = resolveFetchOptions(options);
  const startedAt = opts.now();
  const started = performance.now();

  const hops: FetchHop[] = [];
  let url = requestedUrl;
  // The URL being requested, parsed once per hop (a redirect's target is parsed when it is read).
  let target = new URL(requestedUrl);
  let status: number | null = null;
  let headers = NO_HEADERS;
  let remoteAddress: string | null = null;

  const finish = (ending: Ending): FetchResult => {
    const now = opts.now();
    const body = ending.outcome === 'ok' && ending.read ? ending.read.body : null;
    const challenge = ending.challenge;
    return {
      outcome: ending.outcome,
      status,
      // A challenge is recorded with its vendor as the code, and the signal that gave it away.
      errorCode: challenge ? challenge.vendor : (ending.errorCode ?? null),
      errorMessage: challenge ? `${CHALLENGE_VENDOR_NAMES[challenge.vendor]} challenge (${challenge.signal})` : (ending.errorMessage ?? null),
      hops,
      requestedUrl,
      finalUrl: url,
      remoteAddress,
      startedAt,
      durationMs: Math.round(performance.now() - started),
      body,
      bodyBytes: body?.length ?? 0,
      fullSize: ending.read?.fullSize ?? null,
      truncated: ending.read?.truncated ?? false,
      headers,
      retryAfterSeconds: parseRetryAfter(headers.retryAfter, now),
      cache: status === null ? null : cacheLifetime(headers, now, opts.defaultCacheSeconds),
      challenge: ending.challenge ? { ...ending.challenge, userAgent: opts.userAgent } : null,
    };
  };

  if (!FETCHABLE_SCHEMES.has(target.protocol)) {
    return finish({
      outcome: 'network_error',
      errorCode: FetchErrorCode.UNSUPPORTED_SCHEME,
      errorMessage: `cannot fetch ${requestedUrl}: only http and https are supported`,
    });
  }

  const owned = opts.dispatcher ? null : createFetchDispatcher(opts);
  const dispatcher = opts.dispatcher ?? owned!;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), opts.totalTimeoutMs);
  const abortedByCaller = () => deadline.abort();
  opts.signal?.addEventListener('abort', abortedByCaller, { once: true });
  if (opts.signal?.aborted) deadline.abort();

  const largeBodies = opts.largeBodies;
  // Waiting for a large-body slot ends with the fetch's deadline, like everything else it does.
  const largeBodyGate = largeBodies ? { freeBytes: opts.smallBodyBytes, wait: () => largeBodies.hold(deadline.signal) } : undefined;

  // every failed request is a network_error with the most precise code at hand.
  const failure = (err: unknown): Ending =>
    opts.signal?.aborted
      ? { outcome: 'network_error', errorCode: FetchErrorCode.ABORTED, errorMessage: 'the fetch was aborted by its caller' }
      : deadline.signal.aborted
      ? {
          outcome: 'network_error',
          errorCode: FetchErrorCode.TOTAL_TIMEOUT,
          errorMessage: `no complete response within ${opts.totalTimeoutMs} ms (total deadline, redirects included)`,
        }
      : { outcome: 'network_error', errorCode: errorCodeOf(err), errorMessage: errorMessageOf(err) };

  const exchange = async (): Promise<Ending> => {
    const seen = new Set([requestedUrl]);
    for (;;) {
      const connection = dispatcher.openExchange(target);
      try {
        status = null;
        headers = NO_HEADERS;
        remoteAddress = null;
        let response: Dispatcher.ResponseData;
        try {
          response = await request(target, {
            dispatcher: connection,
            method: 'GET',
            // a plain GET: no conditional headers.
            headers: { 'user-agent': opts.userAgent, accept: ACCEPT, 'accept-encoding': ACCEPT_ENCODING },
            signal: deadline.signal,
            headersTimeout: opts.headersTimeoutMs,
            bodyTimeout: opts.bodyTimeoutMs,
          });
        } catch (err) {
          return failure(err);
        }
        status = response.statusCode;
        headers = pickHeaders(response.headers);
        remoteAddress = dispatcher.remoteAddress(target);

        if (FOLLOWED_REDIRECT_STATUSES.has(status)) {
          discard(response.body);
          const location = firstHeader(response.headers, 'location');
          hops.push({ url, status, location });
          if (location === null || location.trim() === '') {
            // A redirect that names no target is a malformed response, not a missing file:
            // R-15 "invalid response" -> treated as a server error, like Google's fetcher.
            return {
              outcome: 'network_error',
              errorCode: FetchErrorCode.REDIRECT_NO_LOCATION,
              errorMessage: `${status} redirect without a Location header`,
            };
          }
          let next: URL;
          try {
            next = new URL(location.trim(), url);
          } catch {
            return { outcome: 'network_error', errorCode: FetchErrorCode.REDIRECT_BAD_LOCATION, errorMessage: `Location "${location}" is not a URL` };
          }
          if (!FETCHABLE_SCHEMES.has(next.protocol)) {
            return {
              outcome: 'network_error',
              errorCode: FetchErrorCode.REDIRECT_BAD_LOCATION,
              errorMessage: `Location "${location}" is not an http(s) URL`,
            };
          }
          next.hash = '';
          // a loop or more hops than the limit ends the fetch; the policy treats it as a 404.
          if (seen.has(next.href)) {
            return { outcome: 'redirect_limit', errorCode: FetchErrorCode.REDIRECT_LOOP, errorMessage: `redirect loop: ${next.href} was already requested` };
          }
          if (hops.length > opts.maxRedirects) {
            return {
              outcome: 'redirect_limit',
              errorCode: FetchErrorCode.TOO_MANY_REDIRECTS,
              errorMessage: `more than ${opts.maxRedirects} redirects`,
            };
          }
          seen.add(next.href);
          url = next.href;
          target = next;
          continue;
        }

        const outcome = outcomeForStatus(status);
        const framing = {
          contentEncoding: headers.contentEncoding,
          contentLength: contentLengthOf(headers.contentLength),
        };
        const limits = { maxBodyBytes: opts.maxBodyBytes, maxDecodedBytes: opts.maxDecodedBytes };
        const responseHeaders = response.headers;
        // A bot wall answering in the site's place (challenge.ts): its page is not the site's file.
        const challengeOf = (bodyStart: Buffer | null) =>
          detectChallenge({ status: status!, header: (name) => header(responseHeaders, name), bodyStart: bodyStart && bodyStart.subarray(0, CHALLENGE_SNIFF_BYTES) });
        if (outcome === 'ok') {
          const read = await readBody(response.body, { ...framing, keep: true }, limits, largeBodyGate);
          // a 2xx body that breaks off is incomplete data, a failed request.
          if (read.error !== null) return { ...failure(read.error), read: { ...read, body: Buffer.alloc(0) } };
          const challenge = challengeOf(read.body);
          if (challenge) return { outcome: 'challenged', challenge, read: { ...read, body: Buffer.alloc(0) } };
          return { outcome, read };
        }
        if (outcome === 'network_error') {
          discard(response.body);
          return { outcome, errorCode: FetchErrorCode.INVALID_STATUS, errorMessage: `invalid response: status ${status}` };
        }
        // 4xx / 5xx: the status decides (R-12, R-13, D-4) unless a bot wall answered; the body is
        // only measured (its first bytes kept for the detector when the status is one a wall
        // answers with), and a body that breaks off changes nothing.
        const sniff = CHALLENGE_STATUSES.has(status);
        const read = await readBody(response.body, { ...framing, keep: sniff }, sniff ? { ...limits, maxBodyBytes: Math.min(limits.maxBodyBytes, CHALLENGE_SNIFF_BYTES) } : limits);
        const challenge = challengeOf(sniff ? read.body : null);
        if (challenge) return { outcome: 'challenged', challenge, read: { ...read, body: Buffer.alloc(0), truncated: false } };
        // Nothing of a 4xx/5xx body is stored: stopping at the sniffed bytes cuts nothing that counts.
        return { outcome, read: sniff ? { ...read, body: Buffer.alloc(0), truncated: false } : read };
      } finally {
        // Also on a redirect, an error or an abort: the connection never outlives its exchange.
        dispatcher.closeExchange(connection);
      }
    }
  };

  try {
    return finish(await exchange());
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', abortedByCaller);
    if (owned) await owned.close().catch(() => {});
  }
}
