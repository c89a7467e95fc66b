/**
 * Bodies stored before migration 0006 (`indexed` false) are indexed by `db migrate`
 * (indexStoredBodies): their rules, root access per crawler and Content-Signal lines, what the
 * reporting views read (current_rules, ai_access, docs/sql-reporting.md).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexStoredBodies } from '../../../src/services/body-index.service.js';
import { storeBodyIndexes } from '../../../src/db/night-store.js';
import { createTestDatabase } from '../../helpers/test-db.js';
import type { TestDatabase } from '../../helpers/test-db.js';

const BODY = 'User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\n\nContent-Signal: ai-train=no, search=yes\nContent-Signal: ai-input=no\n';

let db: TestDatabase;
let bodyId: number;

beforeAll(async () => {
  db = await createTestDatabase();
  const content = Buffer.from(BODY);
  const { rows } = await db.pool.query<{ id: number }>(
    'insert into bodies (sha256, content, size) values ($1, $2, $3) returning id',
    [createHash('sha256').update(content).digest(), content, content.length],
  );
  bodyId = rows[0]!.id;
  expect(await indexStoredBodies(db.pool)).toBe(1);
});

afterAll(async () => db?.close());

describe('indexStoredBodies: a body stored before its index existed', () => {
  it('stores its rules with their group and line', async () => {
    const { rows } = await db.pool.query('select r.line, r.group_no, r.kind, g.user_agents, r.value from body_rules r join body_groups g using (body_id, group_no) where r.body_id = $1 order by r.line', [bodyId]);
    expect(rows).toEqual([
      { line: 2, group_no: 0, kind: 'disallow', user_agents: ['GPTBot'], value: '/' },
      { line: 5, group_no: 1, kind: 'disallow', user_agents: ['*'], value: '/private/' },
    ]);
  });

  it('stores the root access of `*` and of the crawlers that differ from it (GPTBot)', async () => {
    const { rows } = await db.pool.query('select token, allowed, rule_line from body_agent_access where body_id = $1 order by token', [bodyId]);
    expect(rows).toEqual([
      { token: '*', allowed: true, rule_line: null },
      { token: 'gptbot', allowed: false, rule_line: 2 },
    ]);
  });

  it('stores its Content-Signal values in file order, and marks it indexed', async () => {
    const { rows } = await db.pool.query('select content_signals, indexed from bodies where id = $1', [bodyId]);
    expect(rows).toEqual([{ content_signals: ['ai-train=no, search=yes', 'ai-input=no'], indexed: true }]);
  });

  it('finds nothing left to index the second time', async () => {
    expect(await indexStoredBodies(db.pool)).toBe(0);
  });
});

describe('storeBodyIndexes: group numbers past the smallint column (issue 17)', () => {
  it('a group numbered past 32767 is stored as 32767, and the night is not lost', async () => {
    const content = Buffer.from('many groups');
    const { rows } = await db.pool.query<{ id: number }>('insert into bodies (sha256, content, size) values ($1, $2, $3) returning id', [
      createHash('sha256').update(content).digest(),
      content,
      content.length,
    ]);
    const id = rows[0]!.id;
    await storeBodyIndexes(db.pool, [
      {
        id,
        index: {
          groups: [{ groupNo: 40_000, userAgents: ['a'] }],
          rules: [{ line: 80_001, groupNo: 40_000, kind: 'disallow', value: '/', pattern: '/' }],
          access: [],
          contentSignals: [],
        },
      },
    ]);
    const stored = await db.pool.query('select r.group_no, g.user_agents from body_rules r join body_groups g using (body_id, group_no) where r.body_id = $1', [id]);
    expect(stored.rows).toEqual([{ group_no: 32_767, user_agents: ['a'] }]);
  });
});
