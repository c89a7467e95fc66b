/**
 * A report as one query and what each batch of its rows becomes. The same source is read whole
 * (the CLI's table, CSV and JSON: `collectReport`) or streamed from a server-side cursor a batch
 * at a time (the dashboard's CSV downloads: `streamReport`), so a download of 100,000 sites
 * holds one batch in memory, never the report, and every filter is in the query.
 */
import Cursor from 'pg-cursor';
import type pg from 'pg';
import type { ReportColumn, ReportRow, ReportTable } from './format.js';

export interface ReportSource<DbRow = Record<string, unknown>> {
  columns: readonly ReportColumn[];
  sql: string;
  params: unknown[];
  /** Rows read from the cursor at a time: fewer for a report that reads a body per row. */
  batchRows?: number;
  /** The report's rows for a batch of the query's rows, in order (none, one or several each). */
  rows(batch: DbRow[]): ReportRow[] | Promise<ReportRow[]>;
  /** What the rows leave out, in words (sites not analysed yet): the CLI writes it on stderr, a download in a header. */
  notes?(): Promise<string[]>;
}

/** Rows a cursor reads at a time by default: a few hundred KB of a report. */
export const CURSOR_BATCH_ROWS = 500;

/** The whole report in memory (the CLI: a table must see every row to size its columns). */
export async function collectReport(pool: pg.Pool, name: string, source: ReportSource): Promise<ReportTable> {
  const { rows } = await pool.query<Record<string, unknown>>(source.sql, source.params);
  const out: ReportRow[] = [];
  for (let i = 0; i < rows.length; i += CURSOR_BATCH_ROWS) out.push(...(await source.rows(rows.slice(i, i + CURSOR_BATCH_ROWS))));
  return { report: name, columns: source.columns, rows: out, ...(source.notes ? { notes: await source.notes() } : {}) };
}

/**
 * The report's rows, a batch at a time, from a cursor on a connection of its own; the next batch
 * is read only when the consumer asks for it (a slow download reads slowly). Ending early (the
 * consumer stops, the client goes away) closes the cursor and gives the connection back.
 */
export async function* streamReport(pool: pg.Pool, source: ReportSource): AsyncGenerator<ReportRow[], void, undefined> {
  const client = await pool.connect();
  const cursor = client.query(new Cursor<Record<string, unknown>>(source.sql, source.params));
  let failure: Error | undefined;
  try {
    for (;;) {
      const batch = await cursor.read(source.batchRows ?? CURSOR_BATCH_ROWS);
      if (batch.length === 0) return;
      yield await source.rows(batch);
    }
  } catch (err) {
    failure = err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    // A connection whose cursor failed or could not close is not given back to the pool.
    await cursor.close().catch((err: unknown) => (failure ??= err instanceof Error ? err : new Error(String(err))));
    client.release(failure);
  }
}
