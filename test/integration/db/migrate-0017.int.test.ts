/**
 * Migration 0017 (crawler rules choose the group) on a database filled as the release before it
 * left it: bodies indexed with the root access computed without crawler rules. After `db migrate`
 * (prepareDatabase: the migrations, then the bodies indexed again), each body's rules are as they
 * were, its `*` row too, and its exceptions are those of the crawler rules: AdsBot-Google
 * ignores `*`, Applebot follows the Googlebot group.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareDatabase } from '../../../src/services/prepare-database.js';
import { databaseBefore } from '../../helpers/migrations-before.js';
import type { DatabaseBefore } from '../../helpers/migrations-before.js';
import type { TestDatabase } from '../../helpers/test-db.js';

let db: TestDatabase;
let old: DatabaseBefore | undefined;
let rulesBefore: unknown[];

const q = async <T extends Record<string, unknown>>(text: string) => (await db.pool.query<T>(text)).rows;
const RULES = 'select * from body_rules order by body_id, line';
const BLOCK_ALL = 'User-agent: *\nDisallow: /\n';
const GOOGLEBOT_OPEN = 'User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nAllow: /\n';

beforeAll(async () => {
  old = await databaseBefore('0017_');
  db = old.db;
  // As the release before left them: the rules, the `*` row and the exceptions it computed (Googlebot, Googlebot-Image; no AdsBot, no Applebot).
  await db.pool.query(
    `insert into bodies (id, sha256, content, size, indexed) values
       (1, sha256(convert_to($1, 'UTF8')), convert_to($1, 'UTF8'), length($1), true),
       (2, sha256(convert_to($2, 'UTF8')), convert_to($2, 'UTF8'), length($2), true);
     insert into body_groups (body_id, group_no, user_agents) values (1, 0, '{*}'), (2, 0, '{*}'), (2, 1, '{Googlebot}');
     insert into body_rules (body_id, line, group_no, kind, value, pattern) values
       (1, 2, 0, 'disallow', '/', '/'),
       (2, 2, 0, 'disallow', '/', '/'),
       (2, 5, 1, 'allow', '/', '/');
     insert into body_agent_access (body_id, token, rule_line, allowed) values
       (1, '*', 2, false),
       (2, '*', 2, false), (2, 'googlebot', 5, true), (2, 'googlebot-image', 5, true);`.replace(/\$1/g, `'${BLOCK_ALL}'`).replace(/\$2/g, `'${GOOGLEBOT_OPEN}'`),
  );
  rulesBefore = await q(RULES);
  await prepareDatabase(db.url);
}, 60_000);

afterAll(async () => {
  await old?.close();
});

const access = (bodyId: number, tokens: string[]) =>
  q<{ token: string; rule_line: number | null; allowed: boolean }>(
    `select token, rule_line, allowed from body_agent_access where body_id = ${bodyId} and token = any('{${tokens.join(',')}}') order by token`,
  );

describe('0017: root access as the crawler rules decide', () => {
  it('the rules of every body carry over, and every body is indexed again', async () => {
    expect(await q(RULES)).toEqual(rulesBefore);
    expect(await q('select id, indexed from bodies order by id')).toEqual([
      { id: 1, indexed: true },
      { id: 2, indexed: true },
    ]);
  });

  it("under * / Disallow: /: the * row as it was; AdsBot-Google allowed (it ignores *); Applebot and GPTBot follow *", async () => {
    expect(await access(1, ['*', 'adsbot-google', 'adsbot-google-mobile', 'applebot', 'gptbot'])).toEqual([
      { token: '*', rule_line: 2, allowed: false },
      { token: 'adsbot-google', rule_line: null, allowed: true },
      { token: 'adsbot-google-mobile', rule_line: null, allowed: true },
    ]);
  });

  it('with a Googlebot group and no Applebot group: Applebot follows it', async () => {
    expect(await access(2, ['*', 'googlebot', 'googlebot-image', 'applebot', 'gptbot'])).toEqual([
      { token: '*', rule_line: 2, allowed: false },
      { token: 'applebot', rule_line: 5, allowed: true },
      { token: 'googlebot', rule_line: 5, allowed: true },
      { token: 'googlebot-image', rule_line: 5, allowed: true },
    ]);
  });
});
