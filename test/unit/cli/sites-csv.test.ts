/**
 * The CSV of `sites import`: columns, labels, and problems reported by the line of the file
 * where a row starts (the header is line 1).
 */
import { describe, expect, it } from 'vitest';
import { LabelSyntaxError, parseLabels, parseSitesCsv } from '../../../src/cli/sites-csv.js';

describe('parseLabels: key=value;key2=value2', () => {
  it.each([
    ['', {}],
    ['team=seo', { team: 'seo' }],
    ['team=seo;tier=1', { team: 'seo', tier: '1' }],
    [' team = seo ; tier=1 ;', { team: 'seo', tier: '1' }],
    ['tier=1;tier=2', { tier: '2' }],
    ['note=a=b', { note: 'a=b' }],
    ['owner=', { owner: '' }],
  ])('%j -> %j', (text, labels) => {
    expect(parseLabels(text)).toEqual(labels);
  });

  it.each([
    ['tier', 'bad label "tier" (expected key=value)'],
    ['team=seo;tier', 'bad label "tier" (expected key=value)'],
    ['=1', 'bad label "=1" (empty key)'],
  ])('%j is refused: %s', (text, message) => {
    expect(() => parseLabels(text)).toThrow(new LabelSyntaxError(message));
  });
});

describe('parseSitesCsv: rows', () => {
  it('normalises each url to its origin (R-1..R-6) and reads portfolio and labels', () => {
    const csv = parseSitesCsv('url,portfolio,labels\nExample.com/a,shop,team=seo\nhttp://b.example:80,,\n');
    expect(csv).toEqual({
      entries: [
        { line: 2, origin: 'https://example.com', portfolios: ['shop'], labels: { team: 'seo' } },
        { line: 3, origin: 'http://b.example', portfolios: [], labels: {} },
      ],
      problems: [],
      fatal: false,
    });
  });

  it('columns may come in any order and case; optional ones may be missing', () => {
    expect(parseSitesCsv('Labels,URL\ntier=1,a.example\n').entries).toEqual([{ line: 2, origin: 'https://a.example', portfolios: [], labels: { tier: '1' } }]);
    expect(parseSitesCsv('url\na.example\n').entries).toEqual([{ line: 2, origin: 'https://a.example', portfolios: [], labels: {} }]);
  });

  it('a short row reads the missing cells as empty', () => {
    expect(parseSitesCsv('url,portfolio,labels\na.example\n').entries).toEqual([{ line: 2, origin: 'https://a.example', portfolios: [], labels: {} }]);
  });

  it('reads a UTF-8 byte order mark and CRLF line ends', () => {
    const csv = parseSitesCsv(Buffer.from('\uFEFFurl,portfolio\r\na.example,shop\r\n', 'utf8'));
    expect(csv.entries).toEqual([{ line: 2, origin: 'https://a.example', portfolios: ['shop'], labels: {} }]);
  });
});

describe('parseSitesCsv: problems by line of the file', () => {
  it.each([
    ['empty url', 'url,portfolio\n,shop\n', { line: 2, reason: 'empty url' }],
    ['bad url', 'url\nhttp://exa mple.com\n', { line: 2, reason: 'invalid URL "http://exa mple.com": not a URL' }],
    ['bad label', 'url,labels\na.example,tier\n', { line: 2, reason: 'bad label "tier" (expected key=value)' }],
    ['too many fields', 'url,portfolio\na.example,shop,extra\n', { line: 2, reason: '3 fields, the header has 2' }],
    ['after blank lines', 'url\n\n\nhttp://exa mple.com\n', { line: 4, reason: 'invalid URL "http://exa mple.com": not a URL' }],
    ['after a quoted field over lines', 'url,portfolio\na.example,"two\nlines"\n,x\n', { line: 4, reason: 'empty url' }],
  ])('%s', (_name, text, problem) => {
    const csv = parseSitesCsv(text);
    expect(csv.problems).toEqual([problem]);
    expect(csv.fatal).toBe(false);
  });

  it('a row with a quoted multi-line field is reported at its first line', () => {
    expect(parseSitesCsv('url,labels\na.example,\nb.example,"tier\nx"\n,\n').problems).toEqual([
      { line: 3, reason: 'bad label "tier\nx" (expected key=value)' },
      { line: 5, reason: 'empty url' },
    ]);
  });

  it.each([
    ['an unknown column', 'url,lables\n', 'unknown column "lables" (columns: url, portfolio, labels)'],
    ['no url column', 'portfolio\nshop\n', 'no "url" column'],
    ['a column twice', 'url,URL\n', 'column "url" appears twice'],
    ['no header', '', 'no header row (expected url,portfolio,labels)'],
  ])('%s makes the file unusable', (_name, text, reason) => {
    expect(parseSitesCsv(text)).toEqual({ entries: [], problems: [{ line: 1, reason }], fatal: true });
  });

  it('broken quoting makes the file unusable, with the line', () => {
    const csv = parseSitesCsv('url\na.example\n"b.example\n');
    expect(csv.fatal).toBe(true);
    expect(csv.entries).toEqual([]);
    expect(csv.problems).toHaveLength(1);
    expect(csv.problems[0]!.line).toBe(3);
  });
});
