/**
 * One column of many rows as a Postgres array literal, for the multi-row statements of the
 * night (`unnest($1::int[], $2::text[], ...)`).
 *
 * pg turns a JavaScript array parameter into the same literal itself, but it quotes every
 * element and runs two regular expressions over it (numbers included), and writes each date
 * by hand in local time: about 2% of a worker's CPU at 1,500 sites a second, and a sixth of
 * the bytes it allocates (docs/benchmarks.md). Here a number or a boolean is written bare, a
 * date as its ISO form (UTC), a string quoted and escaped only when it holds `"` or `\`, a
 * Buffer as bytea hex. The literal is a plain string parameter, so the statement's cast
 * (`::int[]`, `::bytea[]`, an enum array) reads it exactly as it read pg's.
 */

/** What a column may hold: one kind per column, and null for SQL NULL. */
export type PgArrayElement = number | boolean | string | Date | Buffer | null;

const NEEDS_ESCAPE = /["\\]/;

function quoted(text: string): string {
  return `"${NEEDS_ESCAPE.test(text) ? text.replace(/["\\]/g, '\\$&') : text}"`;
}

function element(value: PgArrayElement): string {
  if (value === null) return 'NULL';
  switch (typeof value) {
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`array element ${value} is not a finite number`);
      return String(value);
    case 'boolean':
      return value ? 't' : 'f';
    case 'string':
      return quoted(value);
  }
  // toISOString throws a RangeError for an invalid date: better than a wrong night in the table.
  if (value instanceof Date) return value.toISOString();
  // Inside an array literal a backslash escapes the next character, so bytea's `\x` is `\\x`.
  return `"\\\\x${value.toString('hex')}"`;
}

/** The literal of `pick(row)` for every row, in order. */
export function pgArray<T>(rows: readonly T[], pick: (row: T) => PgArrayElement): string {
  let literal = '{';
  for (let i = 0; i < rows.length; i++) {
    if (i > 0) literal += ',';
    literal += element(pick(rows[i]!));
  }
  return `${literal}}`;
}
