/**
 * `robots-audit test-draft` on a real database: `https://shop.example` tracks
 * `/products/blue-widget` for Googlebot (a default agent), its portfolio adds Bytespider and the
 * URL adds a token no table knows; its nights are stored as the nightly run stores them. The
 * draft's answers are checked against the cases, against the database-free form, and
 * against the night that storing the draft then actually makes (the same flips, the same alerts).
 * Nothing is written by the command.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_AGENT_TOKENS } from '../../../src/crawlers/index.js';
import { createRepos } from '../../../src/db/index.js';
import { storeSingleNight } from '../../../src/services/night-runner.js';
import { startFixtureWeb } from '../../fixtures/web/index.js';
import type { FixtureWeb } from '../../fixtures/web/index.js';
import { closedPort } from '../../fixtures/webhook-receiver.js';
import { fetchResult } from '../../helpers/fetch-results.js';
import { runCli } from '../../helpers/cli.js';
import type { CliRun } from '../../helpers/cli.js';
import { createTestDatabase } from '../../helpers/test-db.js';
import type { TestDatabase } from '../../helpers/test-db.js';

const ORIGIN = 'https://shop.example';
const SHOP = 'User-agent: *\nDisallow: /cart\nDisallow: /checkout/\n\nSitemap: https://shop.example/sitemap.xml\n';
/** The shop's file with `Disallow: /` added under `User-agent: *` (line 9). */
const STAGING = `${SHOP}\n# staging: keep crawlers out\nUser-agent: *\nDisallow: /\n`;
const STAGING_LINE = 9;
const COMMENT = `# reviewed by the SEO team, 2026-11\n${SHOP}`;
const NETWORK = ['--allow-network', '127.0.0.0/8', '--resolve', '*.test=127.0.0.1'];

let db: TestDatabase;
let web: FixtureWeb;
let dir: string;
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};

const testDraft = (args: string[], stdin?: string): Promise<CliRun> => runCli(['test-draft', ...args, '--database-url', db.url], stdin === undefined ? {} : { stdin });

interface DraftJson {
  failing: boolean;
  exitCode: number;
  compared: number;
  current: { source: string; policy: string };
  flips: { url: string; crawler: string; tracked: boolean; allowedBefore: boolean; allowedAfter: boolean; ruleBefore: { line: number } | null; ruleAfter: { line: number } | null; severity: string | null; alert: string | null }[];
  alerts: { kind: string; severity: string; failing: boolean; lines: number[] }[];
}

async function json(args: string[]): Promise<{ run: CliRun; out: DraftJson }> {
  const run = await testDraft([...args, '--format', 'json']);
  expect(run.stderr).toBe('');
  return { run, out: JSON.parse(run.stdout) as DraftJson };
}

async function counts(): Promise<Record<string, number>> {
  const { rows } = await db.pool.query<{ t: string; n: number }>(
    `select 'user_agents' as t, count(*)::int as n from user_agents union all select 'snapshots', count(*)::int from snapshots
     union all select 'alerts', count(*)::int from alerts union all select 'verdicts', count(*)::int from verdicts`,
  );
  return Object.fromEntries(rows.map((r) => [r.t, r.n]));
}

let siteId: number;
async function storeNight(runKey: string, at: Date, body: string): Promise<number> {
  const { run } = await createRepos(db.db).runs.createRun({ runKey, trigger: 'manual', runAt: at });
  await storeSingleNight(db.pool, run.id, siteId, fetchResult({ origin: ORIGIN, outcome: 'ok', body, startedAt: at }));
  return run.id;
}

beforeAll(async () => {
  db = await createTestDatabase();
  web = await startFixtureWeb();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'test-draft-'));
  for (const argv of [
    ['sites', 'add', ORIGIN, '--portfolio', 'retail'],
    ['track', ORIGIN, '/products/blue-widget', '/checkout/step-1'],
    ['track', ORIGIN, '/products/red-kettle', '--ua', 'Shopbot-Internal'],
  ]) {
    const run = await runCli([...argv, '--database-url', db.url]);
    expect(run.code, run.stderr).toBe(0);
  }
  await db.pool.query(`update portfolios set extra_user_agents = '{Bytespider}' where name = 'retail'`);
  siteId = (await createRepos(db.db).sites.findSiteByOrigin(ORIGIN))!.id;
  await storeNight('night-1', new Date('2026-11-01T03:00:00Z'), SHOP);
}, 60_000);

afterAll(async () => {
  await web?.close();
  await db?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the issue\'s cases, on the database', () => {
  it('a draft that adds Disallow: / under User-agent: * exits 1; its JSON names the flipped URL and Googlebot', async () => {
    const { run, out } = await json([ORIGIN, file('staging.txt', STAGING)]);
    expect(run.code).toBe(1);
    expect(out.failing).toBe(true);
    expect(out.current).toMatchObject({ source: 'database', policy: 'rules' });
    expect(out.flips).toContainEqual(
      expect.objectContaining({ url: `${ORIGIN}/products/blue-widget`, crawler: 'Googlebot', tracked: true, allowedBefore: true, allowedAfter: false, severity: 'critical', alert: 'search_url_disallowed' }),
    );
    expect(out.flips.find((f) => f.url === `${ORIGIN}/products/blue-widget` && f.crawler === 'Googlebot')).toMatchObject({ ruleBefore: null, ruleAfter: { line: STAGING_LINE } });
    expect(out.alerts.filter((a) => a.failing).map((a) => a.kind)).toEqual(['disallow_all_added', 'search_url_disallowed']);
  });

  it('a draft that only adds a comment exits 0 with no flip', async () => {
    const { run, out } = await json([ORIGIN, file('comment.txt', COMMENT)]);
    expect(run.code).toBe(0);
    expect(out.flips).toEqual([]);
    expect(out.alerts.map((a) => a.kind)).toEqual(['comments_only']);
  });

  it('--format github prints ::error lines on the draft\'s line, and still exits 1', async () => {
    const run = await testDraft([ORIGIN, file('staging-gh.txt', STAGING), '--format', 'github']);
    expect(run.code).toBe(1);
    const errors = run.stdout.split('\n').filter((l) => l.startsWith('::error '));
    expect(errors.length).toBeGreaterThanOrEqual(2);
    for (const line of errors) expect(line.startsWith(`::error file=${dir}/staging-gh.txt,line=${STAGING_LINE},title=robots-audit critical%3A `), line).toBe(true);
    expect(run.stdout).toContain(`${ORIGIN}/products/blue-widget allowed -> disallowed for Googlebot`);
  });

  it('the targets are the nightly run\'s: defaults, the portfolio\'s extra, the URL\'s own (a token no table has)', async () => {
    const { out } = await json([ORIGIN, file('all.txt', 'User-agent: *\nDisallow: /\n')]);
    const kettle = out.flips.filter((f) => f.url === `${ORIGIN}/products/red-kettle`).map((f) => f.crawler);
    expect(kettle).toEqual([...DEFAULT_AGENT_TOKENS, 'Bytespider', 'Shopbot-Internal']);
    expect(out.flips.filter((f) => f.url === `${ORIGIN}/products/blue-widget`).map((f) => f.crawler)).toEqual([...DEFAULT_AGENT_TOKENS, 'Bytespider']);
    // The root for every crawler of the catalogue too, those no agent of the site names marked untracked.
    const root = out.flips.filter((f) => f.url === `${ORIGIN}/`);
    expect(root.filter((f) => f.tracked).map((f) => f.crawler)).toEqual([...DEFAULT_AGENT_TOKENS, 'Bytespider']);
    expect(root.filter((f) => !f.tracked).length).toBeGreaterThan(100);
  });

  it('writes nothing: not even a user_agents row for a token tracked since the last night', async () => {
    const tracked = await runCli(['track', ORIGIN, '/new-arrivals', '--ua', 'Fresh-Bot', '--database-url', db.url]);
    expect(tracked.code, tracked.stderr).toBe(0);
    const before = await counts();
    const { out } = await json([ORIGIN, file('nothing.txt', STAGING)]);
    expect(out.flips.filter((f) => f.url === `${ORIGIN}/new-arrivals`).map((f) => f.crawler)).toContain('Fresh-Bot');
    expect(await counts()).toEqual(before);
    const { rows } = await db.pool.query("select 1 from user_agents where lower(token) = 'fresh-bot'");
    expect(rows).toEqual([]);
    expect((await runCli(['untrack', ORIGIN, '/new-arrivals', '--database-url', db.url])).code).toBe(0);
  });

  it('standard input (-) is a draft too', async () => {
    const run = await testDraft([ORIGIN, '-', '--format', 'json'], STAGING);
    expect(run.code).toBe(1);
    expect((JSON.parse(run.stdout) as DraftJson).failing).toBe(true);
  });

  it('--fail-on warning fails on an AI crawler blocked; critical does not', async () => {
    const ai = file('ai.txt', `${SHOP}\nUser-agent: GPTBot\nDisallow: /\n`);
    expect((await testDraft([ORIGIN, ai])).code).toBe(0);
    expect((await testDraft([ORIGIN, ai, '--fail-on', 'warning'])).code).toBe(1);
  });
});

describe('the database-free form gives the same answers', () => {
  const freeArgs = (draft: string) => [ORIGIN, draft, '--current', file('current.txt', SHOP), '--urls', file('urls.txt', '# tracked\n/products/blue-widget\n/checkout/step-1\n\n'), ...DEFAULT_AGENT_TOKENS.flatMap((t) => ['--ua', t])];

  it.each([
    ['staging', STAGING, 1],
    ['comment', COMMENT, 0],
  ])('%s: the same exit code, flips and alerts as with the database (for the same URLs and agents)', async (name, draft, code) => {
    const draftFile = file(`${name}-free.txt`, draft);
    const withDb = await json([ORIGIN, draftFile]);
    const free = await json(freeArgs(draftFile));
    expect(free.run.code).toBe(code);
    expect(withDb.run.code).toBe(code);
    const inScope = (f: DraftJson['flips'][number]) => !f.url.endsWith('/red-kettle') && f.crawler !== 'Bytespider';
    expect(free.out.flips.filter(inScope)).toEqual(withDb.out.flips.filter(inScope));
    expect(free.out.alerts.map((a) => [a.kind, a.severity, a.failing])).toEqual(withDb.out.alerts.map((a) => [a.kind, a.severity, a.failing]));
  });

  it('--ua defaults to the default agents, which are what a new database has', async () => {
    const { rows } = await db.pool.query<{ token: string }>('select token from user_agents where is_default order by id');
    expect(rows.map((r) => r.token)).toEqual([...DEFAULT_AGENT_TOKENS]);
    const { out } = await json([ORIGIN, file('d.txt', 'User-agent: *\nDisallow: /\n'), '--current', file('c.txt', SHOP)]);
    expect(out.flips.filter((f) => f.tracked).map((f) => f.crawler)).toEqual([...DEFAULT_AGENT_TOKENS]);
  });

  it('--current <url>: a 404 in force means everything was allowed (R-12); the draft is fetched from a staging URL', async () => {
    web.set('prod.test', { status: 404, body: 'not found\n' });
    web.set('staging.test', { status: 200, body: 'User-agent: *\nDisallow: /\n' });
    const { run, out } = await json([ORIGIN, `${web.baseUrl('staging.test')}/robots.txt`, '--current', web.baseUrl('prod.test'), ...NETWORK]);
    expect(run.code).toBe(1);
    expect(out.current).toMatchObject({ policy: 'allow_all' });
    expect(out.flips.filter((f) => f.tracked && f.crawler === 'Googlebot').map((f) => f.ruleAfter?.line)).toEqual([2]);
  });
});

describe('bad input: exit 2 and one line', () => {
  it.each<[string, () => string[], RegExp]>([
    ['a site that is not monitored', () => ['https://nowhere.example', file('x.txt', SHOP)], /^robots-audit: not monitored: https:\/\/nowhere\.example/],
    ['a draft that does not exist', () => [ORIGIN, path.join(dir, 'missing.txt')], /^robots-audit: cannot read .*missing\.txt: no such file/],
    ['--urls without --current', () => [ORIGIN, file('y.txt', SHOP), '--urls', file('u.txt', '/a\n')], /^robots-audit: --urls and --ua go with --current/],
    ['a bad --fail-on', () => [ORIGIN, file('z.txt', SHOP), '--fail-on', 'panic'], /^error: option '--fail-on <severity>' argument 'panic' is invalid/],
    ['a URL of another site in --urls', () => [ORIGIN, file('w.txt', SHOP), '--current', file('cc.txt', SHOP), '--urls', file('bad-urls.txt', '/ok\nhttps://other.example/x\n')], /bad-urls\.txt line 2: invalid URL "https:\/\/other\.example\/x": not on https:\/\/shop\.example/],
    ['a --ua that is not a product token', () => [ORIGIN, file('v.txt', SHOP), '--current', file('cv.txt', SHOP), '--ua', 'Googlebot/2.1'], /not a user-agent product token/],
    ['a draft URL that is not a robots.txt', () => [ORIGIN, 'https://raw.example/repo/robots.txt', '--current', file('cu.txt', SHOP)], /crawlers read <origin>\/robots\.txt only/],
  ])('%s', async (_name, args, message) => {
    const run = await testDraft(args());
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it('a draft URL that answers 404', async () => {
    web.set('gone.test', { status: 404, body: 'nope\n' });
    const run = await testDraft([ORIGIN, web.baseUrl('gone.test'), '--current', file('cg.txt', SHOP), ...NETWORK]);
    expect([run.code, run.stderr]).toEqual([2, `robots-audit: draft ${web.baseUrl('gone.test')}: HTTP 404 (unavailable): there is no draft there to test\n`]);
  });

  it('a database that is not migrated', async () => {
    const empty = await createTestDatabase({ empty: true });
    try {
      const run = await runCli(['test-draft', ORIGIN, file('m.txt', SHOP), '--database-url', empty.url]);
      expect([run.code, run.stderr]).toEqual([2, 'robots-audit: database is not migrated: run `robots-audit db migrate`\n']);
    } finally {
      await empty.close();
    }
  });

  it('a database that cannot be reached', async () => {
    const run = await runCli(['test-draft', ORIGIN, file('q.txt', SHOP), '--database-url', `postgres://postgres@127.0.0.1:${await closedPort()}/nothing`]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^robots-audit: cannot reach Postgres at .*ECONNREFUSED\n$/);
  });
});

describe('as the nightly run would: the night that stores the draft flips what test-draft said', () => {
  it('the same tracked flips (URL, agent, direction, deciding lines) and the same alerts', async () => {
    const draft = `${SHOP}\nUser-agent: GPTBot\nUser-agent: Bytespider\nDisallow: /products/\n\nUser-agent: Googlebot\nDisallow: /products/red\n`;
    const { out } = await json([ORIGIN, file('next.txt', draft)]);
    const runId = await storeNight('night-2', new Date('2026-11-02T03:00:00Z'), draft);
    const { rows: flips } = await db.pool.query<{ url: string; token: string; from_allowed: boolean; to_allowed: boolean; before: number | null; after: number | null }>(
      `select u.url, a.token, f.from_allowed, f.to_allowed, (f.rule_before->>'line')::int as before, (f.rule_after->>'line')::int as after
         from verdict_flips f join tracked_urls u on u.id = f.tracked_url_id join user_agents a on a.id = f.user_agent_id
        where f.run_id = $1`,
      [runId],
    );
    const byUrlAgent = (a: { url: string; token: string }, b: { url: string; token: string }) => a.url.localeCompare(b.url) || a.token.localeCompare(b.token);
    const predicted = out.flips
      .filter((f) => f.tracked)
      .map((f) => ({ url: f.url, token: f.crawler, from_allowed: f.allowedBefore, to_allowed: f.allowedAfter, before: f.ruleBefore?.line ?? null, after: f.ruleAfter?.line ?? null }))
      .sort(byUrlAgent);
    expect(flips.length).toBeGreaterThan(0);
    expect(predicted).toEqual(flips.sort(byUrlAgent));
    const { rows: alerts } = await db.pool.query<{ kind: string; severity: string }>('select kind, severity::text from alerts where run_id = $1 order by id', [runId]);
    const access = new Set(['ai_access_changed', 'search_url_disallowed', 'star_rules_bypassed']);
    // The nightly alerts list tracked flips only; test-draft's the catalogue's at the root too, which change no kind here.
    expect(alerts.map((a) => [a.kind, a.severity]).sort()).toEqual(out.alerts.map((a) => [a.kind, a.severity]).sort());
    expect(out.alerts.some((a) => access.has(a.kind))).toBe(true);
  });

  it('usage preferences (issue 28): the same changes per URL x agent x purpose and the same alert as the night that stores the draft; --fail-on reads its severity', async () => {
    const inForce = `${SHOP}\nUser-agent: GPTBot\nUser-agent: Bytespider\nDisallow: /products/\n\nUser-agent: Googlebot\nDisallow: /products/red\n`;
    const draft = inForce.replace('User-agent: *\n', 'User-agent: *\nContent-Signal: search=yes, ai-train=no\n');
    const draftFile = file('signal.txt', draft);
    const run = await testDraft([ORIGIN, draftFile, '--format', 'json', '--fail-on', 'info']);
    expect(run.code).toBe(1);
    const out = JSON.parse(run.stdout) as DraftJson & {
      usageFlips: { url: string; crawler: string; purpose: string; preferenceBefore: string; preferenceAfter: string; ruleAfter: { line: number; value: string } | null; alert: string | null }[];
    };
    expect(out.flips).toEqual([]);
    expect(out.alerts.filter((a) => a.failing).map((a) => [a.kind, a.severity, a.lines])).toEqual([
      ['ai_training_refused', 'info', [2]],
      ['search_use_allowed', 'info', [2]],
    ]);
    expect((await testDraft([ORIGIN, draftFile])).code).toBe(0);

    const runId = await storeNight('night-3', new Date('2026-11-03T03:00:00Z'), draft);
    const { rows: stored } = await db.pool.query<{ url: string; token: string; purpose: string; from: string; to: string; line: number | null }>(
      `select t.url, a.token, u.purpose, u.from_preference as "from", u.to_preference as "to", (u.rule_after->>'line')::int as line
         from usage_flips u join tracked_urls t on t.id = u.tracked_url_id join user_agents a on a.id = u.user_agent_id
        where u.run_id = $1`,
      [runId],
    );
    const key = (f: { url: string; token: string; purpose: string }) => `${f.url} ${f.token} ${f.purpose}`;
    const predicted = out.usageFlips.map((f) => ({ url: f.url, token: f.crawler, purpose: f.purpose, from: f.preferenceBefore, to: f.preferenceAfter, line: f.ruleAfter?.line ?? null }));
    expect(stored.length).toBeGreaterThan(0);
    expect(predicted.sort((a, b) => key(a).localeCompare(key(b)))).toEqual(stored.sort((a, b) => key(a).localeCompare(key(b))));
    const { rows: alerts } = await db.pool.query<{ kind: string; severity: string }>('select kind, severity::text from alerts where run_id = $1 order by id', [runId]);
    expect(alerts.map((a) => [a.kind, a.severity]).sort()).toEqual(out.alerts.map((a) => [a.kind, a.severity]).sort());
  });
});
