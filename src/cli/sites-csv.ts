/**
 * The CSV of `sites import`: a header row, then one site per row.
 *
 *   url,portfolio,labels
 *   example.com,shop,team=seo;tier=1
 *
 * `url` is required; `portfolio` and `labels` are optional columns and may be empty. Every
 * problem is reported with the line of the file where its row starts (the header is line 1;
 * quoted fields may span lines). A problem in the header makes the whole file unusable; a bad row
 * is reported and skipped.
 */
import { CsvError, parse } from 'csv-parse/sync';
import { InvalidUrlError, auditableOrigin } from '../robots/origin.js';
import type { AuditableOriginOptions } from '../robots/origin.js';
import type { Labels, SiteEntry } from '../db/sites.repo.js';

export const SITES_CSV_COLUMNS = ['url', 'portfolio', 'labels'] as const;
type Column = (typeof SITES_CSV_COLUMNS)[number];

export class LabelSyntaxError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'LabelSyntaxError';
  }
}

/** `team=seo;tier=1` -> {team: 'seo', tier: '1'}. Empty segments are ignored; a later key wins. */
export function parseLabels(text: string): Labels {
  const labels: Labels = {};
  for (const raw of text.split(';')) {
    const part = raw.trim();
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq < 0) throw new LabelSyntaxError(`bad label "${part}" (expected key=value)`);
    const key = part.slice(0, eq).trim();
    if (key === '') throw new LabelSyntaxError(`bad label "${part}" (empty key)`);
    labels[key] = part.slice(eq + 1).trim();
  }
  return labels;
}

export interface CsvProblem {
  line: number;
  reason: string;
}

export interface SitesCsv {
  /** Good rows, normalised, in file order (duplicates are merged by the repo). */
  entries: (SiteEntry & { line: number })[];
  problems: CsvProblem[];
  /** True when the file as a whole cannot be read (bad header, broken quoting): import nothing. */
  fatal: boolean;
}

interface Parsed {
  record: string[];
  info: { lines: number };
}

function lineBreaks(fields: string[]): number {
  return fields.reduce((n, f) => n + (f.match(/\r\n|\r|\n/g)?.length ?? 0), 0);
}

export function parseSitesCsv(input: string | Buffer, options: AuditableOriginOptions = {}): SitesCsv {
  let rows: Parsed[];
  try {
    rows = parse(input, { bom: true, info: true, relax_column_count: true, skip_empty_lines: true, trim: true }) as unknown as Parsed[];
  } catch (err) {
    if (err instanceof CsvError) {
      const line = typeof err.lines === 'number' ? err.lines : 1;
      return { entries: [], problems: [{ line, reason: err.message }], fatal: true };
    }
    throw err;
  }
  const [header, ...body] = rows;
  if (!header) return { entries: [], problems: [{ line: 1, reason: `no header row (expected ${SITES_CSV_COLUMNS.join(',')})` }], fatal: true };

  const columns = header.record.map((name) => name.toLowerCase());
  const headerProblems: string[] = [];
  columns.forEach((name, i) => {
    if (!(SITES_CSV_COLUMNS as readonly string[]).includes(name)) {
      headerProblems.push(`unknown column "${header.record[i]}" (columns: ${SITES_CSV_COLUMNS.join(', ')})`);
    } else if (columns.indexOf(name) !== i) {
      headerProblems.push(`column "${name}" appears twice`);
    }
  });
  if (!columns.includes('url')) headerProblems.push('no "url" column');
  if (headerProblems.length > 0) {
    const line = header.info.lines - lineBreaks(header.record);
    return { entries: [], problems: headerProblems.map((reason) => ({ line, reason })), fatal: true };
  }

  const entries: SitesCsv['entries'] = [];
  const problems: CsvProblem[] = [];
  for (const { record, info } of body) {
    const line = info.lines - lineBreaks(record);
    if (record.length > columns.length) {
      problems.push({ line, reason: `${record.length} fields, the header has ${columns.length}` });
      continue;
    }
    const cell = (name: Column) => {
      const i = columns.indexOf(name);
      return i < 0 ? '' : (record[i] ?? '');
    };
    const url = cell('url');
    if (url === '') {
      problems.push({ line, reason: 'empty url' });
      continue;
    }
    try {
      const origin = auditableOrigin(url, options);
      const labels = parseLabels(cell('labels'));
      const portfolio = cell('portfolio');
      entries.push({ line, origin, portfolios: portfolio === '' ? [] : [portfolio], labels });
    } catch (err) {
      if (err instanceof InvalidUrlError || err instanceof LabelSyntaxError) problems.push({ line, reason: err.message });
      else throw err;
    }
  }
  return { entries, problems, fatal: false };
}
