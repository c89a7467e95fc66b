/**
 * `robots-audit logs import` end to end (issue 29, docs/compliance.md): a site audited night by
 * night through a change of its robots.txt and a 5xx night, the operators' real range files
 * imported, a real DNS server (Debian's dnsmasq) for the crawlers checked by reverse DNS, then a
 * log of crawler and browser requests imported: each crawler request judged by the version in
 * force when it was made, its identity checked, the findings alerted, the report and the views
 * agreeing; importing again adds nothing, an interrupted import resumes, prune clears addresses.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, nightAt, replayNight, rows } from '../../helpers/nightly.js';
import { startDnsmasq, startSilentDnsServer } from '../../helpers/dnsmasq.js';
import type { Dnsmasq } from '../../helpers/dnsmasq.js';
import { importLog } from '../../../src/services/logs/log-import.service.js';
import { SiteJudges } from '../../../src/services/logs/site-judges.js';
import { createReverseDnsChecker } from '../../../src/http/reverse-dns.js';

const NIGHT_0 = '2026-03-01T02:00:00.000Z';
const V1 = 'User-agent: *\nAllow: /\n';
// Seen first on night 5: /private/ closed to every crawler (bingbot's own group too).
const V2 = 'User-agent: *\nDisallow: /private/\n\nUser-agent: bingbot\nDisallow: /private/\nDisallow: /search\n';
const DOWN = { status: 503, body: 'down\n' };

const GPTBOT_UA = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot';
const BINGBOT_UA = 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)';
const CLAUDEBOT_UA = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';
const PPLX_USER_UA = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)';
const CHROME_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
// Inside OpenAI's published gptbot.json (test/fixtures/crawler-ranges/openai-gptbot.json).
const GPTBOT_IP = '132.196.86.5';
const SPOOFER_IP = '203.0.113.9';
// bingbot is checked by reverse DNS (Bing publishes search.msn.com names): dnsmasq answers these.
const BINGBOT_IP = '157.55.39.1';
const FAKE_BINGBOT_IP = '198.51.100.7';

/** A vhost-combined line (nginx `$host $remote_addr - - [$time_local] "$request" $status $bytes "$referer" "$ua"`). */
function line(host: string, ip: string, at: string, target: string, ua: string, status = 200): string {
  const d = new Date(at);
  const month = d.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' });
  const pad = (n: number) => String(n).padStart(2, '0');
  const time = `${pad(d.getUTCDate())}/${month}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
  return `${host} ${ip} - - [${time}] "GET ${target} HTTP/1.1" ${status} 512 "-" "${ua}"`;
}

const at = (day: number, time: string) => `${nightAt(NIGHT_0, day).slice(0, 10)}T${time}Z`;

let p: Pipeline;
let dnsmasq: Dnsmasq;
let shop: string;
let log: string;

beforeAll(async () => {
  dnsmasq = await startDnsmasq({
    localZones: ['in-addr.arpa', 'ip6.arpa', 'com'],
    hosts: [{ name: 'msnbot-157-55-39-1.search.msn.com', addresses: [BINGBOT_IP] }],
  });
  p = await startPipeline({ env: { ROBOTS_AUDIT_VERIFY_DNS_SERVERS: dnsmasq.server, ROBOTS_AUDIT_VERIFY_DNS_TIMEOUT_MS: '500' } });
  await addSites(p, ['shop']);
  shop = new URL(p.origin('shop')).hostname;
  for (let day = 0; day <= 10; day++) await replayNight(p, nightAt(NIGHT_0, day), { shop: day < 5 ? V1 : day === 8 ? DOWN : V2 });
  for (const file of ['openai-gptbot.json', 'google-common-crawlers.json']) {
    const source = file === 'openai-gptbot.json' ? 'gptbot' : 'googlebot';
    const imported = await p.cli(['crawlers', 'ranges', 'import', `test/fixtures/crawler-ranges/${file}`, '--source', source]);
    expect(imported.code, imported.stderr).toBe(0);
  }
  log = [
    line(shop, GPTBOT_IP, at(3, '11:59:00'), '/robots.txt', GPTBOT_UA),
    line(shop, GPTBOT_IP, at(3, '12:00:00'), '/private/a', GPTBOT_UA),
    line(shop, GPTBOT_IP, at(3, '12:00:05'), '/search?q=private+words', GPTBOT_UA),
    line(shop, '192.0.2.50', at(3, '12:01:00'), '/private/a', CHROME_UA),
    line(shop, GPTBOT_IP, at(5, '03:00:00'), '/private/a', GPTBOT_UA),
    line(shop, GPTBOT_IP, at(6, '12:00:00'), '/private/b', GPTBOT_UA),
    // The same request twice in the same second: two requests.
    line(shop, GPTBOT_IP, at(6, '12:00:01'), '/private/c', GPTBOT_UA),
    line(shop, GPTBOT_IP, at(6, '12:00:01'), '/private/c', GPTBOT_UA),
    line(shop, SPOOFER_IP, at(6, '13:00:00'), '/private/d', GPTBOT_UA),
    line(shop, BINGBOT_IP, at(6, '14:00:00'), '/search?q=x', BINGBOT_UA),
    line(shop, FAKE_BINGBOT_IP, at(6, '14:30:00'), '/', BINGBOT_UA),
    line(shop, '192.0.2.60', at(6, '15:00:00'), '/private/e', CLAUDEBOT_UA),
    line(shop, '192.0.2.61', at(6, '15:30:00'), '/private/f', PPLX_USER_UA),
    line(shop, '192.0.2.60', at(8, '12:00:00'), '/public', CLAUDEBOT_UA),
    line('elsewhere.example', GPTBOT_IP, at(6, '12:00:00'), '/', GPTBOT_UA),
    // Not a log line: a control sequence a terminal would obey.
    'garbage \u001b[31mred\u001b[0m line',
    '',
  ].join('\n');
}, 120_000);

afterAll(async () => {
  await p?.close();
  await dnsmasq?.stop();
});

interface Stored extends Record<string, unknown> {
  path: string;
  crawler: string;
  identity: string;
  identity_method: string;
  judgement: string;
  client_ip: string | null;
  rule: string | null;
}

const stored = () =>
  rows<Stored>(p, 'select path, crawler, identity::text, identity_method::text, judgement::text, host(client_ip) as client_ip, rule from crawler_requests order by at, path');

describe('logs import: each crawler request judged by the robots.txt in force then, its identity checked', () => {
  let first: { stdout: string; stderr: string; code: number };

  it('imports the log: a summary, the unreadable line shown escaped', async () => {
    first = await p.cli(['logs', 'import', '-'], log);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^import #\d+ \(vhost-combined\): 16 lines read, 14 crawler requests, 13 stored, 1 for hosts no site has, 1 lines could not be read\n/);
    expect(first.stdout).toContain('hosts without a site: elsewhere.example (1)');
    expect(first.stdout).toContain('line 16: client is not an IP address');
    expect(first.stdout).toContain('garbage <U+001B>[31mred<U+001B>[0m line');
    expect(first.stdout).not.toContain('\u001b');
  });

  it.each([
    // [path as stored, crawler, identity, method, judgement, address kept, deciding line]
    ['/robots.txt', 'GPTBot', 'verified', 'ip_ranges', 'robots_txt', null, null],
    ['/private/a', 'GPTBot', 'verified', 'ip_ranges', 'allowed', null, null],
    // The query is not what the rules read: dropped, a bare ? says so.
    ['/search?', 'GPTBot', 'verified', 'ip_ranges', 'allowed', null, null],
    ['/private/a', 'GPTBot', 'verified', 'ip_ranges', 'cache_window', null, 'Disallow: /private/'],
    ['/private/b', 'GPTBot', 'verified', 'ip_ranges', 'violation', GPTBOT_IP, 'Disallow: /private/'],
    ['/private/c', 'GPTBot', 'verified', 'ip_ranges', 'violation', GPTBOT_IP, 'Disallow: /private/'],
    ['/private/c', 'GPTBot', 'verified', 'ip_ranges', 'violation', GPTBOT_IP, 'Disallow: /private/'],
    ['/private/d', 'GPTBot', 'spoofed', 'ip_ranges', 'violation', SPOOFER_IP, 'Disallow: /private/'],
    ['/search?', 'bingbot', 'verified', 'reverse_dns', 'violation', BINGBOT_IP, 'Disallow: /search'],
    ['/', 'bingbot', 'spoofed', 'reverse_dns', 'allowed', FAKE_BINGBOT_IP, null],
    ['/private/e', 'ClaudeBot', 'unverifiable', 'none', 'violation', '192.0.2.60', 'Disallow: /private/'],
    ['/private/f', 'Perplexity-User', 'unverifiable', 'ip_ranges', 'not_bound', null, 'Disallow: /private/'],
    // A 5xx night: full disallow, but the version of the night before allowed /public.
    ['/public', 'ClaudeBot', 'unverifiable', 'none', 'cache_window', null, null],
  ])('%s by %s: %s (%s), %s', async (path, crawler, identity, method, judgement, ip, rule) => {
    const all = await stored();
    expect(all.length).toBe(13);
    expect(all).toContainEqual({ path, crawler, identity, identity_method: method, judgement, client_ip: ip, rule });
  });

  it('keeps no browser request and no query the rules do not read', async () => {
    const { n } = (await rows<{ n: string }>(p, "select count(*) as n from crawler_requests r join request_user_agents a on a.id = r.user_agent_id where a.text like '%Chrome%'"))[0]!;
    expect(Number(n)).toBe(0);
    expect((await stored()).some((r) => r.path.includes('private+words'))).toBe(false);
  });

  it('raises one crawler_ignored_robots alert a site, crawler and night for verified violations, and crawler_spoofed apart', async () => {
    const alerts = await rows<{ kind: string; severity: string; title: string; crawler: string; requests: number }>(
      p,
      "select kind, severity::text, title, details->'compliance'->>'crawler' as crawler, (details->'compliance'->>'requests')::int as requests from alerts where kind like 'crawler_%' order by kind, crawler",
    );
    expect(alerts.map((a) => [a.kind, a.severity, a.crawler, a.requests])).toEqual([
      ['crawler_ignored_robots', 'warning', 'GPTBot', 3],
      ['crawler_ignored_robots', 'warning', 'bingbot', 1],
      ['crawler_spoofed', 'info', 'GPTBot', 1],
      ['crawler_spoofed', 'info', 'bingbot', 1],
    ]);
    expect(alerts[0]!.title).toContain('GPTBot fetched 3 URLs');
  });

  it('report compliance: per site x crawler, spoofed apart, whether robots.txt was read first', async () => {
    const run = await p.cli(['report', 'compliance', '--format', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Record<string, unknown>[];
    const gptbot = report.find((r) => r['crawler'] === 'GPTBot')!;
    expect(gptbot).toMatchObject({ requests: 7, disallowed: 5, violationsVerified: 3, violationsUnverified: 0, withinCacheWindow: 1, spoofed: 1, readRobotsTxtFirst: true });
    expect(report.find((r) => r['crawler'] === 'ClaudeBot')).toMatchObject({ requests: 2, violationsUnverified: 1, withinCacheWindow: 1, readRobotsTxtFirst: false });
    expect(report.find((r) => r['crawler'] === 'Perplexity-User')).toMatchObject({ notBound: 1, violationsVerified: 0 });
    // Verified violations first.
    expect(report[0]!['crawler']).toBe('GPTBot');
    const only = JSON.parse((await p.cli(['report', 'compliance', '--format', 'json', '--crawler', 'bingbot'])).stdout) as Record<string, unknown>[];
    expect(only.map((r) => r['crawler'])).toEqual(['bingbot']);
  });

  it('report violations: the URL, the time, the deciding line and the version in force', async () => {
    const run = await p.cli(['report', 'violations', '--format', 'json', '--crawler', 'GPTBot']);
    const list = JSON.parse(run.stdout) as Record<string, unknown>[];
    expect(list).toHaveLength(4);
    expect(list.find((v) => String(v['url']).endsWith('/private/b'))).toMatchObject({
      identity: 'verified',
      line: 2,
      rule: 'Disallow: /private/',
      versionSince: new Date(nightAt(NIGHT_0, 5)).toISOString(),
    });
    expect(String(list[0]!['version'])).toMatch(/^[0-9a-f]{12}$/);
  });

  it('the same log again adds nothing: its lines were done', async () => {
    const again = await p.cli(['logs', 'import', '-', '--json'], log);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ resumedAfter: 16, lines: 0, stored: 0 });
    expect((await stored()).length).toBe(13);
  });

  it('the same requests in another file (another start, so another import) add nothing either', async () => {
    const again = await p.cli(['logs', 'import', '-', '--json'], `${line(shop, '192.0.2.1', at(2, '00:00:00'), '/', CHROME_UA)}\n${log}`);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ resumedAfter: 0, lines: 17, stored: 0, alreadyStored: 13, crawlerRequests: 14 });
    expect((await stored()).length).toBe(13);
    const { n } = (await rows<{ n: string }>(p, "select count(*) as n from alerts where kind like 'crawler_%'"))[0]!;
    expect(Number(n)).toBe(4);
  });

  it('prune clears the addresses of findings older than the retention, keeps the findings', async () => {
    const run = await p.cli(['prune', '--before', '2026-01-01T00:00:00Z']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/cleared 7 client addresses/);
    expect((await stored()).filter((r) => r.client_ip !== null)).toEqual([]);
    expect((await stored()).filter((r) => r.judgement === 'violation')).toHaveLength(6);
  });
});

describe('an interrupted import resumes after its last committed line', () => {
  it('a stream that fails midway, then the whole log: every request once', async () => {
    // More than the 64 KiB the import's key hashes, so that batches commit before the failure.
    const lines = Array.from({ length: 1_000 }, (_, i) => line(shop, GPTBOT_IP, new Date(Date.parse(at(7, '10:00:00')) + i * 1000).toISOString(), `/resume/${i}`, GPTBOT_UA));
    const text = `${lines.join('\n')}\n`;
    const dns = createReverseDnsChecker({ servers: [dnsmasq.server], timeoutMs: 500, tries: 1 });
    const cut = text.slice(0, text.indexOf('/resume/650 '));
    const failing = Readable.from(
      (async function* () {
        yield Buffer.from(cut);
        throw new Error('connection reset');
      })(),
    );
    await expect(importLog(p.db.pool, { input: { stream: failing, name: '-' }, format: 'vhost-combined', reverseDns: dns, batchRequests: 100 })).rejects.toThrow('connection reset');
    const before = await rows<{ n: string }>(p, "select count(*) as n from crawler_requests where path like '/resume/%'");
    expect(Number(before[0]!.n)).toBe(600);
    const resumed = await importLog(p.db.pool, { input: { stream: Readable.from([Buffer.from(text)]), name: '-' }, format: 'vhost-combined', reverseDns: dns, batchRequests: 100 });
    expect(resumed).toMatchObject({ resumedAfter: 600, lines: 400, stored: 400, alreadyStored: 0 });
    const after = await rows<{ n: string }>(p, "select count(*) as n from crawler_requests where path like '/resume/%'");
    expect(Number(after[0]!.n)).toBe(1_000);
    dns.close();
  });
});

describe('logs import: Cloudflare Logpush JSON Lines, gzip-compressed, read as such', () => {
  it('detects the format from its fields and judges its requests like any log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logpush-'));
    try {
      const record = (at: string, path: string, ua: string, ip: string) =>
        JSON.stringify({ ClientIP: ip, ClientRequestHost: shop, ClientRequestMethod: 'GET', ClientRequestURI: path, ClientRequestUserAgent: ua, EdgeResponseStatus: 200, EdgeStartTimestamp: at });
      const file = join(dir, 'http_requests.log.gz');
      writeFileSync(
        file,
        gzipSync(
          [
            record(at(9, '08:00:00'), '/private/logpush', GPTBOT_UA, GPTBOT_IP),
            record(at(9, '08:00:01'), '/private/logpush', CHROME_UA, '192.0.2.9'),
            // Nanoseconds since the epoch: Logpush's `unixnano` timestamps.
            `${JSON.stringify({ ClientIP: GPTBOT_IP, ClientRequestHost: shop, ClientRequestMethod: 'GET', ClientRequestURI: '/logpush-nano', ClientRequestUserAgent: GPTBOT_UA, EdgeResponseStatus: 200, EdgeStartTimestamp: Date.parse(at(9, '09:00:00')) * 1_000_000 })}`,
          ].join('\n'),
        ),
      );
      const run = await p.cli(['logs', 'import', file, '--no-dns', '--json']);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ format: 'cloudflare', lines: 3, crawlerRequests: 2, stored: 2, unreadable: 0 });
      const found = await rows<{ path: string; judgement: string; at: Date }>(p, "select path, judgement::text, at from crawler_requests where path like '%logpush%' order by at");
      expect(found.map((r) => [r.path, r.judgement, r.at.toISOString()])).toEqual([
        ['/private/logpush', 'violation', new Date(at(9, '08:00:00')).toISOString()],
        ['/logpush-nano', 'allowed', new Date(at(9, '09:00:00')).toISOString()],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('logs import: DNS costs are bounded', () => {
  const bingbotLog = (n: number, minute: string) =>
    `${Array.from({ length: n }, (_, i) => line(shop, `198.18.${Math.floor(i / 250)}.${(i % 250) + 1}`, at(9, `${minute}:${String(i % 60).padStart(2, '0')}`), `/dns/${minute}/${i}`, BINGBOT_UA)).join('\n')}\n`;

  it('a resolver that does not answer: asked no more after 32 failures in a row, the rest unverifiable', async () => {
    const silent = await startSilentDnsServer();
    try {
      const dns = createReverseDnsChecker({ servers: [silent.server], timeoutMs: 100, tries: 1 });
      const started = Date.now();
      const summary = await importLog(p.db.pool, { input: { stream: Readable.from([Buffer.from(bingbotLog(200, '20'))]), name: '-' }, format: 'vhost-combined', reverseDns: dns });
      dns.close();
      expect(summary.stored).toBe(200);
      expect(summary.dnsStopped).toMatch(/^\d+ lookups in a row failed/);
      // 200 lookups of 100 ms, 16 at a time, would take 1.3 s at least; stopped after about 32.
      expect(Date.now() - started).toBeLessThan(5_000);
      const identities = await rows<{ identity: string; n: string }>(p, "select identity::text, count(*) as n from crawler_requests where path like '/dns/20/%' group by 1");
      expect(identities).toEqual([{ identity: 'unverifiable', n: '200' }]);
    } finally {
      await silent.stop();
    }
  });

  it('a log whose every line is another address: at most maxDnsAddresses looked up', async () => {
    const dns = createReverseDnsChecker({ servers: [dnsmasq.server], timeoutMs: 500, tries: 1 });
    const summary = await importLog(p.db.pool, {
      input: { stream: Readable.from([Buffer.from(bingbotLog(60, '21'))]), name: '-' },
      format: 'vhost-combined',
      reverseDns: dns,
      maxDnsAddresses: 10,
    });
    dns.close();
    expect(summary.stored).toBe(60);
    expect(summary.dnsStopped).toBe('10 addresses looked up, the most an import asks (maxDnsAddresses)');
    // The ten looked up have no PTR (spoofed); the rest could not be checked.
    const identities = await rows<{ identity: string; n: string }>(p, "select identity::text, count(*) as n from crawler_requests where path like '/dns/21/%' group by 1 order by 1");
    expect(identities).toEqual([
      { identity: 'spoofed', n: '10' },
      { identity: 'unverifiable', n: '50' },
    ]);
  });
});

describe('SiteJudges: the sites held are bounded, the least recently used let go', () => {
  it('holds at most maxSites; a site asked for again is loaded again', async () => {
    await addSites(p, ['other', 'third']);
    const ids = await rows<{ id: number; origin: string }>(p, 'select id, origin from sites order by id');
    const [a, b, c] = ids as [{ id: number; origin: string }, { id: number; origin: string }, { id: number; origin: string }];
    const judges = new SiteJudges(p.db.pool, 2);
    const ask = (site: { id: number }) =>
      judges.judge(site.id, { at: new Date(at(6, '12:00:00')), target: '/private/x', crawler: { token: 'GPTBot', boundByRobotsTxt: true }, cacheHours: 24 }).judgement.judgement;
    await judges.load(new Map([[a.id, a.origin], [b.id, b.origin]]));
    expect(ask(a)).toBe('violation');
    // a used again in this batch: b is the one let go for c.
    await judges.load(new Map([[a.id, a.origin]]));
    await judges.load(new Map([[c.id, c.origin]]));
    expect(ask(a)).toBe('violation');
    expect(ask(c)).toBe('unjudged');
    expect(() => ask(b)).toThrow(/not loaded/);
  });
});

describe('logs import: a hostile line', () => {
  it('a 60 KiB path in 25 violations: the alert lists 20, every string cut, its details within 64 KiB', async () => {
    const long = `/private/${'x'.repeat(60_000)}`;
    // Googlebot, from Google's published ranges: no alert of it yet.
    const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
    const text = `${Array.from({ length: 25 }, (_, i) => line(shop, '192.178.4.5', at(10, `12:00:${String(i).padStart(2, '0')}`), `${long}${i}`, googlebot)).join('\n')}\n`;
    const summary = await importLog(p.db.pool, { input: { stream: Readable.from([Buffer.from(text)]), name: '-' }, format: 'vhost-combined', reverseDns: null });
    expect(summary).toMatchObject({ stored: 25, unreadable: 0, alerts: 1 });
    const [alert] = await rows<{ bytes: number; examples: number; requests: number; url: string }>(
      p,
      `select octet_length(details::text) as bytes, jsonb_array_length(details->'compliance'->'examples') as examples,
              (details->'compliance'->>'requests')::int as requests, details->'compliance'->'examples'->0->>'url' as url
       from alerts a join audit_runs r on r.id = a.run_id
       where a.kind = 'crawler_ignored_robots' and a.details->'compliance'->>'crawler' = 'Googlebot' and r.run_at = $1`,
      // The night whose version was in force: night 9 saw V2 again after the 5xx night.
      [nightAt(NIGHT_0, 9)],
    );
    expect(alert!.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(alert!.requests).toBe(25);
    expect(alert!.examples).toBeLessThanOrEqual(20);
    expect(alert!.url).toMatch(/… \(\d+ more characters\)$/);
  });
});

describe('logs import: mistakes are one clear line', () => {
  it.each([
    [['logs', 'import', '/nonexistent/access.log'], 1, /logs import: .*ENOENT|no such file/i],
    [['logs', 'import', '-', '--format', 'combined'], 1, /names no host; give --site/],
    [['logs', 'import', '-', '--site', 'https://not-monitored.example'], 1, /not a monitored site/],
    [['logs', 'import', '-', '--format', 'jsonl'], 2, /needs --fields/],
    [['logs', 'import', '-', '--format', 'jsonl', '--fields', 'at=ts,bogus=x'], 2, /--fields: /],
  ])('%j -> exit %d', async (argv, code, message) => {
    const run = await p.cli(argv as string[], line(shop, GPTBOT_IP, at(3, '10:00:00'), '/', GPTBOT_UA));
    expect(run.code).toBe(code);
    expect(run.stderr).toMatch(message);
  });

  it('a configured agent that is no product token claims nothing, and breaks nothing', async () => {
    const added = await p.cli(['agents', 'add', 'Odd Bot/2.0']);
    expect(added.code, added.stderr).toBe(0);
    const run = await p.cli(['logs', 'import', '-', '--json', '--no-dns'], `${line(shop, '192.0.2.99', at(10, '18:00:00'), '/odd', 'Odd Bot/2.0')}\n`);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ lines: 1, crawlerRequests: 0 });
  });

  it('a range file that is not one', async () => {
    const run = await p.cli(['crawlers', 'ranges', 'import', '-', '--source', 'gptbot'], '{"prefixes": [{"ipv4Prefix": "300.1.1.0/24"}]}');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/ipv4Prefix/);
    const unknown = await p.cli(['crawlers', 'ranges', 'import', '-', '--source', 'nosuch'], readFileSync('test/fixtures/crawler-ranges/openai-gptbot.json', 'utf8'));
    expect(unknown.code).toBe(2);
  });
});
