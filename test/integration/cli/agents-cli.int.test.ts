/**
 * `robots-audit agents list|add|remove|import`: the editable global list of user agents, seeded by
 * the default-user-agents migration, within the crawler catalogue (src/crawlers). Real database,
 * in-process.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KNOWN_AGENT_FAMILIES, agentFamilyOf } from '../../../src/db/agent-families.js';
import { findCrawler } from '../../../src/crawlers/index.js';
import { loadUserAgents } from '../../helpers/corpus.js';
import { runCli } from '../../helpers/cli.js';
import type { CliRun } from '../../helpers/cli.js';
import type { TestDatabase } from '../../helpers/test-db.js';
import { createTestDatabase } from '../../helpers/test-db.js';

let testDb: TestDatabase;

/** The migration's list, in `agents list` order (case-insensitive by token). */
const DEFAULTS = [
  { token: 'Applebot-Extended', family: 'ai' },
  { token: 'Bingbot', family: 'search' },
  { token: 'CCBot', family: 'ai' },
  { token: 'ChatGPT-User', family: 'ai' },
  { token: 'ClaudeBot', family: 'ai' },
  { token: 'Google-Extended', family: 'ai' },
  { token: 'Googlebot', family: 'search' },
  { token: 'GPTBot', family: 'ai' },
  { token: 'OAI-SearchBot', family: 'ai' },
  { token: 'PerplexityBot', family: 'ai' },
].map((d) => ({ ...d, ...catalogued(d.token), isDefault: true }));

/** What the shipped catalogue says of a token, as `agents list --json` shows it. */
function catalogued(token: string): { category: string | null; operator: string | null } {
  const entry = findCrawler(token);
  return { category: entry?.category ?? null, operator: entry?.operator ?? null };
}

beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => {
  await testDb?.close();
});
beforeEach(async () => {
  // Back to the defaults of the migration only (the catalogue's other rows go too).
  await testDb.db.execute(sql`delete from user_agents where lower(token) not in (${sql.join(DEFAULTS.map((d) => sql`${d.token.toLowerCase()}`), sql`, `)})`);
  await testDb.db.execute(sql`update user_agents set is_default = true`);
});

function agents(args: string[], stdin?: string): Promise<CliRun> {
  return runCli(['agents', ...args, '--database-url', testDb.url], stdin === undefined ? {} : { stdin });
}

async function listJson(all = false) {
  const run = await agents(['list', '--json', ...(all ? ['--all'] : [])]);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as { token: string; category: string | null; operator: string | null; family: string | null; isDefault: boolean }[];
}

describe('the default-user-agents migration', () => {
  it('seeds the ten default agents with their families, category and operator from the catalogue', async () => {
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
    expect(lines[0]).toBe('TOKEN              CATEGORY      FAMILY  DEFAULT  OPERATOR');
    expect(lines[1]).toBe(`Applebot-Extended  ${catalogued('Applebot-Extended').category!.padEnd(12)}  ai      yes      ${catalogued('Applebot-Extended').operator}`);
    expect(lines).toHaveLength(DEFAULTS.length + 2);
  });

  it('--all adds the agents that are not defaults', async () => {
    await agents(['remove', 'CCBot']);
    expect((await listJson()).map((a) => a.token)).not.toContain('CCBot');
    expect((await listJson(true)).at(-1)).toEqual({ token: 'CCBot', family: 'ai', ...catalogued('CCBot'), isDefault: false });
  });
});

describe('agents add', () => {
  it('adds new tokens with their known family, or none', async () => {
    const run = await agents(['add', 'Bytespider', 'AhrefsBot', 'MyCrawler']);
    expect(run).toEqual({ code: 0, stdout: 'added Bytespider\nadded AhrefsBot\nadded MyCrawler\n', stderr: '' });
    const list = await listJson();
    expect(list.filter((a) => ['Bytespider', 'AhrefsBot', 'MyCrawler'].includes(a.token))).toEqual([
      { token: 'AhrefsBot', family: 'seo', ...catalogued('AhrefsBot'), isDefault: true },
      { token: 'Bytespider', family: 'ai', ...catalogued('Bytespider'), isDefault: true },
      { token: 'MyCrawler', family: null, category: null, operator: null, isDefault: true },
    ]);
    expect(catalogued('Bytespider').category).toMatch(/^ai-/);
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

describe('agents import', () => {
  const robotsJson = JSON.stringify({
    GPTBot: { operator: '[OpenAI](https://openai.com)', function: 'AI Data Scrapers', frequency: 'No information.', description: 'Trains models.' },
    NewAssistantBot: { operator: 'Example Labs, a start-up', function: 'Fetches pages when prompted by a user.', frequency: 'On demand.' },
    'Bad Bot/1.0': { operator: 'Unknown', function: 'Unclear' },
  });

  it('adds new tokens as catalogue rows (not defaults), updates known ones, reports names that are not tokens', async () => {
    await testDb.db.execute(sql`update user_agents set operator = 'Someone else' where token = 'GPTBot'`);
    const run = await agents(['import', '-'], robotsJson);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('imported 2 crawlers: 1 added, 1 updated, 0 unchanged\n');
    expect(run.stderr).toMatch(/^skipped "Bad Bot\/1\.0": not a product token/);
    const all = await listJson(true);
    expect(all.find((a) => a.token === 'NewAssistantBot')).toEqual({ token: 'NewAssistantBot', category: 'ai-assistant', operator: 'Example Labs', family: 'ai', isDefault: false });
    expect(all.find((a) => a.token === 'GPTBot')).toMatchObject({ operator: 'OpenAI', category: 'ai-training', isDefault: true });
    expect((await listJson()).map((a) => a.token)).not.toContain('NewAssistantBot');
  });

  it('a second import of the same file changes nothing; --json says so', async () => {
    await agents(['import', '-'], robotsJson);
    const run = await agents(['import', '-', '--json'], robotsJson);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ added: [], updated: [], skipped: [expect.objectContaining({ name: 'Bad Bot/1.0' })], bodiesReindexed: 0 });
  });

  it.each([
    ['not JSON', '{"GPTBot": ', /robots\.json is not JSON/],
    ['an array at the top', '[]', /top level is an array/],
    ['an entry that is not an object', '{"NewBot": {"operator": "X"}, "Other": 3}', /the entry "Other" is a number/],
    ['a field that is not a string', '{"NewBot": {"operator": 7}}', /"operator" as a number/],
  ])('%s: one clear line, exit 1, nothing imported', async (_name, text, message) => {
    const before = await listJson(true);
    const run = await agents(['import', '-'], text);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/nothing imported\n$/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(await listJson(true)).toEqual(before);
  });

  it('a missing file is one clear line', async () => {
    const run = await agents(['import', '/nonexistent/robots.json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/\/nonexistent\/robots\.json: .*nothing imported\n$/);
  });
});
