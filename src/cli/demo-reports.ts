/**
 * The reports the demo ends with, as `robots-audit report` builds them, made easier to read at
 * a glance: sites by host name (every demo origin is `http://<host>:<port>`), URLs by path,
 * columns that are empty on every row left out, and the flips of one URL that changed the same
 * way for several crawlers on one row naming them all (`report flips` gives one row a crawler).
 */
import type pg from 'pg';
import { buildReport, formatReport } from '../reports/index.js';
import type { ReportColumn, ReportName, ReportRow, ReportTable, ReportValue } from '../reports/index.js';

/** `http://courier.demo:40409` -> `courier.demo`; anything else as it is. */
export function hostOf(origin: string): string {
  try {
    return new URL(origin).hostname;
  } catch {
    return origin;
  }
}

/** `http://courier.demo:40409/search?q=x` -> `/search?q=x`. */
export function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

const isEmpty = (v: ReportValue | undefined) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

/** Sites as host names, URLs as paths, and no column that is empty on every row. */
export function readableReport(table: ReportTable): ReportTable {
  const rows = table.rows.map((row) => {
    const out: ReportRow = { ...row };
    if (typeof row.origin === 'string') out.origin = hostOf(row.origin);
    if (typeof row.url === 'string') out.url = pathOf(row.url);
    return out;
  });
  const columns = rows.length === 0 ? table.columns : table.columns.filter((c) => rows.some((r) => !isEmpty(r[c.key])));
  return { ...table, columns, rows };
}

const FLIP_GROUP_COLUMNS: readonly ReportColumn[] = [
  { key: 'night', header: 'NIGHT', type: 'time' },
  { key: 'origin', header: 'SITE', type: 'text', shrink: true },
  { key: 'url', header: 'URL', type: 'text', shrink: true },
  { key: 'before', header: 'BEFORE', type: 'text' },
  { key: 'after', header: 'AFTER', type: 'text' },
  { key: 'cause', header: 'CAUSE', type: 'text' },
  { key: 'agents', header: 'CRAWLERS', type: 'list', shrink: true },
];

/**
 * The flips report with one row per night, URL and change (before, after, cause), naming the
 * crawlers it happened to, in the report's order. Expects the report's columns (night, origin,
 * url, agent, before, after, cause).
 */
export function flipsByChange(flips: ReportTable): ReportTable {
  const groups = new Map<string, ReportRow & { agents: string[] }>();
  for (const row of flips.rows) {
    const night = row.night instanceof Date ? row.night.toISOString() : String(row.night);
    const key = JSON.stringify([night, row.origin, row.url, row.before, row.after, row.cause]);
    let group = groups.get(key);
    if (!group) {
      group = { night: row.night ?? null, origin: row.origin ?? null, url: row.url ?? null, before: row.before ?? null, after: row.after ?? null, cause: row.cause ?? null, agents: [] };
      groups.set(key, group);
    }
    group.agents.push(String(row.agent));
  }
  return { report: flips.report, columns: FLIP_GROUP_COLUMNS, rows: [...groups.values()] };
}

/** The reports the demo ends with, what each answers, how many rows are shown, and the columns left out. */
export const DEMO_REPORTS: readonly { name: ReportName; title: string; rows: number; omit?: readonly string[] }[] = [
  // The Content-Signal values: report ai-use, next, says what each states.
  { name: 'ai-access', title: 'AI crawlers each site keeps away from its root, on the last night', rows: 40, omit: ['contentSignals'] },
  { name: 'ai-use', title: 'what the sites that state usage preferences tell crawlers: search, AI training, AI input (Content-Signal, Content-Usage)', rows: 20 },
  { name: 'flips', title: 'verdicts that changed in the last 7 nights, by tracked URL, with the crawlers concerned', rows: 20 },
  { name: 'failing', title: 'sites whose robots.txt could not be fetched on the last night, and what crawlers do meanwhile', rows: 20 },
  { name: 'compliance', title: 'do crawlers obey? the access log per site and crawler, each request judged by the robots.txt in force then', rows: 20, omit: ['betweenVersions', 'firstSeen', 'lastSeen'] },
  { name: 'violations', title: 'the violations: what a crawler fetched that the robots.txt in force disallowed, past the 24-hour cache window', rows: 10 },
];

/** Each of DEMO_REPORTS under a heading, as a table of `width` characters. */
export async function demoReportsText(pool: pg.Pool, width: number): Promise<string> {
  let out = '';
  for (const { name, title, rows, omit = [] } of DEMO_REPORTS) {
    const report = await buildReport(pool, name, { portfolioId: null, since: null });
    const built = { ...report, columns: report.columns.filter((c) => !omit.includes(c.key)) };
    const table = readableReport(name === 'flips' ? flipsByChange(built) : built);
    out += `\n== ${title}  (robots-audit report ${name})\n`;
    out += formatReport({ ...table, rows: table.rows.slice(0, rows) }, 'table', { width });
    if (table.rows.length > rows) out += `   … ${table.rows.length - rows} more rows: robots-audit report ${name}\n`;
  }
  return out;
}
