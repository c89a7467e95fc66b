import { describe, expect, it } from 'vitest';
import { parseHttpDate } from '../../../src/http/http-date.js';
import { parseRetryAfter } from '../../../src/http/retry-after.js';

const now = new Date('2026-03-01T12:00:00Z');

describe('D-4, R-13: Retry-After on 429 and 503', () => {
  it.each<[string | null, number | null]>([
    ['7', 7],
    ['0', 0],
    [' 120 ', 120],
    ['3600', 3600],
    ['Sun, 01 Mar 2026 12:02:00 GMT', 120], // HTTP-date, relative to now
    ['Sun, 01 Mar 2026 12:00:00 GMT', 0],
    ['Sat, 28 Feb 2026 12:00:00 GMT', 0], // a date in the past means no wait
    ['Sun, 01 Mar 2026 12:00:00.5 GMT', null],
    ['Sunday, 01-Mar-26 12:01:00 GMT', 60], // obsolete rfc850 form
    ['Sun Mar  1 12:00:30 2026', 30], // obsolete asctime form, read as GMT
    ['-1', null],
    ['1.5', null],
    ['soon', null],
    ['', null],
    [null, null],
  ])('%j -> %j', (value, seconds) => {
    expect(parseRetryAfter(value, now)).toBe(seconds);
  });
});

describe('HTTP-date (RFC 9110 §5.6.7)', () => {
  it.each<[string, string | null]>([
    ['Sun, 06 Nov 1994 08:49:37 GMT', '1994-11-06T08:49:37.000Z'],
    ['Sunday, 06-Nov-94 08:49:37 GMT', '1994-11-06T08:49:37.000Z'],
    ['Sun Nov  6 08:49:37 1994', '1994-11-06T08:49:37.000Z'],
    ['sun, 06 nov 1994 08:49:37 gmt', '1994-11-06T08:49:37.000Z'],
    ['Mon, 31 Feb 2026 00:00:00 GMT', null], // no 31 February
    ['Sun, 06 Nov 1994 24:00:00 GMT', null],
    ['Sun, 06 Xyz 1994 08:49:37 GMT', null],
    ['Sun, 06 Nov 1994 08:49:37 +0000', null],
    ['2026-03-01T12:00:00Z', null], // ISO 8601 is not an HTTP-date
    ['0', null],
  ])('%s', (text, iso) => {
    expect(parseHttpDate(text, now)?.toISOString() ?? null).toBe(iso);
  });

  it('reads a two-digit rfc850 year as no more than 50 years ahead', () => {
    expect(parseHttpDate('Friday, 01-Jan-70 00:00:00 GMT', now)?.getUTCFullYear()).toBe(2070);
    expect(parseHttpDate('Tuesday, 01-Jan-80 00:00:00 GMT', now)?.getUTCFullYear()).toBe(1980);
  });
});
