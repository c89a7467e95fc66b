/**
 * Multi-row statements from a column map. A map names each column once with its element type
 * and how a row gives its value; the statement's column list, its `unnest` of typed array
 * parameters and the parameters themselves are all derived from it, so a column added to the
 * map cannot be missing from one of the three (the statements of the night, night-store/).
 *
 * The text is built once, where a module declares its statement, never per call: each statement
 * is prepared by name once per connection and must keep the same text.
 */
import { pgArray } from './pg-array.js';
import type { PgArrayElement } from './pg-array.js';

/** One column of a multi-row statement. */
export interface UnnestColumn<T> {
  /** The table's column, and the name the `unnest` gives the parameter's elements. */
  name: string;
  /** The element type: the parameter is read as an array of it (`int` -> `$1::int[]`). */
  type: string;
  value: (row: T) => PgArrayElement;
  /**
   * What the statement stores, when the parameter's elements need converting first; it reads
   * them by `name` (a parameter cannot be an array of arrays, so a list travels as JSON or text).
   */
  select?: string;
}

export type ColumnMap<T> = readonly UnnestColumn<T>[];

/** `unnest($1::int[], $2::text[], ...) as x(a, b, ...)`, the parameters numbered from `first`. */
export function unnestFrom<T>(columns: ColumnMap<T>, first = 1): string {
  const params = columns.map((c, i) => `$${first + i}::${c.type}[]`).join(', ');
  return `unnest(${params}) as x(${columnList(columns)})`;
}

/** `a, b, ...`: the columns' names, in the map's order. */
export function columnList<T>(columns: ColumnMap<T>): string {
  return columns.map((c) => c.name).join(', ');
}

/** `insert into <table> (a, b, ...) select a, b, ... from unnest(...) as x(a, b, ...) <tail>`. */
export function unnestInsert<T>(table: string, columns: ColumnMap<T>, tail: string): string {
  const selected = columns.map((c) => c.select ?? c.name).join(', ');
  return `insert into ${table} (${columnList(columns)}) select ${selected} from ${unnestFrom(columns)} ${tail}`;
}

/** The statement's parameters: each column of the rows as an array literal, in the map's order. */
export function unnestValues<T>(columns: ColumnMap<T>, rows: readonly T[]): string[] {
  return columns.map((c) => pgArray(rows, c.value));
}
