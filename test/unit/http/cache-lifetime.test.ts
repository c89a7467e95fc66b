import { describe, expect, it } from 'vitest';
import { cacheLifetime, parseCacheControl, type CacheHeaders } from '../../../src/http/cache-lifetime.js';

const now = new Date('2026-03-01T12:00:00Z');
const DAY = 24 * 3600;
const none: CacheHeaders = { cacheControl: null, expires: null, age: null, date: null };

describe('R-17: cache lifetime of a fetched robots.txt', () => {
  it.each<[string, Partial<CacheHeaders>, { lifetimeSeconds: number; source: string; maxAgeSeconds: number | null; ageSeconds: number }]>([
    ['no headers: the 24 h default', {}, { lifetimeSeconds: DAY, source: 'default', maxAgeSeconds: null, ageSeconds: 0 }],
    ['max-age shortens', { cacheControl: 'max-age=3600' }, { lifetimeSeconds: 3600, source: 'max-age', maxAgeSeconds: 3600, ageSeconds: 0 }],
    ['max-age lengthens', { cacheControl: 'public, max-age=172800' }, { lifetimeSeconds: 172800, source: 'max-age', maxAgeSeconds: 172800, ageSeconds: 0 }],
    ['max-age minus Age', { cacheControl: 'max-age=600', age: '60' }, { lifetimeSeconds: 540, source: 'max-age', maxAgeSeconds: 600, ageSeconds: 60 }],
    ['Age beyond max-age clamps to 0', { cacheControl: 'max-age=60', age: '600' }, { lifetimeSeconds: 0, source: 'max-age', maxAgeSeconds: 60, ageSeconds: 600 }],
    ['max-age=0', { cacheControl: 'max-age=0' }, { lifetimeSeconds: 0, source: 'max-age', maxAgeSeconds: 0, ageSeconds: 0 }],
    ['quoted max-age', { cacheControl: 'max-age="120"' }, { lifetimeSeconds: 120, source: 'max-age', maxAgeSeconds: 120, ageSeconds: 0 }],
    ['directive names are case-insensitive', { cacheControl: 'Max-Age=90' }, { lifetimeSeconds: 90, source: 'max-age', maxAgeSeconds: 90, ageSeconds: 0 }],
    ['the first max-age wins', { cacheControl: 'max-age=10, max-age=20' }, { lifetimeSeconds: 10, source: 'max-age', maxAgeSeconds: 10, ageSeconds: 0 }],
    ['s-maxage wins over max-age (shared cache)', { cacheControl: 'max-age=60, s-maxage=7200' }, { lifetimeSeconds: 7200, source: 's-maxage', maxAgeSeconds: 7200, ageSeconds: 0 }],
    ['s-maxage minus Age', { cacheControl: 's-maxage=100', age: '30' }, { lifetimeSeconds: 70, source: 's-maxage', maxAgeSeconds: 100, ageSeconds: 30 }],
    ['invalid max-age is ignored', { cacheControl: 'max-age=soon' }, { lifetimeSeconds: DAY, source: 'default', maxAgeSeconds: null, ageSeconds: 0 }],
    ['negative max-age is ignored', { cacheControl: 'max-age=-5' }, { lifetimeSeconds: DAY, source: 'default', maxAgeSeconds: null, ageSeconds: 0 }],
    ['no-store: never reused', { cacheControl: 'no-store, max-age=3600' }, { lifetimeSeconds: 0, source: 'no-store', maxAgeSeconds: null, ageSeconds: 0 }],
    ['no-cache: needs revalidation we never do (R-19)', { cacheControl: 'max-age=3600, no-cache' }, { lifetimeSeconds: 0, source: 'no-cache', maxAgeSeconds: null, ageSeconds: 0 }],
    ['private: not for a shared cache', { cacheControl: 'private, max-age=3600' }, { lifetimeSeconds: 0, source: 'private', maxAgeSeconds: null, ageSeconds: 0 }],
    ['unrelated directives change nothing', { cacheControl: 'public, must-revalidate' }, { lifetimeSeconds: DAY, source: 'default', maxAgeSeconds: null, ageSeconds: 0 }],
    ['Expires minus Date', { expires: 'Sun, 01 Mar 2026 14:00:00 GMT', date: 'Sun, 01 Mar 2026 12:00:00 GMT' }, { lifetimeSeconds: 7200, source: 'expires', maxAgeSeconds: null, ageSeconds: 0 }],
    ['Expires counts from Date, not from our clock', { expires: 'Sun, 01 Mar 2026 14:00:00 GMT', date: 'Sun, 01 Mar 2026 13:00:00 GMT' }, { lifetimeSeconds: 3600, source: 'expires', maxAgeSeconds: null, ageSeconds: 0 }],
    ['Expires without Date counts from now', { expires: 'Sun, 01 Mar 2026 12:30:00 GMT' }, { lifetimeSeconds: 1800, source: 'expires', maxAgeSeconds: null, ageSeconds: 0 }],
    ['Expires minus Date minus Age', { expires: 'Sun, 01 Mar 2026 14:00:00 GMT', date: 'Sun, 01 Mar 2026 12:00:00 GMT', age: '200' }, { lifetimeSeconds: 7000, source: 'expires', maxAgeSeconds: null, ageSeconds: 200 }],
    ['Expires in the past clamps to 0', { expires: 'Sat, 01 Jan 2000 00:00:00 GMT' }, { lifetimeSeconds: 0, source: 'expires', maxAgeSeconds: null, ageSeconds: 0 }],
    ['invalid Expires (0) means already expired', { expires: '0' }, { lifetimeSeconds: 0, source: 'expires', maxAgeSeconds: null, ageSeconds: 0 }],
    ['max-age wins over Expires', { cacheControl: 'max-age=60', expires: 'Sun, 01 Mar 2026 14:00:00 GMT' }, { lifetimeSeconds: 60, source: 'max-age', maxAgeSeconds: 60, ageSeconds: 0 }],
    ['an invalid Age is read as 0', { cacheControl: 'max-age=60', age: 'old' }, { lifetimeSeconds: 60, source: 'max-age', maxAgeSeconds: 60, ageSeconds: 0 }],
    ['Age does not shorten the default', { age: '3600' }, { lifetimeSeconds: DAY, source: 'default', maxAgeSeconds: null, ageSeconds: 3600 }],
  ])('%s', (_name, headers, expected) => {
    const lifetime = cacheLifetime({ ...none, ...headers }, now, DAY);
    expect(lifetime).toMatchObject(expected);
    expect(lifetime.expiresAt.getTime()).toBe(now.getTime() + expected.lifetimeSeconds * 1000);
  });

  it('the default is the option given (R-17 default lives in config)', () => {
    expect(cacheLifetime(none, now, 600)).toMatchObject({ lifetimeSeconds: 600, source: 'default' });
  });

  it('huge deltas are read as 2^31 seconds (RFC 9111 §1.2.2)', () => {
    expect(cacheLifetime({ ...none, cacheControl: 'max-age=99999999999999999999' }, now, DAY).maxAgeSeconds).toBe(2_147_483_648);
  });
});

describe('Cache-Control parsing', () => {
  it('reads names case-insensitively, keeps values, first occurrence wins', () => {
    const d = parseCacheControl('Public, MAX-AGE=60 , no-cache="set-cookie", max-age=5');
    expect([...d.entries()]).toEqual([
      ['public', undefined],
      ['max-age', '60'],
      ['no-cache', '"set-cookie"'],
    ]);
  });

  it('an absent header has no directives', () => {
    expect(parseCacheControl(null).size).toBe(0);
  });
});
