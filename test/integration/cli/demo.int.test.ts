/**
 * `robots-audit demo`, the README's first command: 2023 month by month and 29 July to 30 August
 * 2025 night by night on a loopback web, into a database of its own (here a throwaway name,
 * dropped after), with its Redis keys removed at the end. What it leaves in the database and
 * what it prints are checked against the plan it replays (src/demo).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../src/config/env.js';
import { NIGHTS_2023, NIGHTS_2025 } from '../../../src/demo/demo-plan.js';
import { EDGE_CASES_2025, PUBLISHERS_2023 } from '../../../src/demo/demo-sites.js';
import { bodyOnNight, loadDemoHistories, sha256Hex } from '../../../src/demo/histories.js';
import { runCli } from '../../helpers/cli.js';
import type { CliRun } from '../../helpers/cli.js';
import { databaseUrl } from '../../helpers/test-db.js';

const name = `test_demo_${randomBytes(6).toString('hex')}`;
const adminUrl = config().DATABASE_URL;
const redisUrl = config().REDIS_URL;
const NIGHTS = [...NIGHTS_2023, ...NIGHTS_2025];
const HISTORIES = loadDemoHistories();

/** Keys under a prefix, e.g. the demo's queues (other tests may use Redis meanwhile: only its own prefix is looked at). */
async function keysUnder(prefix: string): Promise<string[]> {
  const redis = new Redis(redisUrl);
  try {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
    return found;
  } finally {
    await redis.quit();
  }
}

let run: CliRun;
let db: pg.Client;

beforeAll(async () => {
  run = await runCli(['demo', '--database-name', name], { env: { DATABASE_URL: adminUrl, REDIS_URL: redisUrl } });
  db = new pg.Client({ connectionString: databaseUrl(name, adminUrl) });
  await db.connect();
}, 120_000);

afterAll(async () => {
  await db?.end();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
  } finally {
    await admin.end();
  }
});

const rows = async <T extends Record<string, unknown>>(text: string, params: unknown[] = []) => (await db.query<T>(text, params)).rows;
const count = async (text: string, params: unknown[] = []) => Number((await rows<{ n: string }>(text, params))[0]!.n);
/** The stdout section under a `== ...` heading that contains `title`, up to the next heading. */
const section = (title: string) => {
  const start = run.stdout.indexOf(title);
  expect(start, `a section "${title}" in the output`).toBeGreaterThan(-1);
  const end = run.stdout.indexOf('\n== ', start);
  return run.stdout.slice(start, end < 0 ? undefined : end);
};
/** The line of a printed table whose first cell is `site`. */
const rowOf = (table: string, site: string) => table.split('\n').find((line) => line.startsWith(`${site} `)) ?? '';

describe('robots-audit demo', () => {
  it('exits 0 and prints one line for each of its 46 nights', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`== database ${name}: recreated and migrated`);
    expect(NIGHTS).toHaveLength(46);
    for (const night of NIGHTS) expect(run.stdout).toContain(`\n${night.toISOString().slice(0, 16).replace('T', ' ')} `);
  });

  it('leaves one completed run per night, as `audit --at` keys them, over every site it added', async () => {
    const runs = await rows<{ run_key: string; run_at: Date; status: string; sites_total: number }>('select run_key, run_at, status, sites_total from audit_runs order by run_at');
    expect(runs.map((r) => r.run_key)).toEqual(NIGHTS.map((n) => `at-${n.toISOString()}`));
    expect(runs.every((r) => r.status === 'completed')).toBe(true);
    const sites2023 = PUBLISHERS_2023.length;
    const sites2025 = sites2023 + EDGE_CASES_2025.length + HISTORIES.length;
    expect(runs.map((r) => r.sites_total)).toEqual([...NIGHTS_2023.map(() => sites2023), ...NIGHTS_2025.map(() => sites2025)]);
    expect(await count('select count(*) as n from sites')).toBe(sites2025);
  });

  it('applies the 30-day fallback (D-3) to outage.demo: full disallow from its first 503, its last good rules after 30 days', async () => {
    const nights = await rows<{ night: Date; outcome: string; policy: string; policy_reason: string; rules_from: Date | null; unreachable_since: Date | null }>(
      `select r.run_at as night, x.outcome::text, x.policy::text, x.policy_reason, rr.run_at as rules_from, x.unreachable_since
       from snapshots x join sites s on s.id = x.site_id join audit_runs r on r.id = x.run_id left join audit_runs rr on rr.id = x.rules_run_id
       where s.origin like 'http://outage.demo:%' and r.run_at >= $1 order by r.run_at`,
      [NIGHTS_2025[0]],
    );
    expect(nights).toHaveLength(33);
    expect(nights.every((n) => n.outcome === 'server_error' && n.unreachable_since?.toISOString() === NIGHTS_2025[0]!.toISOString())).toBe(true);
    const day = (n: { night: Date }) => n.night.toISOString().slice(0, 10);
    const disallowed = nights.filter((n) => n.policy === 'disallow_all' && n.policy_reason === 'R-13');
    const fallback = nights.filter((n) => n.policy === 'rules' && n.policy_reason === 'D-3');
    expect(disallowed).toHaveLength(31);
    expect(fallback.map(day)).toEqual(['2025-08-29', '2025-08-30']);
    // The copy in force is that of the last night it answered: 1 January 2024.
    expect(fallback.map((n) => n.rules_from?.toISOString())).toEqual([NIGHTS_2023.at(-1)!.toISOString(), NIGHTS_2023.at(-1)!.toISOString()]);
  });

  it('records the scripted fetch-rule cases: too many redirects (R-11), a 404 (R-12), an HTML page', async () => {
    const latest = await rows<{ origin: string; outcome: string; policy: string; policy_reason: string }>(
      `select s.origin, x.outcome::text, x.policy::text, x.policy_reason from site_state x join sites s on s.id = x.site_id
       where s.origin ~ '^http://(moved|gone|spa)\\.demo:' order by s.origin`,
    );
    expect(latest.map((r) => [new URL(r.origin).hostname, r.outcome, r.policy, r.policy_reason])).toEqual([
      ['gone.demo', 'unavailable', 'allow_all', 'R-12'],
      ['moved.demo', 'redirect_limit', 'allow_all', 'R-11'],
      ['spa.demo', 'ok', 'rules', 'R-10'],
    ]);
    expect(await count(`select count(*) as n from snapshots x join sites s on s.id = x.site_id where s.origin like 'http://moved.demo:%' and x.outcome = 'ok'`)).toBe(27);
  });

  it('shows a bot wall and a flapping host (issue 18): walled.demo challenged with its rules standing, cdn-pair.demo flapping then settled', async () => {
    const walled = await rows<{ outcome: string; policy: string; policy_reason: string }>(
      `select x.outcome::text, x.policy::text, x.policy_reason from snapshots x join sites s on s.id = x.site_id
        where s.origin like 'http://walled.demo:%' and x.outcome = 'challenged'`,
    );
    expect(walled.length).toBeGreaterThanOrEqual(10);
    expect(walled.every((n) => n.policy === 'rules' && n.policy_reason === 'challenged')).toBe(true);
    const alertsOf = async (host: string) =>
      (await rows<{ kind: string }>(`select a.kind from alerts a join sites s on s.id = a.site_id join audit_runs r on r.id = a.run_id where s.origin like $1 order by r.run_at, a.kind`, [
        `http://${host}:%`,
      ])).map((a) => a.kind);
    expect(await alertsOf('walled.demo')).toEqual(['challenge_started', 'challenge_ended']);
    const pair = await alertsOf('cdn-pair.demo');
    expect(pair.filter((k) => k.startsWith('flapping_'))).toEqual(['flapping_started', 'flapping_settled']);
    expect(pair.length).toBeLessThanOrEqual(5);
  });

  it('serves the recorded histories byte for byte: each recorded site kept the body in force on each night', async () => {
    const stored = await rows<{ origin: string; night: Date; sha256: string | null }>(
      `select s.origin, r.run_at as night, encode(b.sha256, 'hex') as sha256 from snapshots x join sites s on s.id = x.site_id join audit_runs r on r.id = x.run_id
       left join bodies b on b.id = x.body_id where s.origin like 'http://www.%'`,
    );
    expect(stored).toHaveLength(HISTORIES.length * NIGHTS_2025.length);
    for (const history of HISTORIES) {
      for (const night of NIGHTS_2025) {
        const body = bodyOnNight(history, night);
        const row = stored.find((r) => new URL(r.origin).hostname === `${history.host}.demo` && r.night.getTime() === night.getTime());
        expect(row?.sha256 ?? null, `${history.host} on ${night.toISOString()}`).toBe(body ? sha256Hex(body) : null);
      }
    }
  });

  it('delivers its alerts to the webhook receiver, which verifies every signature', async () => {
    const delivered = await count("select count(*) as n from alert_deliveries d join alert_channels c on c.id = d.channel_id where c.kind = 'webhook' and d.status = 'delivered'");
    expect(delivered).toBeGreaterThan(20);
    expect(await count("select count(*) as n from alert_deliveries where status <> 'delivered'")).toBe(0);
    expect(run.stdout).toContain(`== webhook: ${delivered} alerts received with a valid signature (Standard Webhooks, HMAC-SHA256), 0 rejected`);
  });

  it('sends a digest of each night with alerts by e-mail to its loopback SMTP server, with a text and an HTML part', async () => {
    const digests = await count("select count(*) as n from alert_deliveries d join alert_channels c on c.id = d.channel_id where c.kind = 'email' and d.status = 'delivered' and d.alert_id is null");
    expect(digests).toBeGreaterThan(5);
    expect(run.stdout).toContain(`== e-mail: ${digests} digests received by the SMTP server (one per night with alerts of at least warning), ${digests} of them with a text and an HTML part`);
    expect(run.stdout).toMatch(/ {3}e\.g\. "\[robots-audit\] run \d+: \d+ critical, \d+ warning, \d+ info on \d+ sites?", Message-ID <robots-audit\.digest-run\d+\.ch2@robots-audit\.demo>/);
  });

  it('tests the shop\'s staging robots.txt before it ships: the tracked URL flips for Googlebot, the check fails', () => {
    const out = section("== before it ships: the shop's staging robots.txt");
    expect(out).toContain('$ robots-audit test-draft shop.demo - < staging-robots.txt');
    expect(out).toMatch(/critical {2}allowed -> disallowed {2}http:\/\/shop\.demo:\d+\/products\/blue-widget {2}Googlebot, Bingbot \(search\)/);
    expect(out).toContain('FAIL: 2 alerts at or above critical (disallow_all_added, search_url_disallowed): exit 1');
    expect(out).toContain('exit code 1: the check fails, the staging file does not ship');
  });

  it('ends with the AI access report, naming the crawlers each site blocks', () => {
    const report = section('(robots-audit report ai-access)');
    expect(rowOf(report, 'courier.demo')).toMatch(/CCBot, ChatGPT-User, Google-Extended, GPTBot/);
    expect(rowOf(report, 'weekly-review.demo')).toMatch(/anthropic-ai, CCBot/);
    expect(rowOf(report, 'weekly-review.demo')).not.toMatch(/GPTBot/); // licensed in December 2023
    expect(rowOf(report, 'www.giga.de.demo')).toMatch(/ClaudeBot, GPTBot, PerplexityBot/);
    expect(rowOf(report, 'recipes.demo')).toMatch(/rules\s+0\/\d+/);
  });

  it('ends with the usage preferences: the synthetic signals.demo refuses AI training since 20 August 2025', () => {
    const report = section('(robots-audit report ai-use)');
    const rows = report.split('\n').filter((line) => line.startsWith('signals.demo '));
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(/^signals\.demo\s+search\s+allowed\s+2025-07-29 22:00\s+3\s+Content-Signal\s+search=yes, ai-input=yes, ai-train=no\s+all 2\s+all 10$/);
    expect(rows[1]).toMatch(/^signals\.demo\s+ai-train\s+refused\s+2025-08-20 22:00\s+3\s+Content-Signal\s+search=yes, ai-input=yes, ai-train=no\s+all 2\s+all 10$/);
    expect(rows[2]).toMatch(/^signals\.demo\s+ai-input\s+allowed\s+2025-07-29 22:00\s+3/);
  });

  it('ends with the flips of the last week, naming the crawlers', () => {
    const report = section('(robots-audit report flips)');
    expect(report).toMatch(/outage\.demo\s+\/\s+disallowed\s+allowed\s+fallback_started\s+Applebot-Extended, Bingbot/);
    expect(report).toMatch(/www\.giga\.de\.demo\s+\/\s+allowed\s+disallowed\s+rules_changed\s+ClaudeBot, GPTBot, PerplexityBot/);
    expect(report).toMatch(/moved\.demo\s+\/account\/orders\s+disallowed\s+allowed\s+outcome_changed/);
  });

  it('ends with the failing sites: outage.demo under its last good copy (D-3), moved.demo past the redirect limit (R-11)', () => {
    const report = section('(robots-audit report failing)');
    expect(rowOf(report, 'outage.demo')).toMatch(/server_error\s+503\s+33\s+2025-07-29 22:00\s+32\s+rules\s+D-3\s+2024-01-01 03:00/);
    expect(rowOf(report, 'moved.demo')).toMatch(/redirect_limit .* allow_all\s+R-11/);
    expect(report.trim().split('\n')).toHaveLength(4); // the heading, the table's header, two sites
  });

  it("imports the 2023 publishers' access log after the range files, and prints the compliance report (issue 29)", async () => {
    const part = section("== do crawlers obey? the 2023 publishers' access log");
    expect(part).toMatch(/\$ robots-audit crawlers ranges import openai-gptbot\.json --source gptbot\nstored: gptbot of 2025-10-30T11:00:00\.000Z, 21 prefixes/);
    expect(part).toMatch(/import #1 \(vhost-combined\): 20 lines read, 18 crawler requests, 18 stored, 0 for hosts no site has, 0 lines could not be read/);
    const { rows } = await db.query<{ host: string; path: string; crawler: string; identity: string; judgement: string }>(
      `select substring(s.origin from '//([^:]+)') as host, r.path, r.crawler, r.identity::text, r.judgement::text
       from crawler_requests r join sites s on s.id = r.site_id order by r.at, r.path`,
    );
    // What demo-log.ts says each request shows.
    const of = (path: string, crawler: string) => rows.filter((r) => r.path === path && r.crawler === crawler).map((r) => `${r.identity} ${r.judgement}`);
    expect(of('/world/2023/06/heatwave-across-europe', 'GPTBot')).toEqual(['verified allowed']);
    expect(of('/world/2023/08/wildfires', 'GPTBot')).toEqual(['verified allowed']);
    expect(of('/world/2023/09/election-night', 'GPTBot')).toEqual(['verified violation']);
    expect(of('/world/2023/08/harvest', 'CCBot')).toEqual(['verified cache_window']);
    expect(of('/world/2023/09/election-night', 'ChatGPT-User')).toEqual(['verified not_bound']);
    expect(of('/account/settings', 'GPTBot')).toEqual(['spoofed violation']);
    expect(rows.some((r) => r.crawler === 'Googlebot' && r.judgement !== 'allowed' && r.judgement !== 'robots_txt')).toBe(false);
    const report = section('(robots-audit report compliance)');
    expect(rowOf(report, 'courier.demo').replace(/\s+/g, ' ')).toMatch(/^courier\.demo GPTBot 7 5 3 0 0 0 2 yes 2023-09-01 18:00/);
    const alerts = await db.query<{ kind: string }>("select kind from alerts where kind like 'crawler_%' order by kind");
    expect(alerts.rows.map((a) => a.kind)).toEqual(['crawler_ignored_robots', 'crawler_ignored_robots', 'crawler_spoofed']);
  });

  it('says which commands show more', () => {
    const more = section('everything is in');
    expect(more).toContain('robots-audit report <status|changes|flips|ai-access|ai-use|failing|lint>');
    for (const command of ['report portability', 'history outage.demo', 'diff www.giga.de.demo', 'explain gazette.demo /subscribers/weekend-edition --ua GPTBot', 'test-draft shop.demo <draft>']) {
      expect(more).toContain(`robots-audit ${command} `);
    }
    expect(more).toContain('docs/sql-reporting.md');
    // The last line: the dashboard on the demo's database.
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe(
      `== see it in a browser: robots-audit serve --database-url '${databaseUrl(name, adminUrl)}'   then open http://127.0.0.1:8080/`,
    );
  });

  it.each<[string, string[], RegExp]>([
    ['history', ['history', 'outage.demo', '--limit', '3'], /2025-08-30 22:00Z .*server_error 503\s+rules \(D-3, copy of 2024-01-01 03:00Z\)/],
    ['diff', ['diff', 'www.giga.de.demo'], /\+User-agent: GPTBot\n\+Disallow: \//],
    ['explain', ['explain', 'gazette.demo', '/subscribers/weekend-edition', '--ua', 'GPTBot'], /weekend-edition for GPTBot: allowed[\s\S]*group: User-agent: GPTBot/],
    // Issue 19: a real history whose AI-crawler block python-urllib does not read (a wildcard).
    ['report portability', ['report', 'portability', '--format', 'csv'], /^http:\/\/www\.grin\.com\.demo:\d+,\d+,Disallow: \/search\?\*,GPTBot,\/search\?x,disallowed,allowed,disallowed,disallowed,/m],
  ])('the %s command it suggests answers on its database', async (_, argv, expected) => {
    const more = await runCli([...argv, '--database-url', databaseUrl(name, adminUrl)]);
    expect(more.code, more.stderr).toBe(0);
    expect(more.stdout).toMatch(expected);
  });

  it('removes its queue keys from Redis', async () => {
    const prefix = /queues under the Redis prefix (robots-audit-demo-[0-9a-f]{8}), removed at the end/.exec(run.stdout)?.[1];
    expect(prefix).toBeDefined();
    expect(await keysUnder(prefix!)).toEqual([]);
  });

  it('stops in one line, before touching the database, when Redis cannot be reached', async () => {
    const other = `${name}_noredis`;
    const bad = await runCli(['demo', '--database-name', other], { env: { DATABASE_URL: adminUrl, REDIS_URL: 'redis://127.0.0.1:1' } });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/^robots-audit: cannot reach Redis at redis:\/\/127\.0\.0\.1:1: .*\n$/);
    expect(await count('select count(*) as n from pg_database where datname = $1', [other])).toBe(0);
  });

  it('refuses a database name that is not a plain identifier', async () => {
    const bad = await runCli(['demo', '--database-name', 'x; drop database test'], { env: { DATABASE_URL: adminUrl, REDIS_URL: redisUrl } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('a plain database name');
  });
});
