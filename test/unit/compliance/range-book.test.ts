/**
 * A request is checked against its operator's range file of its day (docs/compliance.md): the
 * latest published by the end of that day (UTC); a request older than every file, the oldest.
 */
import { describe, expect, it } from 'vitest';
import { RangeBook } from '../../../src/compliance/range-book.js';

const book = new RangeBook([
  { source: 'gptbot', publishedAt: new Date('2026-03-10T11:00:00Z'), prefixes: ['20.0.0.0/24', '21.0.0.0/24'] },
  // The later file drops 20.0.0.0/24 and adds 22.0.0.0/24.
  { source: 'gptbot', publishedAt: new Date('2026-06-01T09:00:00Z'), prefixes: ['21.0.0.0/24', '22.0.0.0/24'] },
  { source: 'googlebot', publishedAt: new Date('2026-01-01T00:00:00Z'), prefixes: ['66.249.64.0/27'] },
]);

describe('RangeBook.setFor: the file of the request day', () => {
  it.each([
    ['older than every file: the oldest', '2025-12-31T00:00:00Z', '20.0.0.9', true],
    ['the day the first file was published, before its hour: that day counts', '2026-03-10T01:00:00Z', '20.0.0.9', true],
    ['between the files: the first', '2026-05-31T23:59:59Z', '22.0.0.9', false],
    ['the day the second was published: the second', '2026-06-01T00:00:01Z', '22.0.0.9', true],
    ['an address the second file dropped is no longer verified after it', '2026-07-01T00:00:00Z', '20.0.0.9', false],
    ['an address in both', '2026-07-01T00:00:00Z', '21.0.0.1', true],
  ])('%s', (_case, at, ip, inside) => {
    expect(book.setFor('gptbot', new Date(at))?.contains(ip)).toBe(inside);
  });

  it('a source without a file: null (unverifiable, not spoofed)', () => {
    expect(book.setFor('ccbot', new Date('2026-07-01T00:00:00Z'))).toBeNull();
    expect(book.has('ccbot')).toBe(false);
    expect(book.has('googlebot')).toBe(true);
  });
});
