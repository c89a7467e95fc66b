/**
 * Every value a website sends is clamped to its column before it is written (issue 17, item 2):
 * a value one past a column's range failed the night's insert every time. Cases at each limit.
 */
import { describe, expect, it } from 'vitest';
import { INT4_MAX, SMALLINT_MAX, clampInt4, clampSmallint, clampText } from '../../../src/db/column-limits.js';
import { MAX_LIFETIME_SECONDS, cacheLifetime } from '../../../src/http/cache-lifetime.js';
import { storedFullSize } from '../../../src/services/night/rows.js';

describe('integer columns: 0..2^31-1', () => {
  it.each([
    [null, null],
    [0, 0],
    [-5, 0],
    [12.9, 12],
    [INT4_MAX - 1, INT4_MAX - 1],
    [INT4_MAX, INT4_MAX],
    [INT4_MAX + 1, INT4_MAX],
    [99_999_999_999, INT4_MAX],
    [Number.POSITIVE_INFINITY, INT4_MAX],
    [Number.NaN, null],
  ])('%s -> %s', (n, expected) => expect(clampInt4(n)).toBe(expected));
});

describe('smallint columns: 0..32767', () => {
  it.each([
    [SMALLINT_MAX, SMALLINT_MAX],
    [SMALLINT_MAX + 1, SMALLINT_MAX],
    [599, 599],
    [null, null],
  ])('%s -> %s', (n, expected) => expect(clampSmallint(n)).toBe(expected));
});

describe('header and message text', () => {
  it.each([
    ['abc', 3, 'abc'],
    ['abcd', 3, 'ab…'],
    ['a\u{1F600}bc', 3, 'a…'],
  ])('%j cut to %i -> %j', (text, max, expected) => expect(clampText(text, max)).toBe(expected));
});

describe('R-17: cache lifetimes fit the integer column', () => {
  const now = new Date('2026-11-24T03:00:00Z');
  const none = { cacheControl: null, expires: null, age: null, date: null };
  it.each([
    ['max-age=2147483647', { cacheControl: 'max-age=2147483647' }, MAX_LIFETIME_SECONDS],
    ['max-age=2147483648 (one past the column)', { cacheControl: 'max-age=2147483648' }, MAX_LIFETIME_SECONDS],
    ['max-age=99999999999999999999', { cacheControl: 'max-age=99999999999999999999' }, MAX_LIFETIME_SECONDS],
    ['Expires: Fri, 31 Dec 9999', { expires: 'Fri, 31 Dec 9999 23:59:59 GMT' }, MAX_LIFETIME_SECONDS],
  ])('%s', (_name, headers, expected) => {
    const lifetime = cacheLifetime({ ...none, ...headers }, now, 86_400);
    expect(lifetime.lifetimeSeconds).toBe(expected);
    expect(lifetime.lifetimeSeconds).toBeLessThanOrEqual(INT4_MAX);
    expect(Number.isNaN(lifetime.expiresAt.getTime())).toBe(false);
  });
});

describe('full size: the claim of a Content-Length within the column', () => {
  it.each([
    [{ fullSize: 99_999_999_999, bodyBytes: 512_000 }, INT4_MAX],
    [{ fullSize: 614_400, bodyBytes: 512_000 }, 614_400],
    [{ fullSize: 512_000, bodyBytes: 512_000 }, null],
    [{ fullSize: null, bodyBytes: 10 }, null],
  ])('%j -> %s', (r, expected) => expect(storedFullSize(r)).toBe(expected));
});
