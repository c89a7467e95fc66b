/** The record of one robots.txt fetch: everything a snapshot, a report or the policy needs. */
import type { CacheLifetime } from './cache-lifetime.js';
import type { Challenge } from './challenge.js';
import type { FetchOutcome } from './outcome.js';

/** One response on the way: a followed (or refused) redirect. */
export interface FetchHop {
  url: string;
  status: number;
  /** The Location header as sent, or null when missing. */
  location: string | null;
}

/** Response headers kept as raw strings (repeated headers joined with ", "), or null when absent. */
export interface FetchedHeaders {
  contentType: string | null;
  contentLength: string | null;
  contentEncoding: string | null;
  cacheControl: string | null;
  expires: string | null;
  age: string | null;
  date: string | null;
  retryAfter: string | null;
  lastModified: string | null;
  etag: string | null;
}

export interface FetchResult {
  outcome: FetchOutcome;
  /** Status of the last response received; null when none was (network errors before headers). */
  status: number | null;
  /** Set for `network_error` (and `redirect_limit`: REDIRECT_LOOP / TOO_MANY_REDIRECTS; `challenged`: the vendor); null otherwise. */
  errorCode: string | null;
  errorMessage: string | null;
  /** Every redirect response received, in order; the last one is the refused one for `redirect_limit`. */
  hops: FetchHop[];
  /** `<origin>/robots.txt`. */
  requestedUrl: string;
  /** The URL of the last request made (the redirect target that failed, for a failure after redirects). */
  finalUrl: string;
  /** The address the last response came from, when a connection was made. */
  remoteAddress: string | null;
  startedAt: Date;
  durationMs: number;
  /** The kept decoded bytes, never re-encoded (BOM and Latin-1 kept). Only for `ok`; null otherwise. */
  body: Buffer | null;
  /** Length of `body` (0 when null). */
  bodyBytes: number;
  /** Full decoded size when known (Content-Length of an unencoded body, or bytes counted to the end). */
  fullSize: number | null;
  /** True when the body went past a cap and was cut (R-18, D-6). */
  truncated: boolean;
  /** Headers of the last response; all null when there was none. */
  headers: FetchedHeaders;
  /** Retry-After of the last response in seconds from now (D-4, R-13), or null. */
  retryAfterSeconds: number | null;
  /** cache lifetime from the last response's headers; null when no response arrived. */
  cache: CacheLifetime | null;
  /** For `challenged`: the bot wall that answered, the signal that gave it away, and the User-Agent it refused. */
  challenge?: (Challenge & { userAgent: string }) | null;
}
