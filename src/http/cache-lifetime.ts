/**
 * how long a fetched robots.txt may be reused. Google caches it up to 24 hours by default
 * and lets Cache-Control max-age lengthen or shorten that; we compute the lifetime the response
 * asks for so reports can show it. Pure: headers and the clock in, numbers out.
 *
 * Decisions (documented here, tested in test/unit/http/cache-lifetime.test.ts):
 * - R-17 says the cached copy "may be shared by several crawlers": we are a shared cache in
 *   RFC 9111 terms, so `s-maxage` wins over `max-age`, and `private` forbids reuse.
 * - `no-store`, `no-cache` and `private` give lifetime 0: the fetch is a plain GET, we
 *   never revalidate, so a copy that needs revalidation cannot be reused.
 * - The remaining lifetime is the freshness lifetime minus the Age header, for max-age and for
 *   Expires alike (RFC 9111 §4.2.3). The apparent age (our clock minus Date) is left out: server
 *   clocks drift by seconds to minutes and robots.txt lifetimes are hours.
 * - Expires counts from the response's Date (now when Date is missing or invalid); an invalid
 *   Expires such as `0` means already expired (RFC 9111 §5.3).
 * - An invalid max-age / s-maxage value is ignored and the next source applies.
 * - Everything is clamped to >= 0, and the lifetime to at most MAX_LIFETIME_SECONDS (68 years;
 *   `max-age=99999999999999999999` or `Expires` in year 9999 are "forever", and a night's row
 *   keeps the lifetime in an integer column). `expiresAt` is then a valid date.
 */
import { parseHttpDate } from './http-date.js';

/** Longest lifetime reported: 2^31 - 1 s, the largest value of the `integer` column it is stored in. */
export const MAX_LIFETIME_SECONDS = 2_147_483_647;

export type CacheLifetimeSource = 'no-store' | 'no-cache' | 'private' | 's-maxage' | 'max-age' | 'expires' | 'default';

export interface CacheLifetime {
  /** The delta that was used, from s-maxage or max-age; null when neither applied. */
  maxAgeSeconds: number | null;
  /** When the copy fetched at `now` stops being reusable: now + lifetimeSeconds. */
  expiresAt: Date;
  /** The Age header (seconds the response already spent in caches upstream); 0 when absent. */
  ageSeconds: number;
  /** Remaining reuse time in seconds, >= 0. */
  lifetimeSeconds: number;
  /** Which rule decided the lifetime. */
  source: CacheLifetimeSource;
}

export interface CacheHeaders {
  cacheControl: string | null;
  expires: string | null;
  age: string | null;
  date: string | null;
}

/** RFC 9111 §1.2.2: delta-seconds beyond 2^31 are read as 2^31. */
const MAX_DELTA_SECONDS = 2_147_483_648;

function deltaSeconds(value: string | undefined): number | null {
  if (value === undefined) return null;
  const unquoted = value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  if (!/^\d+$/.test(unquoted)) return null;
  return Math.min(Number(unquoted), MAX_DELTA_SECONDS);
}

/** Cache-Control directives, names lower-cased; the first occurrence of a name wins. */
export function parseCacheControl(value: string | null): Map<string, string | undefined> {
  const directives = new Map<string, string | undefined>();
  if (!value) return directives;
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (name === '' || directives.has(name)) continue;
    directives.set(name, eq < 0 ? undefined : part.slice(eq + 1).trim());
  }
  return directives;
}

export function cacheLifetime(headers: CacheHeaders, now: Date, defaultSeconds: number): CacheLifetime {
  const directives = parseCacheControl(headers.cacheControl);
  const ageSeconds = deltaSeconds(headers.age?.trim()) ?? 0;
  const result = (source: CacheLifetimeSource, lifetime: number, maxAgeSeconds: number | null = null): CacheLifetime => {
    const lifetimeSeconds = Math.min(MAX_LIFETIME_SECONDS, Math.max(0, Math.floor(lifetime)));
    return { maxAgeSeconds, expiresAt: new Date(now.getTime() + lifetimeSeconds * 1000), ageSeconds, lifetimeSeconds, source };
  };

  for (const forbidden of ['no-store', 'no-cache', 'private'] as const) {
    if (directives.has(forbidden)) return result(forbidden, 0);
  }
  const sMaxAge = deltaSeconds(directives.get('s-maxage'));
  if (sMaxAge !== null) return result('s-maxage', sMaxAge - ageSeconds, sMaxAge);
  const maxAge = deltaSeconds(directives.get('max-age'));
  if (maxAge !== null) return result('max-age', maxAge - ageSeconds, maxAge);
  if (headers.expires !== null) {
    const expires = parseHttpDate(headers.expires, now);
    if (!expires) return result('expires', 0);
    const date = (headers.date !== null ? parseHttpDate(headers.date, now) : null) ?? now;
    return result('expires', (expires.getTime() - date.getTime()) / 1000 - ageSeconds);
  }
  return result('default', defaultSeconds);
}
