/**
 * FetchResults as the fetcher returns them, for tests that store nights without a web server
 * (the night store, `fetch --store` on a made-up history). Every field is filled as
 * fetchRobotsTxt would fill it for that outcome.
 */
import type { FetchResult } from '../../src/http/fetch-result.js';
import { NO_HEADERS } from '../../src/http/fetch-robots-txt.js';
import type { FetchOutcome } from '../../src/policy/index.js';

export interface ResultOptions {
  origin: string;
  outcome: FetchOutcome;
  status?: number | null;
  body?: string | Buffer;
  startedAt: Date;
  durationMs?: number;
  headers?: Partial<FetchResult['headers']>;
  errorCode?: string | null;
  remoteAddress?: string | null;
}

export function fetchResult(o: ResultOptions): FetchResult {
  const body = o.outcome === 'ok' ? Buffer.from(o.body ?? '') : null;
  const status = o.status === undefined ? (o.outcome === 'ok' ? 200 : null) : o.status;
  return {
    outcome: o.outcome,
    status,
    errorCode: o.errorCode ?? (o.outcome === 'network_error' ? 'ECONNREFUSED' : null),
    errorMessage: o.outcome === 'network_error' ? 'connect ECONNREFUSED' : null,
    hops: [],
    requestedUrl: `${o.origin}/robots.txt`,
    finalUrl: `${o.origin}/robots.txt`,
    remoteAddress: status === null ? null : (o.remoteAddress ?? '203.0.113.7'),
    startedAt: o.startedAt,
    durationMs: o.durationMs ?? 120,
    body,
    bodyBytes: body?.length ?? 0,
    fullSize: body?.length ?? null,
    truncated: false,
    headers: { ...NO_HEADERS, ...(status === null ? {} : { contentType: 'text/plain' }), ...o.headers },
    retryAfterSeconds: null,
    cache: status === null ? null : { maxAgeSeconds: null, ageSeconds: 0, lifetimeSeconds: 86_400, source: 'default', expiresAt: new Date(o.startedAt.getTime() + 86_400_000) },
  };
}
