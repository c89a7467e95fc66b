/**
 * pgArray (src/db/pg-array.ts) writes the array literals of the night's multi-row statements
 * in place of pg's own conversion. Each case is read back by the real Postgres through the cast
 * the statements use, and compared with the same values as pg converts them: the two must be
 * the same array, element for element.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgArray } from '../../../src/db/pg-array.js';
import type { PgArrayElement } from '../../../src/db/pg-array.js';
import { FETCH_OUTCOMES } from '../../../src/policy/fetch-outcome.js';
import { createTestDatabase } from '../../helpers/test-db.js';
import type { TestDatabase } from '../../helpers/test-db.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => db?.close());

const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

const cases: { type: string; values: PgArrayElement[] }[] = [
  { type: 'int', values: [0, 1, -1, 2_147_483_647, -2_147_483_648, null, 42] },
  { type: 'smallint', values: [200, 404, null, 503] },
  { type: 'bool', values: [true, false, null] },
  { type: 'timestamptz', values: [new Date(Date.UTC(2026, 2, 1, 3, 0, 0, 123)), null, new Date(0), new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 999))] },
  {
    type: 'text',
    values: ['', 'NULL', 'null', 'plain', 'a,b', '{braces}', 'say "hi"', 'back\\slash', '\\"', ' lead and trail ', 'line\nbreak\ttab', 'Ünïcödé ✓ 😀', null],
  },
  { type: 'bytea', values: [Buffer.alloc(0), allBytes, Buffer.from('"\\{},'), null] },
  { type: 'fetch_outcome', values: [...FETCH_OUTCOMES, null] },
  { type: 'int', values: [] },
];

describe('pgArray: every element kind reads back as pg would have sent it', () => {
  it.each(cases)('$type[] of $values.length values', async ({ type, values }) => {
    const literal = pgArray(values, (v) => v);
    const { rows } = await db.pool.query<{ ours: unknown[]; same: boolean; n: number }>(
      `select $1::${type}[] as ours, $1::${type}[] is not distinct from $2::${type}[] as same, cardinality($1::${type}[]) as n`,
      [literal, values],
    );
    expect(rows[0]!.same).toBe(true);
    expect(rows[0]!.n).toBe(values.length);
    if (type === 'text' || type === 'int' || type === 'bool') expect(rows[0]!.ours).toEqual(values);
  });

  it('keeps the order of the rows and reads each through pick', async () => {
    const rows = [{ id: 3, name: 'c' }, { id: 1, name: 'a"' }, { id: 2, name: null }];
    const { rows: out } = await db.pool.query<{ id: number; name: string | null }>(
      'select * from unnest($1::int[], $2::text[]) with ordinality as x(id, name, n) order by n',
      [pgArray(rows, (r) => r.id), pgArray(rows, (r) => r.name)],
    );
    expect(out.map((r) => [r.id, r.name])).toEqual([[3, 'c'], [1, 'a"'], [2, null]]);
  });
});

describe('pgArray: values no column can hold are refused before the statement', () => {
  it.each([
    { label: 'NaN', value: Number.NaN, error: /not a finite number/ },
    { label: 'Infinity', value: Number.POSITIVE_INFINITY, error: /not a finite number/ },
    { label: 'an invalid date', value: new Date(Number.NaN), error: RangeError },
  ])('$label', ({ value, error }) => {
    expect(() => pgArray([value], (v) => v)).toThrow(error);
  });
});
