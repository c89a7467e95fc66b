/**
 * A report is a table of typed columns; this module writes one as a terminal table that fits a
 * width, as RFC 4180 CSV (csv-stringify, the csv-parse family the project already reads CSV
 * with), or as JSON. The same table feeds the CLI, the demo and the dashboard's CSV downloads, so
 * every reader sees the same columns.
 */
import { stringify } from 'csv-stringify/sync';

export type ColumnType = 'text' | 'number' | 'time' | 'list' | 'boolean';

export interface ReportColumn {
  /** The JSON key and the value's key in each row. */
  key: string;
  /** The table's and the CSV's heading. */
  header: string;
  type: ColumnType;
  /** May be cut (with an ellipsis) when the table is wider than the terminal. */
  shrink?: boolean;
}

export type ReportValue = string | number | boolean | null | readonly string[] | Date;
export type ReportRow = Record<string, ReportValue>;

export interface ReportTable {
  report: string;
  columns: readonly ReportColumn[];
  rows: readonly ReportRow[];
  /** What the rows leave out, in words (not part of the table, CSV or JSON: the CLI says it on stderr). */
  notes?: readonly string[];
}

export const REPORT_FORMATS = ['table', 'csv', 'json'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export interface FormatOptions {
  /** The table's width in characters; unbounded when absent (output is not a terminal). */
  width?: number;
}

export function formatReport(table: ReportTable, format: ReportFormat, options: FormatOptions = {}): string {
  switch (format) {
    case 'table':
      return formatTable(table, options.width);
    case 'csv':
      return formatCsv(table);
    case 'json':
      return formatJson(table);
  }
}

/** `2026-11-23T02:00:00.000Z` → `2026-11-23 02:00` (UTC, to the minute: nights are minutes apart at most). */
function shortTime(d: Date): string {
  return d.toISOString().slice(0, 16).replace('T', ' ');
}

function cellText(value: ReportValue, type: ColumnType, forTable: boolean): string {
  if (value === null || value === undefined) return forTable ? '-' : '';
  if (value instanceof Date) return forTable ? shortTime(value) : value.toISOString();
  if (Array.isArray(value)) return value.length === 0 && forTable ? '-' : value.join(', ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (type === 'number' && typeof value === 'number' && forTable) return value.toLocaleString('en-US');
  return String(value);
}

/** Control characters of hostile bodies (a path with a newline or an escape sequence) shown, not obeyed. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const visible = (s: string) => s.replace(CONTROL, (c) => (c === '\n' ? '⏎' : c === '\t' ? ' ' : '�'));

const GAP = '  ';
/** A column cut to fit keeps at least this many characters (a header fragment stays legible). */
const MIN_SHRUNK_WIDTH = 8;

function formatTable(table: ReportTable, width: number | undefined): string {
  if (table.rows.length === 0) return `no rows (${table.report})\n`;
  const cells = table.rows.map((row) => table.columns.map((c) => visible(cellText(row[c.key] ?? null, c.type, true))));
  const natural = table.columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
  const widths = fitWidths(table.columns, natural, width);
  const line = (values: string[]) =>
    values
      .map((v, i) => {
        const w = widths[i]!;
        const cut = v.length > w ? `${v.slice(0, Math.max(0, w - 1))}…` : v;
        const last = i === values.length - 1;
        if (table.columns[i]!.type === 'number') return cut.padStart(w);
        return last ? cut : cut.padEnd(w);
      })
      .join(GAP)
      .trimEnd();
  return `${[line(table.columns.map((c) => c.header)), ...cells.map(line)].join('\n')}\n`;
}

/**
 * Column widths that fit `width`: the shrinkable columns give up characters, widest first, down
 * to a floor; a table that still does not fit is printed as narrow as it can be (cutting every
 * column would leave nothing readable).
 */
export function fitWidths(columns: readonly ReportColumn[], natural: readonly number[], width: number | undefined): number[] {
  const widths = [...natural];
  if (width === undefined) return widths;
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP.length * (widths.length - 1);
  let excess = total() - width;
  while (excess > 0) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      const floor = Math.min(natural[i]!, Math.max(MIN_SHRUNK_WIDTH, columns[i]!.header.length));
      if (columns[i]!.shrink && widths[i]! > floor && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    }
    if (widest < 0) break;
    widths[widest]! -= 1;
    excess -= 1;
  }
  return widths;
}

function formatCsv(table: ReportTable): string {
  return csvHeading(table.columns) + csvRecords(table.columns, table.rows);
}

/**
 * OWASP's list of what makes a spreadsheet read a cell as a formula (CSV injection,
 * https://owasp.org/www-community/attacks/CSV_Injection, read 2026-11-24): a leading `=`, `+`,
 * `-`, `@`, tab or carriage return. A site's text may start so (`-Disallow: /old` in a diff,
 * `=HYPERLINK(...)` in a path), so such a text cell gets a leading apostrophe, which a
 * spreadsheet shows as text and does not evaluate. Numbers and times never start so.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
export const csvCell = (text: string) => (FORMULA_START.test(text) ? `'${text}` : text);

/** The CSV heading line of a report's columns (RFC 4180, CRLF). */
export function csvHeading(columns: readonly ReportColumn[]): string {
  return stringify([columns.map((c) => c.header)], { record_delimiter: 'windows' });
}

/** CSV records of rows (no heading): a streamed download writes one batch at a time. */
export function csvRecords(columns: readonly ReportColumn[], rows: readonly ReportRow[]): string {
  return stringify(
    rows.map((row) =>
      columns.map((c) => {
        const value = row[c.key] ?? null;
        const text = cellText(value, c.type, false);
        return typeof value === 'number' ? text : csvCell(text);
      }),
    ),
    { record_delimiter: 'windows' },
  );
}

/** A JSON array of objects with the columns' keys: times as ISO 8601, lists as arrays, absent values as null. */
function formatJson(table: ReportTable): string {
  const rows = table.rows.map((row) => Object.fromEntries(table.columns.map((c) => [c.key, jsonValue(row[c.key] ?? null)])));
  return `${JSON.stringify(rows, null, 2)}\n`;
}

function jsonValue(value: ReportValue): unknown {
  return value instanceof Date ? value.toISOString() : value;
}
