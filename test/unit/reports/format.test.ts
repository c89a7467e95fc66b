/** src/reports/format.ts: one table, three formats; the terminal table fits its width. */
import { parse as parseCsv } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { csvCell, csvHeading, csvRecords, fitWidths, formatReport } from '../../../src/reports/format.js';
import type { ReportColumn, ReportTable } from '../../../src/reports/format.js';

const COLUMNS: ReportColumn[] = [
  { key: 'origin', header: 'SITE', type: 'text', shrink: true },
  { key: 'n', header: 'N', type: 'number' },
  { key: 'at', header: 'AT', type: 'time' },
  { key: 'tags', header: 'TAGS', type: 'list', shrink: true },
  { key: 'ok', header: 'OK', type: 'boolean' },
];

const TABLE: ReportTable = {
  report: 'sample',
  columns: COLUMNS,
  rows: [
    { origin: 'https://a.example', n: 1234, at: new Date('2026-03-01T03:00:00Z'), tags: ['x', 'y'], ok: true },
    { origin: 'https://b.example', n: null, at: null, tags: [], ok: false },
    { origin: 'https://"quoted", with\ncomma.example', n: 5, at: null, tags: ['a,b'], ok: null },
  ],
};

describe('table', () => {
  it('aligns columns, right-aligns numbers, shows absent values as -, times to the minute in UTC', () => {
    const lines = formatReport({ ...TABLE, rows: TABLE.rows.slice(0, 2) }, 'table').split('\n');
    expect(lines).toEqual([
      'SITE                   N  AT                TAGS  OK',
      'https://a.example  1,234  2026-03-01 03:00  x, y  yes',
      'https://b.example      -  -                 -     no',
      '',
    ]);
  });

  it('shows a control character of a hostile value as a visible mark, never as itself', () => {
    const out = formatReport(TABLE, 'table');
    expect(out).toContain('with⏎comma');
    expect(out.split('\n')).toHaveLength(TABLE.rows.length + 2);
    const escape = formatReport({ report: 'x', columns: COLUMNS.slice(0, 1), rows: [{ origin: '\u001b[31mred' }] }, 'table');
    expect(escape).not.toContain('\u001b');
  });

  it('an empty report says so in one line', () => {
    expect(formatReport({ ...TABLE, rows: [] }, 'table')).toBe('no rows (sample)\n');
  });
});

describe('fitWidths', () => {
  const cols = (shrink: boolean[]): ReportColumn[] => shrink.map((s, i) => ({ key: `c${i}`, header: `H${i}`, type: 'text', shrink: s }));
  it.each([
    // natural widths, shrinkable, width → widths
    [[10, 30, 10], [false, true, false], undefined, [10, 30, 10]],
    [[10, 30, 10], [false, true, false], 100, [10, 30, 10]],
    [[10, 30, 10], [false, true, false], 44, [10, 20, 10]],
    [[10, 30, 20], [false, true, true], 44, [10, 15, 15]],
    // floor of 8 characters: the table stays wider than asked rather than unreadable
    [[10, 30, 10], [false, true, false], 20, [10, 8, 10]],
    [[10, 5, 10], [false, true, false], 20, [10, 5, 10]],
  ])('%j shrinkable %j in %s → %j', (natural, shrink, width, expected) => {
    expect(fitWidths(cols(shrink), natural, width)).toEqual(expected);
  });
});

describe('CSV (RFC 4180)', () => {
  it('has the headings, CRLF line ends, quotes what needs quoting, and reads back as written', () => {
    const csv = formatReport(TABLE, 'csv');
    expect(csv.startsWith('SITE,N,AT,TAGS,OK\r\n')).toBe(true);
    expect(csv).toContain('"https://""quoted"", with\ncomma.example"');
    const back = parseCsv(csv, { columns: true }) as Record<string, string>[];
    expect(back).toEqual([
      { SITE: 'https://a.example', N: '1234', AT: '2026-03-01T03:00:00.000Z', TAGS: 'x, y', OK: 'yes' },
      { SITE: 'https://b.example', N: '', AT: '', TAGS: '', OK: 'no' },
      { SITE: 'https://"quoted", with\ncomma.example', N: '5', AT: '', TAGS: 'a,b', OK: '' },
    ]);
  });
});

describe('CSV: a cell a spreadsheet would read as a formula is text (CSV injection, OWASP)', () => {
  it.each([
    ['=HYPERLINK("https://evil.example","x")', `'=HYPERLINK("https://evil.example","x")`],
    ['+ group GPTBot', "'+ group GPTBot"],
    ['-Disallow: /old/', "'-Disallow: /old/"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tcmd', "'\tcmd"],
    ['\rcmd', "'\rcmd"],
    ['https://a.example', 'https://a.example'],
    ['2026-03-01T03:00:00.000Z', '2026-03-01T03:00:00.000Z'],
    ['a=b', 'a=b'],
    ['', ''],
  ])('%j → %j', (text, cell) => {
    expect(csvCell(text)).toBe(cell);
  });

  it('in a report: text cells only, numbers stay numbers; streamed batches are the same bytes as the whole', () => {
    const columns: ReportColumn[] = [
      { key: 'what', header: 'WHAT', type: 'text' },
      { key: 'n', header: 'N', type: 'number' },
    ];
    const rows = [{ what: '=1+1', n: -3 }, { what: '-x', n: 2 }];
    const csv = formatReport({ report: 'x', columns, rows }, 'csv');
    expect(parseCsv(csv, { columns: true })).toEqual([{ WHAT: "'=1+1", N: '-3' }, { WHAT: "'-x", N: '2' }]);
    expect(csvHeading(columns) + csvRecords(columns, rows.slice(0, 1)) + csvRecords(columns, rows.slice(1))).toBe(csv);
    expect(csvRecords(columns, [])).toBe('');
  });
});

describe('JSON', () => {
  it('an array of objects keyed by column: ISO times, arrays, numbers, null', () => {
    expect(JSON.parse(formatReport(TABLE, 'json'))).toEqual([
      { origin: 'https://a.example', n: 1234, at: '2026-03-01T03:00:00.000Z', tags: ['x', 'y'], ok: true },
      { origin: 'https://b.example', n: null, at: null, tags: [], ok: false },
      { origin: 'https://"quoted", with\ncomma.example', n: 5, at: null, tags: ['a,b'], ok: null },
    ]);
    expect(formatReport({ ...TABLE, rows: [] }, 'json')).toBe('[]\n');
  });
});

describe('docs/reports.md', () => {
  it('documents every column of every report, by JSON key and heading', async () => {
    const { readFileSync } = await import('node:fs');
    const doc = readFileSync(new URL('../../../docs/reports.md', import.meta.url), 'utf8');
    const { STATUS_COLUMNS } = await import('../../../src/reports/report-status.js');
    const { CHANGES_COLUMNS } = await import('../../../src/reports/report-changes.js');
    const { FLIPS_COLUMNS } = await import('../../../src/reports/report-flips.js');
    const { ALERTS_COLUMNS } = await import('../../../src/reports/report-alerts.js');
    const { AI_ACCESS_COLUMNS } = await import('../../../src/reports/report-ai-access.js');
    const { AI_USE_COLUMNS } = await import('../../../src/reports/report-ai-use.js');
    const { FAILING_COLUMNS } = await import('../../../src/reports/report-failing.js');
    const { LINT_COLUMNS } = await import('../../../src/reports/report-lint.js');
    const { PORTABILITY_COLUMNS } = await import('../../../src/reports/report-portability.js');
    const { COMPLIANCE_COLUMNS, VIOLATIONS_COLUMNS } = await import('../../../src/reports/report-compliance.js');
    const sections: [string, readonly ReportColumn[]][] = [
      ['status', STATUS_COLUMNS],
      ['changes', CHANGES_COLUMNS],
      ['flips', FLIPS_COLUMNS],
      ['alerts', ALERTS_COLUMNS],
      ['ai-access', [...AI_ACCESS_COLUMNS, { key: 'newlyBlocked', header: 'NEWLY BLOCKED', type: 'list' }, { key: 'newlyAllowed', header: 'NEWLY ALLOWED', type: 'list' }]],
      ['ai-use', [...AI_USE_COLUMNS, { key: 'before', header: 'BEFORE', type: 'text' }, { key: 'mayCrawl', header: 'TRAINING CRAWLERS MAY CRAWL', type: 'text' }]],
      ['failing', FAILING_COLUMNS],
      ['lint', LINT_COLUMNS],
      ['portability', PORTABILITY_COLUMNS],
      ['compliance', COMPLIANCE_COLUMNS],
      ['violations', VIOLATIONS_COLUMNS],
    ];
    for (const [name, columns] of sections) {
      const section = doc.split(`\n## ${name}\n`)[1]?.split('\n## ')[0];
      expect(section, name).toBeDefined();
      for (const c of columns) {
        expect(section, `${name}: ${c.key}`).toContain(`\`${c.key}\``);
        expect(section, `${name}: ${c.header}`).toMatch(new RegExp(`\\b${c.header.split(' ')[0]}\\b`));
      }
    }
  });
});
