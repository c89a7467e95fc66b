/**
 * Options of the fetcher. Their defaults are the env defaults of src/config/env.ts (the one
 * place they are written); `defaultFetchOptions()` reads them from the schema with an empty
 * environment, so the two cannot drift.
 */
import { loadConfig, type AppConfig } from '../config/env.js';
import type { FetchDispatcher } from './fetch-dispatcher.js';
import type { FetchSlots } from './fetch-slots.js';

export interface FetchOptions {
  /** User-Agent header. */
  userAgent: string;
  /** redirects followed before the fetch counts as `redirect_limit`. */
  maxRedirects: number;
  /** R-18, D-6: decoded bytes kept; reading stops past it. */
  maxBodyBytes: number;
  /** Decoded bytes decompression may produce (gzip bombs). */
  maxDecodedBytes: number;
  /** TCP (+ TLS) connect, DNS included. */
  connectTimeoutMs: number;
  /** From request sent to complete response headers. */
  headersTimeoutMs: number;
  /** Longest silence between two body chunks. */
  bodyTimeoutMs: number;
  /** Deadline for the whole fetch, redirects included. */
  totalTimeoutMs: number;
  /** cache lifetime when the response says nothing. */
  defaultCacheSeconds: number;
  /** CIDRs the SSRF guard lets through (tests: 127.0.0.0/8). */
  allowNetworks: readonly string[];
  /** `host=ip` / `*.suffix=ip` pins, like curl --resolve. */
  resolvePins: readonly string[];
  /** The clock for startedAt, Retry-After dates and cache expiry. */
  now: () => Date;
  /**
   * Aborts the fetch from outside (a job handing a slow site over to another): it then ends as a
   * network_error with code ABORTED, which callers that aborted it do not record.
   */
  signal?: AbortSignal;
  /**
   * A guarded dispatcher to reuse across fetches (from createFetchDispatcher). When given, its
   * own connectTimeoutMs, allowNetworks and resolvePins apply, not the ones above. When absent,
   * each fetch builds one from these options and closes it at the end.
   */
  dispatcher?: FetchDispatcher;
  /** Body bytes a fetch holds without a large-body slot. */
  smallBodyBytes: number;
  /**
   * The process's large-body slots (FetchSlots): a kept body past `smallBodyBytes` waits for one
   * (read-body.ts, LargeBodyGate). Absent: bodies grow to maxBodyBytes without asking.
   */
  largeBodies?: FetchSlots;
}

const systemClock = () => new Date();

export function fetchOptionsFromConfig(config: AppConfig, now: () => Date = systemClock): FetchOptions {
  return {
    userAgent: config.ROBOTS_AUDIT_USER_AGENT,
    maxRedirects: config.ROBOTS_AUDIT_MAX_REDIRECTS,
    maxBodyBytes: config.ROBOTS_AUDIT_MAX_BODY_BYTES,
    maxDecodedBytes: config.ROBOTS_AUDIT_MAX_DECODED_BYTES,
    smallBodyBytes: config.ROBOTS_AUDIT_SMALL_BODY_BYTES,
    connectTimeoutMs: config.ROBOTS_AUDIT_CONNECT_TIMEOUT_MS,
    headersTimeoutMs: config.ROBOTS_AUDIT_HEADERS_TIMEOUT_MS,
    bodyTimeoutMs: config.ROBOTS_AUDIT_BODY_TIMEOUT_MS,
    totalTimeoutMs: config.ROBOTS_AUDIT_TOTAL_TIMEOUT_MS,
    defaultCacheSeconds: config.ROBOTS_AUDIT_DEFAULT_CACHE_SECONDS,
    allowNetworks: config.ROBOTS_AUDIT_ALLOW_NETWORKS,
    resolvePins: config.ROBOTS_AUDIT_RESOLVE,
    now,
  };
}

let defaults: FetchOptions | undefined;

/** The defaults of env.ts, independent of the process environment. */
export function defaultFetchOptions(): FetchOptions {
  defaults ??= fetchOptionsFromConfig(loadConfig({}));
  return { ...defaults };
}

const POSITIVE = ['maxBodyBytes', 'maxDecodedBytes', 'smallBodyBytes', 'connectTimeoutMs', 'headersTimeoutMs', 'bodyTimeoutMs', 'totalTimeoutMs'] as const;
const NON_NEGATIVE = ['maxRedirects', 'defaultCacheSeconds'] as const;

/** Marks options resolveFetchOptions already filled and checked (copied along by `{ ...options }`). */
const RESOLVED = Symbol('resolved fetch options');

/**
 * Fills the options left out (or undefined) from the defaults and checks the numbers. A bad
 * number is a programming error and throws a RangeError. Options it returned (or copies of them
 * with another `signal` or `dispatcher`) pass straight through: a worker resolves its options
 * once, not at every fetch.
 */
export function resolveFetchOptions(options: Partial<FetchOptions> = {}): FetchOptions {
  if ((options as { [RESOLVED]?: true })[RESOLVED]) return options as FetchOptions;
  const resolved = defaultFetchOptions();
  for (const [key, value] of Object.entries(options) as [keyof FetchOptions, unknown][]) {
    if (value !== undefined) Object.assign(resolved, { [key]: value });
  }
  for (const key of POSITIVE) {
    if (!Number.isSafeInteger(resolved[key]) || resolved[key] < 1) throw new RangeError(`fetch option ${key} must be a positive integer`);
  }
  for (const key of NON_NEGATIVE) {
    if (!Number.isSafeInteger(resolved[key]) || resolved[key] < 0) throw new RangeError(`fetch option ${key} must be a non-negative integer`);
  }
  return Object.assign(resolved, { [RESOLVED]: true as const });
}
