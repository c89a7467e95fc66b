/**
 * A log no one here wrote (issue 29, docs/compliance.md): Debian's nginx on 127.0.0.1 serves a
 * site, audited by two real nights (`audit --wait`, the clock's own time) across a change of its
 * robots.txt; the test crawls it with real crawlers' user-agents before the first night, between
 * the nights and after the second; nginx's own access log (its default `combined` format, its own
 * time zone, no host field: `--site`) is imported, and each request is judged by the version in
 * force when nginx logged it: allowed, a violation, within the cache window, between versions,
 * not bound, the robots.txt fetch itself, or unjudged before the first night. Then the strict
 * reading: the same log imported again with no cache window.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { eventually, rows } from '../../helpers/nightly.js';
import { startNginx } from '../../helpers/nginx.js';
import type { Nginx } from '../../helpers/nginx.js';

// v1: every crawler kept out of /admin/; GPTBot (its own group) out of /private/ too.
const V1 = 'User-agent: *\nDisallow: /admin/\n\nUser-agent: GPTBot\nDisallow: /private/\nDisallow: /admin/\n';
// v2: /private/ opened to GPTBot; /shop/ closed to GPTBot and ClaudeBot.
const V2 = 'User-agent: *\nDisallow: /admin/\n\nUser-agent: GPTBot\nUser-agent: ClaudeBot\nDisallow: /shop/\nDisallow: /admin/\n';

const USER_AGENTS = {
  GPTBot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot',
  ClaudeBot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
  Googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  bingbot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
  'Perplexity-User': 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)',
  Firefox: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
} as const;
type Agent = keyof typeof USER_AGENTS;

const PHASES = ['before the first night', 'between the nights', 'after the second night'] as const;
type Phase = (typeof PHASES)[number];

/** A request the test makes, and what the import must judge it (null: a browser's, not kept). */
type Visit = [phase: Phase, agent: Agent, path: string, judgement: string | null, rule: string | null];

const [BEFORE, BETWEEN, AFTER] = PHASES;
const VISITS: readonly Visit[] = [
  // No version known yet.
  [BEFORE, 'Googlebot', '/public/page', 'unjudged', null],
  [BEFORE, 'Firefox', '/', null, null],
  // v1 in force; v2 is next.
  [BETWEEN, 'GPTBot', '/robots.txt', 'robots_txt', null],
  [BETWEEN, 'GPTBot', '/public/page', 'allowed', null],
  // v1 disallows it, v2 (first seen by the next night) allows it: the site may have served v2 already.
  [BETWEEN, 'GPTBot', '/private/report', 'between_versions', '5 Disallow: /private/'],
  [BETWEEN, 'GPTBot', '/admin/panel', 'violation', '6 Disallow: /admin/'],
  [BETWEEN, 'GPTBot', '/shop/item', 'allowed', null],
  [BETWEEN, 'ClaudeBot', '/robots.txt', 'robots_txt', null],
  [BETWEEN, 'ClaudeBot', '/shop/item', 'allowed', null],
  [BETWEEN, 'ClaudeBot', '/admin/panel', 'violation', '2 Disallow: /admin/'],
  [BETWEEN, 'Googlebot', '/public/page', 'allowed', null],
  // A user-triggered fetcher: robots.txt does not bind it.
  [BETWEEN, 'Perplexity-User', '/admin/panel', 'not_bound', '2 Disallow: /admin/'],
  [BETWEEN, 'Firefox', '/private/report', null, null],
  // v2 in force; v1, in force seconds before, is within the 24-hour cache window.
  [AFTER, 'GPTBot', '/robots.txt', 'robots_txt', null],
  [AFTER, 'GPTBot', '/shop/item', 'cache_window', '6 Disallow: /shop/'],
  [AFTER, 'GPTBot', '/private/report', 'allowed', null],
  [AFTER, 'GPTBot', '/admin/panel', 'violation', '7 Disallow: /admin/'],
  [AFTER, 'ClaudeBot', '/shop/item', 'cache_window', '6 Disallow: /shop/'],
  [AFTER, 'ClaudeBot', '/public/page', 'allowed', null],
  [AFTER, 'bingbot', '/robots.txt', 'robots_txt', null],
  [AFTER, 'bingbot', '/admin/panel', 'violation', '2 Disallow: /admin/'],
  [AFTER, 'Googlebot', '/admin/panel', 'violation', '2 Disallow: /admin/'],
  [AFTER, 'Firefox', '/shop/item', null, null],
];
const CRAWLER_VISITS = VISITS.filter((v) => v[3] !== null);

const FILES = {
  '/robots.txt': V1,
  '/index.html': '<!doctype html><title>home</title>\n',
  '/public/page': 'public\n',
  '/private/report': 'private\n',
  '/shop/item': 'shop\n',
  '/admin/panel': 'admin\n',
};

/** The robots-audit fetcher's own requests for robots.txt, in the same log (no crawler's token). */
const AUDITOR_UA = 'robots-audit/';

let p: Pipeline;
let nginx: Nginx;
let origin: string;
/** The version in force in each phase: the run that first saw it (null before the first night). */
const runOfPhase = new Map<Phase, number | null>([[BEFORE, null]]);
const nights: { id: number; runAt: Date }[] = [];
let requestsMade = 0;

async function crawl(phase: Phase): Promise<void> {
  for (const [inPhase, agent, path] of VISITS) {
    if (inPhase !== phase) continue;
    const res = await fetch(`${origin}${path}`, { headers: { 'user-agent': USER_AGENTS[agent] } });
    await res.arrayBuffer();
    expect(res.status, `${agent} ${path}`).toBe(200);
    requestsMade++;
  }
  // nginx writes a line as each request ends, after its response is sent: wait for the last.
  await eventually(async () => (await nginx.logLines()).filter((l) => !l.includes(AUDITOR_UA)).length === requestsMade, `nginx to log ${requestsMade} requests`);
}

/** One real night, now: `audit --wait`, then the run it recorded. */
async function night(): Promise<{ id: number; runAt: Date }> {
  const run = await p.cli(['audit', '--wait']);
  expect(run.code, `${run.stderr}${run.stdout}`).toBe(0);
  const [last] = await rows<{ id: number; run_at: Date; status: string }>(p, 'select id, run_at, status from audit_runs order by id desc limit 1');
  expect(last?.status).toBe('completed');
  const recorded = { id: last!.id, runAt: last!.run_at };
  nights.push(recorded);
  return recorded;
}

/**
 * nginx logs whole seconds (`$time_local`), the night's run clock has milliseconds: a request in
 * the second a night began could be logged before it, and judged by the version before. The next
 * phase starts in the second after the night's clock (and a little into it, for nginx's cached time).
 */
async function intoTheSecondAfter(runAt: Date): Promise<void> {
  const wait = (Math.floor(runAt.getTime() / 1000) + 1) * 1000 + 100 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

beforeAll(async () => {
  // A server's own zone, half an hour off UTC: the log's offset is what places its requests.
  nginx = await startNginx({ files: FILES, timeZone: 'Asia/Kolkata' });
  origin = nginx.origin;
  p = await startPipeline();
  const added = await p.cli(['sites', 'add', origin, '--allow-ip']);
  expect(added.code, added.stderr).toBe(0);

  await crawl(BEFORE);
  const first = await night();
  runOfPhase.set(BETWEEN, first.id);
  await intoTheSecondAfter(first.runAt);
  await crawl(BETWEEN);

  await nginx.serve('/robots.txt', V2);
  const second = await night();
  runOfPhase.set(AFTER, second.id);
  await intoTheSecondAfter(second.runAt);
  await crawl(AFTER);
}, 120_000);

afterAll(async () => {
  await p?.close();
  await nginx?.stop();
});

interface StoredRequest extends Record<string, unknown> {
  run_id: number | null;
  allowed_by_run_id: number | null;
  crawler: string;
  path: string;
  judgement: string;
  identity: string;
  rule_line: number | null;
  rule: string | null;
}

const stored = () =>
  rows<StoredRequest>(p, 'select run_id, allowed_by_run_id, crawler, path, judgement::text, identity::text, rule_line, rule from crawler_requests order by at, crawler, path');

/** The stored request of a visit: its phase is the version it was judged by. */
async function storedVisit(phase: Phase, agent: Agent, path: string): Promise<StoredRequest[]> {
  return (await stored()).filter((r) => r.run_id === runOfPhase.get(phase) && r.crawler === agent && r.path === path);
}

const ruleOf = (r: StoredRequest) => (r.rule === null ? null : `${r.rule_line} ${r.rule}`);

const logImport = async (...extra: string[]) => {
  const run = await p.cli(['logs', 'import', nginx.accessLog, '--site', origin, '--no-dns', '--json', ...extra]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
};

describe('two real nights across a robots.txt change', () => {
  it('the second night recorded the new version', async () => {
    expect(nights).toHaveLength(2);
    const changes = await rows<{ run_id: number; kinds: string[] }>(p, 'select run_id, kinds from snapshot_changes order by run_id');
    expect(changes.map((c) => [c.run_id, c.kinds.includes('first_seen'), c.kinds.includes('rules')])).toEqual([
      [nights[0]!.id, true, false],
      [nights[1]!.id, false, true],
    ]);
    const versions = await rows<{ run_id: number; sha256: string }>(
      p,
      'select n.run_id, encode(b.sha256, \'hex\') as sha256 from site_rule_nights n join bodies b on b.id = n.rules_body_id order by n.run_id',
    );
    expect(versions).toEqual([
      { run_id: nights[0]!.id, sha256: sha256(V1) },
      { run_id: nights[1]!.id, sha256: sha256(V2) },
    ]);
  });
});

describe("nginx's own access log, imported: each request judged by the version in force when nginx logged it", () => {
  let summary: Record<string, unknown>;
  let lines: string[];

  beforeAll(async () => {
    lines = await nginx.logLines();
    summary = await logImport();
  });

  it("is nginx's default combined format, in the server's zone: every line read, the crawlers' kept", () => {
    expect(lines[0]).toMatch(/^127\.0\.0\.1 - - \[\d{2}\/\w{3}\/\d{4}:\d{2}:\d{2}:\d{2} \+0530\] "GET \/public\/page HTTP\/1\.1" 200 \d+ "-" "Mozilla\/5\.0 \(compatible; Googlebot\/2\.1;/);
    const auditorFetches = lines.filter((l) => l.includes(AUDITOR_UA)).length;
    // Each night fetched robots.txt at least once (a change is fetched again to confirm it).
    expect(auditorFetches).toBeGreaterThanOrEqual(2);
    expect(lines.length).toBe(requestsMade + auditorFetches);
    expect(summary).toMatchObject({
      format: 'combined',
      lines: lines.length,
      crawlerRequests: CRAWLER_VISITS.length,
      stored: CRAWLER_VISITS.length,
      alreadyStored: 0,
      unmatched: 0,
      unreadable: 0,
      alerts: 0,
    });
  });

  it('keeps no browser request', async () => {
    const [browsers] = await rows<{ n: string }>(p, "select count(*) as n from crawler_requests r join request_user_agents a on a.id = r.user_agent_id where a.text like '%Firefox%'");
    expect(Number(browsers!.n)).toBe(0);
    expect(await stored()).toHaveLength(CRAWLER_VISITS.length);
  });

  it.each(CRAWLER_VISITS)('%s: %s %s -> %s (%s)', async (phase, agent, path, judgement, rule) => {
    const found = await storedVisit(phase, agent, path);
    expect(found).toHaveLength(1);
    expect({ judgement: found[0]!.judgement, rule: ruleOf(found[0]!) }).toEqual({ judgement, rule });
    // The version that excused it: v1 (still cacheable) for the cache window, v2 (maybe live) between versions.
    expect(found[0]!.allowed_by_run_id).toBe(judgement === 'cache_window' ? nights[0]!.id : judgement === 'between_versions' ? nights[1]!.id : null);
    // No range file imported and no DNS: no crawler's claim could be checked.
    expect(found[0]!.identity).toBe('unverifiable');
  });

  it('report compliance: the counts per crawler, and who read robots.txt first', async () => {
    const run = await p.cli(['report', 'compliance', '--format', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Record<string, unknown>[];
    const counts = Object.fromEntries(
      report.map((r) => [
        r['crawler'],
        [r['requests'], r['disallowed'], r['violationsVerified'], r['violationsUnverified'], r['withinCacheWindow'], r['betweenVersions'], r['notBound'], r['spoofed'], r['readRobotsTxtFirst']],
      ]),
    );
    expect(counts).toEqual({
      // [requests, disallowed, verified violations, unverified, cache window, between versions, not bound, spoofed, read robots.txt first]
      GPTBot: [7, 4, 0, 2, 1, 1, 0, 0, true],
      ClaudeBot: [4, 2, 0, 1, 1, 0, 0, 0, true],
      Googlebot: [3, 1, 0, 1, 0, 0, 0, 0, false],
      bingbot: [1, 1, 0, 1, 0, 0, 0, 0, true],
      'Perplexity-User': [1, 1, 0, 0, 0, 0, 1, 0, false],
    });
    expect(report.every((r) => r['origin'] === origin)).toBe(true);
  });

  it('report violations: the URL, the deciding line and the version it was decided by', async () => {
    const run = await p.cli(['report', 'violations', '--format', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const list = JSON.parse(run.stdout) as Record<string, unknown>[];
    const versionOf = (phase: Phase) => (phase === BETWEEN ? { versionSince: nights[0]!.runAt.toISOString(), version: sha256(V1).slice(0, 12) } : { versionSince: nights[1]!.runAt.toISOString(), version: sha256(V2).slice(0, 12) });
    const expected = CRAWLER_VISITS.filter((v) => v[3] === 'violation').map(([phase, agent, path, , rule]) => ({
      crawler: agent,
      identity: 'unverifiable',
      url: `${origin}${path}`,
      line: Number(rule!.split(' ')[0]),
      rule: rule!.slice(rule!.indexOf(' ') + 1),
      ...versionOf(phase),
    }));
    const byKey = (v: Record<string, unknown>) => `${String(v['versionSince'])} ${String(v['crawler'])} ${String(v['url'])}`;
    const got = list.map(({ crawler, identity, url, line, rule, versionSince, version }) => ({ crawler, identity, url, line, rule, versionSince, version }));
    expect(got.sort((a, b) => byKey(a).localeCompare(byKey(b)))).toEqual(expected.sort((a, b) => byKey(a).localeCompare(byKey(b))));
  });
});

describe('the strict reading: no cache window', () => {
  it('the same log with another window is the same import (its first bytes, format and --site): nothing is judged again', async () => {
    const again = await logImport('--cache-hours', '0');
    expect(again).toMatchObject({ lines: 0, stored: 0 });
    expect((await stored()).filter((r) => r.judgement === 'cache_window')).toHaveLength(2);
  });

  it('imported afresh with --cache-hours 0: what the cache window excused is a violation; the rest is judged the same', async () => {
    await p.db.pool.query('delete from crawler_requests; delete from log_imports;');
    const strict = await logImport('--cache-hours', '0');
    expect(strict).toMatchObject({ crawlerRequests: CRAWLER_VISITS.length, stored: CRAWLER_VISITS.length });
    for (const [phase, agent, path, judgement, rule] of CRAWLER_VISITS) {
      const [found] = await storedVisit(phase, agent, path);
      expect({ visit: `${phase}: ${agent} ${path}`, judgement: found?.judgement, rule: found && ruleOf(found) }).toEqual({
        visit: `${phase}: ${agent} ${path}`,
        judgement: judgement === 'cache_window' ? 'violation' : judgement,
        rule,
      });
    }
    const report = JSON.parse((await p.cli(['report', 'compliance', '--format', 'json'])).stdout) as Record<string, unknown>[];
    expect(report.find((r) => r['crawler'] === 'GPTBot')).toMatchObject({ violationsUnverified: 3, withinCacheWindow: 0, betweenVersions: 1 });
    expect(report.find((r) => r['crawler'] === 'ClaudeBot')).toMatchObject({ violationsUnverified: 2, withinCacheWindow: 0 });
  });
});

describe('--site names an origin, not only its host', () => {
  it('another site on the same host (https, the default port: the one a host-named log files under) takes none of its requests', async () => {
    const decoy = await p.cli(['sites', 'add', 'https://127.0.0.1', '--allow-ip']);
    expect(decoy.code, decoy.stderr).toBe(0);
    await p.db.pool.query('delete from crawler_requests; delete from log_imports;');
    const again = await logImport();
    expect(again).toMatchObject({ stored: CRAWLER_VISITS.length });
    const filed = await rows<{ origin: string; n: string }>(p, 'select s.origin, count(*) as n from crawler_requests r join sites s on s.id = r.site_id group by s.origin');
    expect(filed.map((f) => [f.origin, Number(f.n)])).toEqual([[origin, CRAWLER_VISITS.length]]);
  });
});

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
