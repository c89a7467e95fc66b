/**
 * The `responses` row of an answer: the headers that matter, the redirect chain and the
 * address it came from, stored once per distinct combination and referenced by id from every
 * night that got the same answer. Its key is a hash of all of it, computed here in the form that
 * migration 0005 computes for the rows it carried over (keep the two in step).
 */
import { createHash } from 'node:crypto';
import type { FetchResult } from '../http/fetch-result.js';
import type { ResponseRow } from '../night/rows.js';
import { MAX_HEADER_TEXT_CHARS, clampText } from './column-limits.js';

const FIELD = '\x1f';
const HOP = '\x1d';
const NULL = '\x1e';

/**
 * The first 16 bytes of the SHA-256 of the fields joined by U+001F, NULL written as U+001E, hops
 * as "status url location" joined by U+001D. 16 bytes: collisions are out of reach for any number
 * of distinct answers a deployment will see, at half the size of a full hash.
 */
export function responseKey(row: Omit<ResponseRow, 'key'>): Buffer {
  const hops = row.hops === null ? null : row.hops.map((h) => `${h.status} ${h.url} ${h.location ?? NULL}`).join(HOP);
  const fields = [
    row.finalUrl,
    hops,
    row.remoteAddress,
    row.contentType,
    row.contentEncoding,
    row.cacheControl,
    row.expires,
    row.age,
    row.retryAfter,
    row.lastModified,
    row.etag,
  ];
  return createHash('sha256')
    .update(fields.map((f) => f ?? NULL).join(FIELD), 'utf8')
    .digest()
    .subarray(0, 16);
}

/**
 * The row of a fetch result, or null when nothing answered at all (R-15: no status and no
 * redirect on the way: nothing to describe).
 */
export function responseRowOf(result: FetchResult): ResponseRow | null {
  if (result.status === null && result.hops.length === 0) return null;
  // Header text is a site's: each value is cut to MAX_HEADER_TEXT_CHARS (column-limits.ts).
  const h = (value: string | null) => clampText(value, MAX_HEADER_TEXT_CHARS);
  const row: Omit<ResponseRow, 'key'> = {
    finalUrl: result.finalUrl === result.requestedUrl ? null : h(result.finalUrl),
    hops: result.hops.length > 0 ? result.hops.map((hop) => ({ ...hop, url: h(hop.url)!, location: h(hop.location) })) : null,
    remoteAddress: result.remoteAddress,
    contentType: h(result.headers.contentType),
    contentEncoding: h(result.headers.contentEncoding),
    cacheControl: h(result.headers.cacheControl),
    expires: h(result.headers.expires),
    age: h(result.headers.age),
    retryAfter: h(result.headers.retryAfter),
    lastModified: h(result.headers.lastModified),
    etag: h(result.headers.etag),
  };
  return { ...row, key: responseKey(row) };
}
