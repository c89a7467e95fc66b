/**
 * `robots-audit agents list|add|remove`: the editable global list of user agents, seeded by the
 * default-user-agents migration. Real database, in-process.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KNOWN_AGENT_FAMILIES, agentFamilyOf } from '../../../src/db/agent-families.js';
import { loadUserAgents } from '../../helpers/corpus.js';
import { runCli } from '../../helpers/cli.js';
import type { CliRun } from '../../helpers/cli.js';
import type { TestDatabase } from '../../helpers/test-db.js';
import { createTestDatabase } from '../../helpers/test-db.js';

let testDb: TestDatabase;

/** The migration's list, in `agents list` order (case-insensitive by token). */
const DEFAULTS = [
  { token: 'Applebot-Extended', family: 'ai', isDefault: true },
  { token: 'Bingbot', family: 'search', isDefault: true },
  { token: 'CCBot', family: 'ai', isDefault: true },
  { token: 'ChatGPT-User', family: 'ai', isDefault: true },
  { token: 'ClaudeBot', family: 'ai', isDefault: true },
  { token: 'Google-Extended', family: 'ai', isDefault: true },
  { token: 'Googlebot', family: 'search', isDefault: true },
  { token: 'GPTBot', family: 'ai', isDefault: true },
  { token: 'OAI-SearchBot', family: 'ai', isDefault: true },
  { token: 'PerplexityBot', family: 'ai', isDefault: true },
];

beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => {
  await testDb?.close();
});
beforeEach(async () => {
  // Back to the migrated state: the defaults of the migration only.
  await testDb.db.execute(sql`delete from user_agents where lower(token) not in (${sql.join(DEFAULTS.map((d) => sql`${d.token.toLowerCase()}`), sql`, `)})`);
  await testDb.db.execute(sql`update user_agents set is_default = true`);
});

function agents(args: string[]): Promise<CliRun> {
  return runCli(['agents', ...args, '--database-url', testDb.url]);
}

async function listJson(all = false) {
  const run = await agents(['list', '--json', ...(all ? ['--all'] : [])]);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as { token: string; family: string | null; isDefault: boolean }[];
}

describe('the default-user-agents migration', () => {
  it('seeds the ten default agents with their families', async () => {
    expect(await listJson()).toEqual(DEFAULTS);
  });

  it('families agree with the user-agent corpus', () => {
    const corpus = new Map(loadUserAgents().map((e) => [e.token.toLowerCase(), e.family]));
    for (const d of DEFAULTS) expect(corpus.get(d.token.toLowerCase()), d.token).toBe(d.family);
  });
});

describe('agents list', () => {
  it('prints a table', async () => {
    const run = await agents(['list']);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('TOKEN              FAMILY  DEFAULT');
    expect(lines[1]).toBe('Applebot-Extended  ai      yes');
    expect(lines).toHaveLength(DEFAULTS.length + 2);
  });

  it('--all adds the agents that are not defaults', async () => {
    await agents(['remove', 'CCBot']);
    expect((await listJson()).map((a) => a.token)).not.toContain('CCBot');
    expect((await listJson(true)).at(-1)).toEqual({ token: 'CCBot', family: 'ai', isDefault: false });
  });
});

describe('agents add', () => {
  it('adds new tokens with their known family, or none', async () => {
    const run = await agents(['add', 'Bytespider', 'AhrefsBot', 'MyCrawler']);
    expect(run).toEqual({ code: 0, stdout: 'added Bytespider\nadded AhrefsBot\nadded MyCrawler\n', stderr: '' });
    const list = await listJson();
    expect(list.filter((a) => ['Bytespider', 'AhrefsBot', 'MyCrawler'].includes(a.token))).toEqual([
      { token: 'AhrefsBot', family: 'seo', isDefault: true },
      { token: 'Bytespider', family: 'ai', isDefault: true },
      { token: 'MyCrawler', family: null, isDefault: true },
    ]);
  });

  it('T15: a token is compared case-insensitively: the stored spelling is kept, nothing is added twice', async () => {
    const run = await agents(['add', 'googlebot', 'GOOGLEBOT']);
    expect(run).toEqual({ code: 0, stdout: 'already a default: Googlebot\n', stderr: '' });
    expect(await listJson()).toEqual(DEFAULTS);
  });

  it('a removed default comes back', async () => {
    await agents(['remove', 'gptbot']);
    const run = await agents(['add', 'GPTBot']);
    expect(run.stdout).toBe('restored GPTBot\n');
    expect(await listJson()).toEqual(DEFAULTS);
  });

  it('T14: a name that is not a product token is added with a warning; an empty one is an error', async () => {
    const run = await agents(['add', 'Foo Bar', ' ']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'warning: "Foo Bar" is not a user-agent token (T14: letters, "-" and "_" only); it can match no named group\nrobots-audit: empty user-agent token\n',
    );
    expect(run.stdout).toBe('added Foo Bar\n');
  });
});

describe('agents remove', () => {
  it('takes agents out of the defaults, keeping their rows; unknown ones are reported', async () => {
    const run = await agents(['remove', 'ccbot', 'Google-Extended', 'NoSuchBot']);
    expect(run).toEqual({ code: 0, stdout: 'removed CCBot\nremoved Google-Extended\n', stderr: 'not a default agent: NoSuchBot\n' });
    expect((await listJson()).map((a) => a.token)).toEqual(DEFAULTS.map((d) => d.token).filter((t) => t !== 'CCBot' && t !== 'Google-Extended'));
    const rows = await testDb.db.execute<{ n: string }>(sql`select count(*) as n from user_agents`);
    expect(Number(rows.rows[0]!.n)).toBe(DEFAULTS.length);
  });

  it('removing twice reports the second time', async () => {
    await agents(['remove', 'CCBot']);
    expect(await agents(['remove', 'CCBot'])).toEqual({ code: 0, stdout: '', stderr: 'not a default agent: CCBot\n' });
  });
});

describe('the built-in family table', () => {
  it('agrees with the user-agent corpus for every token it knows', () => {
    const corpus = new Map(loadUserAgents().map((e) => [e.token.toLowerCase(), e.family]));
    const disagreements = [...KNOWN_AGENT_FAMILIES].filter(([token, family]) => corpus.get(token) !== family);
    expect(disagreements).toEqual([]);
  });

  it.each([
    ['Googlebot', 'search'],
    ['BINGBOT', 'search'],
    ['gptbot', 'ai'],
    ['Twitterbot', 'social'],
    ['UnknownBot', null],
  ])('%s -> %s', (token, family) => {
    expect(agentFamilyOf(token)).toBe(family);
  });
});
