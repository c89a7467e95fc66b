/**
 * docs/sql-reporting.md as data: its questions (a `###` heading under "## Questions", one ```sql
 * block each, its psql variables named on a leading `-- psql -v name=value ...` line), the
 * columns it documents per view (a `###` heading naming the relation, then a `| column | type |
 * meaning |` table), and running a block as a reader would: through the real `psql` binary.
 * The doc's test (test/integration/reports/sql-reporting-doc.int.test.ts) and `npm run bench:year`
 * both read it from here.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { ROOT } from '../bench/bench-doc.js';

export const SQL_DOC = path.join(ROOT, 'docs/sql-reporting.md');

export interface DocQuestion {
  /** The heading's text, e.g. "Which sites block GPTBot at the root?". */
  heading: string;
  sql: string;
  /** The variables of its `-- psql -v` line, with the example values written there. */
  variables: Record<string, string>;
  /** The variables the SQL uses (`:name`, `:'name'`, `:"name"`). */
  used: string[];
}

export interface DocRelation {
  /** The relation's name as its heading gives it (`site_status`, `verdicts_on`). */
  name: string;
  /** Documented columns, in table order: [name, type]. */
  columns: [string, string][];
}

export interface SqlDoc {
  questions: DocQuestion[];
  relations: DocRelation[];
  /** Every ```sql block of the document, wherever it is. */
  sqlBlocks: string[];
}

const PSQL_LINE = /^--\s*psql((?:\s+-v\s+\S+)+)\s*$/;

function variablesOf(sql: string): { variables: Record<string, string>; used: string[] } {
  const variables: Record<string, string> = {};
  for (const line of sql.split('\n')) {
    const m = PSQL_LINE.exec(line.trim());
    if (!m) continue;
    for (const pair of m[1]!.trim().split(/\s*-v\s+/).filter(Boolean)) {
      const eq = pair.indexOf('=');
      if (eq <= 0) throw new Error(`docs/sql-reporting.md: "-v ${pair}" is not name=value`);
      variables[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  // psql interpolates `:'name'`, `:"name"` and `:name` (not `::type` casts), outside comments
  // and string literals.
  const used = new Set<string>();
  const code = sql
    .replace(/--[^\n]*/g, '')
    .replace(/:'([A-Za-z_]\w*)'|:"([A-Za-z_]\w*)"/g, (_, a: string | undefined, b: string | undefined) => (used.add((a ?? b)!), ' '))
    .replace(/'(?:[^']|'')*'/g, ' ');
  for (const m of code.matchAll(/(?<!:):([A-Za-z_]\w*)/g)) used.add(m[1]!);
  return { variables, used: [...used] };
}

function unquote(cell: string): string {
  return cell.trim().replace(/^`(.*)`$/, '$1');
}

export function parseSqlDoc(text: string): SqlDoc {
  const questions: DocQuestion[] = [];
  const relations: DocRelation[] = [];
  const sqlBlocks: string[] = [];
  let section = '';
  let heading = '';
  let relation: DocRelation | null = null;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('```sql')) {
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) body.push(lines[i]!);
      const sql = body.join('\n');
      sqlBlocks.push(sql);
      if (section === 'Questions') {
        if (questions.some((q) => q.heading === heading)) throw new Error(`docs/sql-reporting.md: "${heading}" has more than one sql block`);
        questions.push({ heading, sql, ...variablesOf(sql) });
      }
      continue;
    }
    if (line.startsWith('## ')) {
      section = line.slice(3).trim();
      relation = null;
    } else if (line.startsWith('### ')) {
      heading = line.slice(4).trim();
      // A relation's section: its heading is its name in backquotes, `verdicts_on(night)` included.
      const named = /^`([a-z_]+)(?:\([^)]*\))?`/.exec(heading);
      relation = named ? { name: named[1]!, columns: [] } : null;
      if (relation) relations.push(relation);
    } else if (relation && line.startsWith('| `')) {
      const cells = line.split('|').slice(1, -1);
      relation.columns.push([unquote(cells[0] ?? ''), unquote(cells[1] ?? '')]);
    }
  }
  return { questions, relations, sqlBlocks };
}

/** The ```sql blocks of a markdown document's `## <heading>` section (README.md's "Reporting with SQL"). */
export function sqlBlocksOfSection(text: string, heading: string): string[] {
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`no section "## ${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  return parseSqlDoc(text.slice(start, end === -1 ? undefined : end)).sqlBlocks;
}

export function readSqlDoc(file: string = SQL_DOC): SqlDoc {
  return parseSqlDoc(fs.readFileSync(file, 'utf8'));
}

export interface PsqlResult {
  /** Rows by column name, every value as psql prints it (empty string for NULL). */
  rows: Record<string, string>[];
  columns: string[];
  stdout: string;
}

/**
 * Runs `sql` with the real psql (`PSQL`, else `psql` on the PATH), as a reader pasting it into a
 * session would: no psqlrc, stop on the first error, times in UTC, the given variables set with
 * `-v`, CSV out. Rejects with psql's stderr when psql fails.
 */
export function runPsql(url: string, sql: string, variables: Record<string, string> = {}, options: { csv?: boolean } = {}): Promise<PsqlResult> {
  const args = [url, '-X', '-q', '-v', 'ON_ERROR_STOP=1', ...(options.csv === false ? ['-A', '-t'] : ['--csv'])];
  for (const [name, value] of Object.entries(variables)) args.push('-v', `${name}=${value}`);
  args.push('-f', '-');
  return new Promise((resolve, reject) => {
    const child = spawn(process.env.PSQL ?? 'psql', args, { env: { ...process.env, PGTZ: 'UTC' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', (err) => reject(new Error(`cannot run psql (${err.message}): install the PostgreSQL client or set PSQL`)));
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`psql exited with ${code}: ${stderr.trim()}`));
      if (options.csv === false) return resolve({ rows: [], columns: [], stdout });
      const records = parseCsv(stdout, { relaxColumnCount: false }) as string[][];
      const [columns = [], ...data] = records;
      resolve({ columns, rows: data.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i] ?? '']))), stdout });
    });
    child.stdin.end(sql);
  });
}
