/**
 * The one way the night gets the ids of rows it shares with other nights (bodies, answers,
 * alerts), each unique by a key: `insert ... on conflict do nothing returning` gives the rows it
 * inserted; the keys it did not return were stored already, and a second statement selects
 * those, only those (none at all when every row was new).
 *
 * Not `on conflict do update set key = excluded.key returning`, which returns every row in one
 * statement: it rewrites each row already stored (a new row version, its WAL and, when the page
 * is full, its index entries) for every body and answer another site stored first, most of them
 * on a first night. Here a row already stored costs a read, and nothing is written for it.
 * Not a select in the insert's own statement (a CTE) either: it reads that statement's snapshot,
 * which misses a row a racing writer committed while the insert waited on it; the second
 * statement's snapshot has it.
 */
import type { QueryResultRow } from 'pg';
import type { PgArrayElement } from '../pg-array.js';
import { pgArray } from '../pg-array.js';
import type { Queryable } from './queryable.js';

export interface InsertOrSelect<R extends QueryResultRow, W> {
  /** The insert of every wanted row, ending `on conflict do nothing returning <the columns of R>`. */
  insert: { name: string; text: string; values: unknown[] };
  /** The select of the same columns for the keys in `$1` (an array of the key's type). */
  select: { name: string; text: string };
  /** A row's name in `wanted`. */
  nameOf: (row: R) => string;
  /** The key a wanted row is selected by. */
  keyOf: (wanted: W) => PgArrayElement;
}

/** The rows of everything in `wanted` (by name), inserted or found. */
export async function insertOrSelect<R extends QueryResultRow, W>(db: Queryable, statements: InsertOrSelect<R, W>, wanted: ReadonlyMap<string, W>): Promise<R[]> {
  const { rows } = await db.query<R>(statements.insert);
  if (rows.length === wanted.size) return rows;
  const inserted = new Set(rows.map(statements.nameOf));
  const missing = [...wanted].filter(([name]) => !inserted.has(name)).map(([, w]) => w);
  const { rows: found } = await db.query<R>({ ...statements.select, values: [pgArray(missing, statements.keyOf)] });
  return [...rows, ...found];
}
