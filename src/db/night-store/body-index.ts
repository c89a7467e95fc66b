/**
 * A body's index for SQL reports: its groups (body_groups), rules (body_rules) and the root
 * access of every catalogued crawler (body_agent_access), written with the body or, for a body
 * stored before they existed, when it is next seen or analysed (body-index.service.ts).
 */
import { clampSmallint } from '../column-limits.js';
import { pgArray } from '../pg-array.js';
import { pgJson, pgText } from '../pg-text.js';
import { unnestInsert, unnestValues } from '../pg-unnest.js';
import type { ColumnMap } from '../pg-unnest.js';
import type { BodyAccessRow, BodyGroupRow, BodyIndex, BodyRuleRow } from '../../night/body-index.js';
import type { Queryable } from './queryable.js';

type OfBody<T> = T & { bodyId: number };

const GROUP_COLUMNS: ColumnMap<OfBody<BodyGroupRow>> = [
  { name: 'body_id', type: 'int', value: (g) => g.bodyId },
  { name: 'group_no', type: 'smallint', value: (g) => clampSmallint(g.groupNo) },
  // A JSON array: a parameter cannot be an array of arrays.
  { name: 'user_agents', type: 'text', value: (g) => pgJson(g.userAgents), select: 'array(select jsonb_array_elements_text(user_agents::jsonb))' },
];

const RULE_COLUMNS: ColumnMap<OfBody<BodyRuleRow>> = [
  { name: 'body_id', type: 'int', value: (r) => r.bodyId },
  { name: 'line', type: 'int', value: (r) => r.line },
  // smallint: a body past 500 KiB may have more groups; the last ones share the last number.
  { name: 'group_no', type: 'smallint', value: (r) => clampSmallint(r.groupNo) },
  { name: 'kind', type: 'text', value: (r) => r.kind },
  { name: 'value', type: 'text', value: (r) => pgText(r.value) },
  { name: 'pattern', type: 'text', value: (r) => pgText(r.pattern) },
];

const ACCESS_COLUMNS: ColumnMap<OfBody<BodyAccessRow>> = [
  { name: 'body_id', type: 'int', value: (a) => a.bodyId },
  { name: 'token', type: 'text', value: (a) => a.token },
  { name: 'rule_line', type: 'int', value: (a) => a.ruleLine },
  { name: 'allowed', type: 'bool', value: (a) => a.allowed },
];

/** An index table's statement, with the rows it takes at a time (each parameter's literal is built whole in memory). */
interface IndexTable<T> {
  name: string;
  text: string;
  columns: ColumnMap<T>;
  chunk: number;
}

function indexTable<T>(table: string, name: string, columns: ColumnMap<T>, chunk: number): IndexTable<T> {
  return { name, text: unnestInsert(table, columns, 'on conflict do nothing'), columns, chunk };
}

// A 500 KiB body may hold tens of thousands of rules and agents: its rows go in a chunk at a time.
const GROUPS = indexTable('body_groups', 'body-index-groups', GROUP_COLUMNS, 1_000);
const RULES = indexTable('body_rules', 'body-index-rules', RULE_COLUMNS, 5_000);
const ACCESS = indexTable('body_agent_access', 'body-index-access', ACCESS_COLUMNS, 10_000);

async function insertInChunks<T>(db: Queryable, table: IndexTable<T>, rows: readonly T[]): Promise<void> {
  for (let i = 0; i < rows.length; i += table.chunk) {
    await db.query({ name: table.name, text: table.text, values: unnestValues(table.columns, rows.slice(i, i + table.chunk)) });
  }
}

/**
 * Stores bodies' rules and root access (idempotent) and marks them indexed. The access rows are
 * replaced whole: a body marked for indexing again (migration 0017) may hold exceptions computed
 * under older crawler rules. Callers run it in a transaction where the two must change together.
 */
export async function storeBodyIndexes(db: Queryable, bodies: readonly { id: number; index: BodyIndex }[]): Promise<void> {
  const ofBody = <T>(pick: (index: BodyIndex) => T[]): OfBody<T>[] => bodies.flatMap((b) => pick(b.index).map((row) => ({ bodyId: b.id, ...row })));
  await db.query({ name: 'body-index-access-clear', text: 'delete from body_agent_access where body_id = any($1::int[])', values: [pgArray(bodies, (b) => b.id)] });
  await insertInChunks(db, GROUPS, ofBody((i) => i.groups));
  await insertInChunks(db, RULES, ofBody((i) => i.rules));
  await insertInChunks(db, ACCESS, ofBody((i) => i.access));
  // The Content-Signal values go in with the mark: a body stored before migration 0006 has none yet.
  await db.query({
    name: 'body-index-mark',
    text: `update bodies b set indexed = true, content_signals = array(select jsonb_array_elements_text(x.cs::jsonb))
           from unnest($1::int[], $2::text[]) as x(id, cs) where b.id = x.id`,
    values: [pgArray(bodies, (b) => b.id), pgArray(bodies, (b) => pgJson(b.index.contentSignals))],
  });
}
