/**
 * docs/sql-reporting.md runs as written: every ```sql block goes through the real psql, with
 * its parameters as psql variables, against a database filled by real nights (the pipeline on
 * loopback sites, `audit --at`), and each question's rows are the ones the scenario makes true.
 * The views' documented columns are compared with the database's, so the page cannot drift.
 *
 * The scenario: seven nights over 100 days (`NIGHTS`), thirteen sites, each there to give one
 * question a known answer (and, where a filter matters, a site that must not be in it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogue } from '../../../src/crawlers/index.js';
import { ROOT } from '../../bench/bench-doc.js';
import type { FixtureReply } from '../../fixtures/web/index.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, nightAt, replayNight, rows, track } from '../../helpers/nightly.js';
import { readSqlDoc, runPsql, sqlBlocksOfSection } from '../../helpers/sql-doc.js';
import type { DocQuestion } from '../../helpers/sql-doc.js';

const NIGHT_0 = '2026-03-01T03:00:00.000Z';
/** Days after NIGHT_0: a few nights in a row, then two more than 90 days later. */
const NIGHTS = [0, 1, 2, 3, 4, 95, 100] as const;
type Day = (typeof NIGHTS)[number];

const ALLOW_ALL = 'User-agent: *\nAllow: /\n';
const DOWN: FixtureReply = { status: 503, body: 'down for maintenance\n', headers: { 'retry-after': '0' } };
const TRAINING = catalogue()
  .filter((c) => c.category === 'ai-training')
  .map((c) => c.token);
/** Every AI training crawler of the catalogue refused, everyone else welcome (question 2). */
const AI_BLOCK = `${TRAINING.map((t) => `User-agent: ${t}`).join('\n')}\nDisallow: /\n\nUser-agent: *\nAllow: /\n\nContent-Signal: ai-train=no, search=yes\n`;
const GPT_BLOCK = 'User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n';
const GPT_BLOCK_LATER = 'User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\nDisallow: /tmp/\n\nContent-Signal: ai-train=no\n';
const GOOGLEBOT_PRIVATE = 'User-agent: Googlebot\nDisallow: /private/\n\nUser-agent: *\nAllow: /\n';
/** Over 500 KiB: a rule, then comment lines (R-18: the first 512,000 bytes are read). */
const BIG = `User-agent: *\nDisallow: /big/\n${'# padding to make the file larger than Google reads\n'.repeat(12_000)}`;
/** AI training allowed, then refused from night 95 (issue 28), every crawler welcome. */
const SIGNALS = (aiTrain: 'yes' | 'no') => `User-agent: *\nAllow: /\nContent-Signal: search=yes, ai-train=${aiTrain}\n`;
const HTML = '<!DOCTYPE html>\n<html><head><title>Welcome</title></head><body><p>Our new site</p></body></html>\n';

/** What each site serves on each night; `elsewhere` is no site, only where `moved` redirects. */
function serveOn(day: Day, p: Pipeline): Record<string, string | FixtureReply> {
  return {
    gpt: day < 2 ? ALLOW_ALL : day < 95 ? GPT_BLOCK : GPT_BLOCK_LATER,
    aiblock: AI_BLOCK,
    streak: day >= 1 && day <= 3 ? DOWN : 'User-agent: *\nDisallow: /cart/\n',
    blip: day === 1 || day === 2 ? DOWN : 'User-agent: *\nDisallow: /cart/\n',
    fallback: day === 0 ? 'User-agent: *\nDisallow: /private/\n' : DOWN,
    tracked: day < 100 ? ALLOW_ALL : GOOGLEBOT_PRIVATE,
    big: BIG,
    lint: HTML,
    divergent: 'User-agent: Bingbot\nDisallow: /\n\nUser-agent: *\nAllow: /\n',
    moved: { status: 301, body: '', headers: { location: `${p.origin('elsewhere')}/robots.txt` } },
    elsewhere: 'User-agent: *\nDisallow: /moved/\n',
    // A bot wall on the last night (issue 18): the last known rules stand, unverified.
    walled: day < 100 ? 'User-agent: *\nDisallow: /cart/\n' : WALL,
    // Two versions in turn, night after night, differing in a comment: flapping from night 2.
    signals: SIGNALS(day < 95 ? 'yes' : 'no'),
    cdnpair: `User-agent: *\nDisallow: /cart/\n# node ${NIGHTS.indexOf(day) % 2 === 0 ? 'a' : 'b'}\n`,
  };
}

/** Night 3, at 10:00 and after: GPTBot (from OpenAI's ranges) reads robots.txt and crawls; a spoofer; ClaudeBot without robots.txt. */
const ACCESS_LOG = (host: string) =>
  [
    `${host} 132.196.86.5 - - [04/Mar/2026:10:00:00 +0000] "GET /robots.txt HTTP/1.1" 200 64 "-" "GPTBot/1.2 (+https://openai.com/gptbot)"`,
    `${host} 132.196.86.5 - - [04/Mar/2026:10:00:05 +0000] "GET /articles/a HTTP/1.1" 200 2048 "-" "GPTBot/1.2 (+https://openai.com/gptbot)"`,
    `${host} 203.0.113.5 - - [04/Mar/2026:11:00:00 +0000] "GET /articles/b HTTP/1.1" 200 2048 "-" "GPTBot/1.2 (+https://openai.com/gptbot)"`,
    `${host} 192.0.2.7 - - [04/Mar/2026:12:00:00 +0000] "GET /articles/c HTTP/1.1" 200 2048 "-" "ClaudeBot/1.0 (+claudebot@anthropic.com)"`,
    '',
  ].join('\n');

const WALL: FixtureReply = { status: 403, body: '<title>Just a moment...</title>', headers: { 'cf-mitigated': 'challenge' } };

const SITES = ['gpt', 'aiblock', 'streak', 'blip', 'fallback', 'tracked', 'big', 'lint', 'divergent', 'moved', 'walled', 'cdnpair', 'signals'] as const;
/** Question 12's portfolio; the other sites are in client-b. */
const CLIENT_A = ['gpt', 'tracked'] as const;

/** A night as psql prints a timestamptz in UTC. */
function night(day: Day): string {
  return nightAt(NIGHT_0, day).replace('T', ' ').replace('.000Z', '+00');
}

let p: Pipeline;
/** The agents evaluated nightly, in lower-case order. */
let agents: string[];

beforeAll(async () => {
  p = await startPipeline();
  await addSites(p, [...CLIENT_A], 'client-a');
  await addSites(
    p,
    SITES.filter((s) => !(CLIENT_A as readonly string[]).includes(s)),
    'client-b',
  );
  await track(p, 'tracked', ['/private/report']);
  for (const day of NIGHTS) await replayNight(p, nightAt(NIGHT_0, day), serveOn(day, p));
  // Issue 29: an access log of the gpt site, judged by its versions (GPTBot blocked from night 2).
  const ranges = await p.cli(['crawlers', 'ranges', 'import', 'test/fixtures/crawler-ranges/openai-gptbot.json', '--source', 'gptbot']);
  expect(ranges.code, ranges.stderr).toBe(0);
  const imported = await p.cli(['logs', 'import', '-', '--no-dns'], ACCESS_LOG(new URL(p.origin('gpt')).hostname));
  expect(imported.code, imported.stderr).toBe(0);
  agents = (await rows<{ token: string }>(p, 'select token from user_agents where is_default')).map((r) => r.token).sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
}, 110_000);

afterAll(async () => p?.close());

interface Case {
  /** Values for the block's variables (its `-- psql -v` line names them). */
  vars?: () => Record<string, string>;
  /** The rows psql prints, every value as text ('' for NULL), in order. */
  rows: () => Record<string, string>[];
}

const origin = (name: string) => p.origin(name);

/** Each question of the doc, by heading: what the scenario makes its answer. */
const CASES: Record<string, Case> = {
  'Which sites block GPTBot at the root?': {
    // aiblock's GPTBot line is line 1 (the group's first user-agent); its Disallow follows the 80 names.
    rows: () => [
      { origin: origin('aiblock'), since: night(0), rule_line: String(TRAINING.length + 1) },
      { origin: origin('gpt'), since: night(2), rule_line: '2' },
    ],
  },
  'Which sites block every AI training crawler but allow search crawlers?': {
    rows: () => [{ origin: origin('aiblock'), policy_reason: 'R-10', content_signals: '{"ai-train=no, search=yes"}' }],
  },
  'Which sites answered 5xx three nights or more in a row?': {
    // blip's two nights are not enough; fallback's streak goes on, streak's ended on night 4.
    rows: () => [
      { origin: origin('fallback'), first_night: night(1), last_night: night(100), nights: '6', ongoing: 't' },
      { origin: origin('streak'), first_night: night(1), last_night: night(3), nights: '3', ongoing: 'f' },
    ],
  },
  'Which tracked URLs became disallowed for Googlebot this week?': {
    // The roots that went to full disallow on night 1 (5xx) are more than a week old.
    rows: () => [
      {
        night: night(100),
        origin: origin('tracked'),
        url: `${origin('tracked')}/private/report`,
        cause: 'rules_changed',
        rule: '/private/',
        line: '2',
        allowed_now: 'f',
      },
    ],
  },
  'How often did each site\'s rules change in the last 90 days?': {
    // gpt's first change (night 2) is 98 days before the latest night.
    rows: () => [
      { origin: origin('gpt'), rule_changes: '1', last_change: night(95) },
      { origin: origin('tracked'), rule_changes: '1', last_change: night(100) },
    ],
  },
  'Which sites have a robots.txt over 500 KiB?': {
    rows: () => [{ origin: origin('big'), fetched: night(100), full_size: String(Buffer.byteLength(BIG)), kept_bytes: '512000' }],
  },
  'Which sites have lint errors?': {
    rows: () => [{ origin: origin('lint'), fetched: night(100), lint_errors: '1', lint_warnings: '0', bytes: String(Buffer.byteLength(HTML)) }],
  },
  'Where do Googlebot and Bingbot get different verdicts for `/`?': {
    rows: () => [{ origin: origin('divergent'), one_allowed: 't', one_line: '5', other_allowed: 'f', other_line: '2' }],
  },
  'Which sites are in the 30-day fallback?': {
    rows: () => [
      {
        origin: origin('fallback'),
        policy: 'rules',
        unreachable_since: night(1),
        days_unreachable: '99',
        fallback_since: night(95),
        rules_of: night(0),
        outcome: 'server_error',
        status: '503',
      },
    ],
  },
  'Which sites are behind a bot wall, or flapping?': {
    rows: () => {
      const hash12 = expect.stringMatching(/^\{[0-9a-f]{12},[0-9a-f]{12}\}$/) as unknown as string;
      return [
        { origin: origin('cdnpair'), outcome: 'ok', status: '200', unverified_since: '', vendor: '', flapping: 't', flapping_since: night(2), versions: hash12 },
        {
          origin: origin('walled'),
          outcome: 'challenged',
          status: '403',
          unverified_since: night(100),
          vendor: 'cloudflare',
          flapping: 'f',
          flapping_since: '',
          versions: expect.stringMatching(/^\{[0-9a-f]{12}\}$/) as unknown as string,
        },
      ].sort((a, b) => a.origin.localeCompare(b.origin));
    },
  },
  'Which sites redirect robots.txt to another host?': {
    rows: () => [{ origin: origin('moved'), final_url: `${origin('elsewhere')}/robots.txt`, hops: '1', outcome: 'ok', status: '200' }],
  },
  "What is one site's history?": {
    vars: () => ({ origin: origin('streak') }),
    rows: () => {
      const ok = (day: Day, changed: string) => ({ night: night(day), outcome: 'ok', status: '200', policy: 'rules', policy_reason: 'R-10', attempts: '1', changed });
      const down = (day: Day, changed: string) => ({
        night: night(day),
        outcome: 'server_error',
        status: '503',
        policy: 'disallow_all',
        policy_reason: 'R-13',
        attempts: '3',
        body: '',
        changed,
      });
      const body = { body: expect.stringMatching(/^[0-9a-f]{12}$/) as unknown as string };
      return [
        { ...ok(100, ''), ...body },
        { ...ok(95, ''), ...body },
        { ...ok(4, 'outcome,policy'), ...body },
        down(3, ''),
        down(2, ''),
        down(1, 'outcome,policy'),
        { ...ok(0, 'first_seen'), ...body },
      ];
    },
  },
  'What changed last night across a portfolio?': {
    vars: () => ({ portfolio: 'client-a' }),
    rows: () => {
      const base = { at: night(100), origin: origin('tracked'), severity: '', url: '', agent: '', allowed: '' };
      return [
        { ...base, event: 'alert', kind: 'rules_changed', severity: 'warning', detail: expect.any(String) as unknown as string },
        { ...base, event: 'alert', kind: 'search_url_disallowed', severity: 'critical', detail: expect.any(String) as unknown as string },
        { ...base, event: 'change', kind: 'raw,rules', detail: expect.stringContaining('+Disallow: /private/') as unknown as string },
        {
          ...base,
          event: 'flip',
          kind: 'rules_changed',
          url: `${origin('tracked')}/private/report`,
          agent: 'Googlebot',
          allowed: 'f',
          detail: 'disallow /private/ (line 2)',
        },
      ];
    },
  },
  'Which sites refuse AI training but let GPTBot crawl?': {
    // gpt refuses AI training too (`*`, from night 95), but not to GPTBot, which it does not let crawl.
    rows: () => [{ origin: origin('signals'), since: night(95), line: '3', value: 'search=yes, ai-train=no', crawlers_told: String(agents.length) }],
  },
  'What changed in AI usage preferences since a date?': {
    // Night 95: signals says ai-train=no instead of yes; gpt says it for the first time (its `*` group).
    vars: () => ({ since: nightAt(NIGHT_0, 5) }),
    rows: () => [
      { night: night(95), origin: origin('gpt'), purpose: 'ai-train', from_preference: 'unknown', to_preference: 'refused', line: '8', value: 'ai-train=no', urls: '1', crawlers: String(agents.length - 1) },
      {
        night: night(95),
        origin: origin('signals'),
        purpose: 'ai-train',
        from_preference: 'allowed',
        to_preference: 'refused',
        line: '3',
        value: 'search=yes, ai-train=no',
        urls: '1',
        crawlers: String(agents.length),
      },
    ],
  },
  "What is a site's root told about AI training, and since when?": {
    vars: () => ({ origin: origin('gpt') }),
    rows: () => [
      { preference: 'not-crawlable', since: '', line: '', mechanism: '', value: '', crawlers: 'GPTBot' },
      { preference: 'refused', since: night(95), line: '8', mechanism: 'content-signal', value: 'ai-train=no', crawlers: agents.filter((a) => a !== 'GPTBot').join(', ') },
    ],
  },
  "Which AI crawlers may not fetch a site's root, since when?": {
    vars: () => ({ origin: origin('gpt') }),
    rows: () => [{ token: 'GPTBot', category: 'ai-training', operator: 'OpenAI', since: night(2), content_signals: '{ai-train=no}' }],
  },
  'What did a site refuse on a given night?': {
    vars: () => ({ origin: origin('gpt'), night: nightAt(NIGHT_0, 3) }),
    rows: () => [{ url: `${origin('gpt')}/`, token: 'GPTBot', rule_line: '2', valid_from: night(2), valid_to: '' }],
  },
  'Which rules apply to a site now?': {
    // Unreachable for 99 days: night 0's rules apply (D-3).
    vars: () => ({ origin: origin('fallback') }),
    rows: () => [{ line: '2', group_no: '0', user_agents: '*', kind: 'disallow', value: '/private/', policy_reason: 'D-3' }],
  },
  'Which crawlers ignored robots.txt since a date?': {
    rows: () => [
      {
        origin: origin('gpt'),
        crawler: 'GPTBot',
        requests: '2',
        violations_verified: '1',
        violations_unverified: '0',
        spoofed: '1',
        read_robots_txt_first: 't',
        last_robots_txt_fetch: '2026-03-04 10:00:00+00',
      },
    ],
  },
  'Which URLs did a crawler fetch that the robots.txt in force disallowed?': {
    rows: () => [
      { at: '2026-03-04 10:00:05+00', url: `${origin('gpt')}/articles/a`, identity: 'verified', rule_line: '2', rule: 'Disallow: /', version_since: night(2) },
      { at: '2026-03-04 11:00:00+00', url: `${origin('gpt')}/articles/b`, identity: 'spoofed', rule_line: '2', rule: 'Disallow: /', version_since: night(2) },
    ],
  },
  'Which crawlers crawl without reading robots.txt first?': {
    rows: () => [{ origin: origin('gpt'), crawler: 'ClaudeBot', requests: '1', first_request: '2026-03-04 12:00:00+00', first_robots_txt_fetch: '' }],
  },
  'How did the last seven runs go?': {
    rows: () =>
      [...NIGHTS].reverse().map((day) => ({
        run_key: `at-${nightAt(NIGHT_0, day)}`,
        run_at: night(day),
        status: 'completed',
        seconds: expect.stringMatching(/^\d+$/) as unknown as string,
        sites_total: String(SITES.length),
        sites_done: String(SITES.length),
        // streak (1-3), blip (1-2) and fallback (from 1) answer 503 after their retries; walled is
        // challenged on night 100.
        server_error: String(day === 0 ? 0 : day <= 2 ? 3 : day === 3 ? 2 : 1),
        ok: String(SITES.length - (day === 0 ? 0 : day <= 2 ? 3 : day === 3 ? 2 : 1) - (day === 100 ? 1 : 0)),
        unavailable: '0',
        network_error: '0',
        changes: expect.stringMatching(/^\d+$/) as unknown as string,
        flips: expect.stringMatching(/^\d+$/) as unknown as string,
        // Night 95: signals' ai-train for every agent, gpt's for all but GPTBot (question "What changed in AI usage preferences").
        usage_flips: String(day === 95 ? 2 * agents.length - 1 : 0),
        alerts: expect.stringMatching(/^\d+$/) as unknown as string,
      })),
  },
};

const doc = readSqlDoc();

describe('docs/sql-reporting.md: the questions', () => {
  it('answers at least twelve questions, one sql block each, and every sql block is a question', () => {
    expect(doc.questions.length).toBeGreaterThanOrEqual(12);
    expect(doc.sqlBlocks).toHaveLength(doc.questions.length);
    expect(doc.questions.map((q) => q.heading).sort()).toEqual(Object.keys(CASES).sort());
  });

  it('names every variable a query uses on its `-- psql -v` line, and no other', () => {
    for (const q of doc.questions) expect(Object.keys(q.variables).sort(), q.heading).toEqual([...q.used].sort());
  });

  const byHeading = new Map<string, DocQuestion>(doc.questions.map((q) => [q.heading, q]));
  for (const [heading, c] of Object.entries(CASES)) {
    it(`${heading}`, async () => {
      const q = byHeading.get(heading);
      expect(q, `no question "${heading}" in the doc`).toBeDefined();
      const vars = { ...q!.variables, ...c.vars?.() };
      const result = await runPsql(p.db.url, q!.sql, vars);
      expect(result.rows).toEqual(c.rows().map((expected) => expect.objectContaining(expected) as unknown));
      // Every column the case names is one the query returns.
      for (const expected of c.rows()) for (const column of Object.keys(expected)) expect(result.columns, heading).toContain(column);
    });
  }
});

describe("README.md's reporting examples", () => {
  it('run as they stand, and find the site in the 30-day fallback', async () => {
    const statements = sqlBlocksOfSection(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'), 'Reporting with SQL')
      .flatMap((block) => block.split(/;\s*(?:\n|$)/))
      .filter((sql) => sql.replace(/--[^\n]*/g, '').trim() !== '');
    expect(statements).toHaveLength(3);
    const outputs = await Promise.all(statements.map((sql) => runPsql(p.db.url, sql)));
    expect(outputs.flatMap((o) => o.rows.map((r) => r.origin))).toContain(origin('fallback'));
  });
});

describe('docs/sql-reporting.md: the views', () => {
  /** The public views, the verdict_flips and usage_flips tables, and their columns as the database has them. */
  async function columnsOf(): Promise<Map<string, [string, string][]>> {
    const found = await rows<{ relation: string; column: string; type: string }>(
      p,
      `select c.relname as relation, a.attname as column,
              replace(format_type(a.atttypid, a.atttypmod), 'timestamp with time zone', 'timestamptz') as type
       from pg_class c join pg_namespace n on n.oid = c.relnamespace join pg_attribute a on a.attrelid = c.oid
       where n.nspname = 'public' and (c.relkind = 'v' or c.relname in ('verdict_flips', 'usage_flips')) and a.attnum > 0 and not a.attisdropped
       order by c.relname, a.attnum`,
    );
    const out = new Map<string, [string, string][]>();
    for (const r of found) out.set(r.relation, [...(out.get(r.relation) ?? []), [r.column, r.type]]);
    return out;
  }

  it('documents every view (and verdict_flips, usage_flips) column by column, with its type, in order', async () => {
    const actual = await columnsOf();
    const documented = new Map(doc.relations.filter((r) => r.columns.length > 0).map((r) => [r.name, r.columns]));
    expect([...documented.keys()].sort()).toEqual([...actual.keys()].sort());
    for (const [name, columns] of actual) expect(documented.get(name), name).toEqual(columns);
  });

  it('documents verdicts_on(night), which returns the rows of verdict_history', async () => {
    expect(doc.relations.map((r) => r.name)).toContain('verdicts_on');
    const [fn] = await rows<{ result: string }>(p, "select pg_get_function_result('verdicts_on(timestamptz)'::regprocedure) as result");
    expect(fn?.result).toBe('SETOF verdict_history');
  });
});
