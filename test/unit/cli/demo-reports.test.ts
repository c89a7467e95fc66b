import { describe, expect, it } from 'vitest';
import { flipsByChange, hostOf, pathOf, readableReport } from '../../../src/cli/demo-reports.js';
import type { ReportTable } from '../../../src/reports/index.js';

describe('hostOf and pathOf: demo origins and URLs as a reader wants them', () => {
  it.each<[string, string]>([
    ['http://courier.demo:40409', 'courier.demo'],
    ['http://www.ariva.de.demo:1234', 'www.ariva.de.demo'],
    ['not a url', 'not a url'],
  ])('hostOf(%s) = %s', (origin, host) => {
    expect(hostOf(origin)).toBe(host);
  });

  it.each<[string, string]>([
    ['http://courier.demo:40409/search?q=election', '/search?q=election'],
    ['http://courier.demo:40409/', '/'],
    ['/already/a/path', '/already/a/path'],
  ])('pathOf(%s) = %s', (u, path) => {
    expect(pathOf(u)).toBe(path);
  });
});

describe('readableReport', () => {
  const table: ReportTable = {
    report: 'failing',
    columns: [
      { key: 'origin', header: 'SITE', type: 'text' },
      { key: 'url', header: 'URL', type: 'text' },
      { key: 'copyOf', header: 'USING COPY OF', type: 'time' },
      { key: 'signals', header: 'CONTENT-SIGNAL', type: 'list' },
    ],
    rows: [
      { origin: 'http://outage.demo:5000', url: 'http://outage.demo:5000/checkout/pay', copyOf: new Date('2024-01-01T03:00:00Z'), signals: [] },
      { origin: 'http://moved.demo:5000', url: 'http://moved.demo:5000/', copyOf: null, signals: [] },
    ],
  };

  it('shows sites by host and URLs by path, and leaves out the columns empty on every row', () => {
    const readable = readableReport(table);
    expect(readable.columns.map((c) => c.key)).toEqual(['origin', 'url', 'copyOf']);
    expect(readable.rows.map((r) => [r.origin, r.url])).toEqual([
      ['outage.demo', '/checkout/pay'],
      ['moved.demo', '/'],
    ]);
  });

  it('keeps every column of an empty report (its heading still says what it would list)', () => {
    expect(readableReport({ ...table, rows: [] }).columns).toHaveLength(4);
  });
});

describe('flipsByChange: one row per night, URL and change, naming the crawlers', () => {
  const night = new Date('2025-08-29T22:00:00Z');
  const flip = (url: string, agent: string, before: string, after: string, cause: string) => ({ night, origin: 'http://a.demo:1', url, agent, category: null, before, after, cause, rule: 'no rule' });
  const flips: ReportTable = {
    report: 'flips',
    columns: [],
    rows: [
      flip('http://a.demo:1/', 'Bingbot', 'disallowed', 'allowed', 'fallback_started'),
      flip('http://a.demo:1/', 'GPTBot', 'disallowed', 'allowed', 'fallback_started'),
      flip('http://a.demo:1/', 'CCBot', 'allowed', 'disallowed', 'rules_changed'),
      flip('http://a.demo:1/x', 'Bingbot', 'disallowed', 'allowed', 'fallback_started'),
    ],
  };

  it('groups in the order of the report, keeping each crawler once under its change', () => {
    const grouped = flipsByChange(flips);
    expect(grouped.columns.map((c) => c.header)).toEqual(['NIGHT', 'SITE', 'URL', 'BEFORE', 'AFTER', 'CAUSE', 'CRAWLERS']);
    expect(grouped.rows.map((r) => [r.url, r.before, r.after, r.cause, r.agents])).toEqual([
      ['http://a.demo:1/', 'disallowed', 'allowed', 'fallback_started', ['Bingbot', 'GPTBot']],
      ['http://a.demo:1/', 'allowed', 'disallowed', 'rules_changed', ['CCBot']],
      ['http://a.demo:1/x', 'disallowed', 'allowed', 'fallback_started', ['Bingbot']],
    ]);
  });
});
