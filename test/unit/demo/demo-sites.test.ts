/**
 * The demo's scripted timelines say what the README and the demo's own lines claim: who blocks
 * which AI crawler on which night, the redirect chain's hops, the 404, the HTML page, and a 503
 * streak that crosses the 30 days of D-3 within the demo's nights.
 */
import { describe, expect, it } from 'vitest';
import type { DemoHost, DemoReply } from '../../../src/demo/demo-sites.js';
import { EDGE_CASES_2025, PUBLISHERS_2023, recordedHostName, recordedSite } from '../../../src/demo/demo-sites.js';
import { NIGHTS_2023, NIGHTS_2025, demoPlan } from '../../../src/demo/demo-plan.js';
import { loadDemoHistories, sha256Hex } from '../../../src/demo/histories.js';
import { effectivePolicy, UNREACHABLE_FALLBACK_DAYS } from '../../../src/policy/effective-policy.js';
import type { EffectivePolicy, LastReachable } from '../../../src/policy/effective-policy.js';
import type { FetchOutcome } from '../../../src/policy/fetch-outcome.js';
import { lintRobotsTxt } from '../../../src/robots/lint.js';
import { parseRobotsTxt } from '../../../src/robots/parse.js';
import { starRuleGaps } from '../../../src/robots/star-rule-gaps.js';

const plan = demoPlan(loadDemoHistories());
const HOSTS = new Map(plan.hosts.map((h) => [h.host, h]));
const url = (host: string, path: string) => `http://${host}${path}`;

/** What a crawler gets for /robots.txt of `host` on `night`, following redirects as the fetcher would. */
function fetchOn(host: string, night: string, maxHops = 5): { reply: DemoReply; hops: string[] } {
  const hops: string[] = [];
  let target = new URL(url(host, '/robots.txt'));
  for (;;) {
    const served: DemoHost | undefined = HOSTS.get(target.hostname);
    const reply = served?.serve(new Date(night), `${target.pathname}${target.search}`, url) ?? { status: 404 };
    const location = reply.headers?.location;
    if (reply.status < 300 || reply.status > 399 || !location) return { reply, hops };
    hops.push(location);
    if (hops.length > maxHops) return { reply: { status: 0 }, hops };
    target = new URL(location, target);
  }
}

function robotsOn(host: string, night: string) {
  const { reply } = fetchOn(host, night);
  expect(reply.status, `${host} on ${night}`).toBe(200);
  return parseRobotsTxt(reply.body ?? '');
}

const allowed = (host: string, night: string, path: string, agent: string) => robotsOn(host, night).isAllowed(url(host, path), agent);

describe('2023, month by month: the publishers and AI crawlers', () => {
  it.each<[string, string, string, string, boolean]>([
    // courier.demo: GPTBot in August, CCBot and ChatGPT-User later in August, Google-Extended after 28 September.
    ['courier.demo', '2023-08-01', '/', 'GPTBot', true],
    ['courier.demo', '2023-09-01', '/', 'GPTBot', false],
    ['courier.demo', '2023-09-01', '/', 'CCBot', false],
    ['courier.demo', '2023-09-01', '/', 'ChatGPT-User', false],
    ['courier.demo', '2023-09-01', '/', 'Google-Extended', true],
    ['courier.demo', '2023-10-01', '/', 'Google-Extended', false],
    ['courier.demo', '2024-01-01', '/world/2023/06/heatwave-across-europe', 'Googlebot', true],
    // weekly-review.demo: seven AI crawlers in September, Google-Extended in October, OpenAI back after the December deal.
    ['weekly-review.demo', '2023-09-01', '/', 'ClaudeBot', true],
    ['weekly-review.demo', '2023-10-01', '/', 'anthropic-ai', false],
    ['weekly-review.demo', '2023-10-01', '/', 'GPTBot', false],
    ['weekly-review.demo', '2023-11-01', '/', 'Google-Extended', false],
    ['weekly-review.demo', '2024-01-01', '/', 'GPTBot', true],
    ['weekly-review.demo', '2024-01-01', '/', 'ChatGPT-User', true],
    ['weekly-review.demo', '2024-01-01', '/', 'CCBot', false],
    // shop.demo: the staging file is in force on the May night only.
    ['shop.demo', '2023-04-01', '/products/blue-widget', 'Googlebot', true],
    ['shop.demo', '2023-05-01', '/products/blue-widget', 'Googlebot', false],
    ['shop.demo', '2023-06-01', '/products/blue-widget', 'Googlebot', true],
  ])('%s on %s: %s for %s allowed = %s', (host, day, path, agent, expected) => {
    expect(allowed(host, `${day}T03:00:00Z`, path, agent)).toBe(expected);
  });

  it('gazette.demo: its own GPTBot group (August 2023) opens to GPTBot what `*` disallows (R-40)', () => {
    expect(allowed('gazette.demo', '2023-08-01T03:00:00Z', '/subscribers/weekend-edition', 'GPTBot')).toBe(false);
    expect(allowed('gazette.demo', '2023-09-01T03:00:00Z', '/subscribers/weekend-edition', 'GPTBot')).toBe(true);
    expect(allowed('gazette.demo', '2023-09-01T03:00:00Z', '/archive/1998/flood', 'GPTBot')).toBe(false);
    const gaps = starRuleGaps(robotsOn('gazette.demo', '2023-09-01T03:00:00Z')).gaps;
    expect(gaps.map((g) => [g.tokens, g.path])).toEqual([
      [['gptbot'], '/search'],
      [['gptbot'], '/subscribers/'],
      [['gptbot'], '/print/'],
    ]);
    expect(starRuleGaps(robotsOn('gazette.demo', '2023-08-01T03:00:00Z')).gaps).toEqual([]);
  });

  it('recipes.demo blocks no AI crawler on any night', () => {
    for (const night of NIGHTS_2023) {
      for (const agent of ['GPTBot', 'CCBot', 'Google-Extended', 'ClaudeBot']) expect(allowed('recipes.demo', night.toISOString(), '/', agent)).toBe(true);
    }
  });

  it('the 2023 nights are the first of each month from January 2023 to January 2024', () => {
    expect(NIGHTS_2023.map((n) => n.toISOString().slice(0, 10))).toEqual([
      ...['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12'].map((m) => `2023-${m}-01`),
      '2024-01-01',
    ]);
  });
});

describe('outage.demo: a 503 streak that crosses the 30 days of D-3 within the demo', () => {
  /** The policy of each night of the demo, as the pipeline derives it from the outcomes alone. */
  function policies(): { night: Date; policy: EffectivePolicy<number> }[] {
    let unreachableSince: Date | null = null;
    let lastReachable: LastReachable<number> | null = null;
    return [...NIGHTS_2023, ...NIGHTS_2025].map((night, i) => {
      const { status } = fetchOn('outage.demo', night.toISOString()).reply;
      const outcome: FetchOutcome = status === 200 ? 'ok' : 'server_error';
      const policy = effectivePolicy({ outcome, now: night, unreachableSince, lastReachable });
      unreachableSince = policy.unreachableSince;
      if (outcome === 'ok') lastReachable = { snapshotId: i, outcome };
      return { night, policy };
    });
  }

  it('answers 200 through 2023 and 503 on every night of 2025', () => {
    for (const night of NIGHTS_2023) expect(fetchOn('outage.demo', night.toISOString()).reply.status).toBe(200);
    for (const night of NIGHTS_2025) expect(fetchOn('outage.demo', night.toISOString()).reply.status).toBe(503);
  });

  it(`is fully disallowed (R-13) for ${UNREACHABLE_FALLBACK_DAYS} days, then under its last good rules (D-3) on the last two nights`, () => {
    const in2025 = policies().filter((p) => p.night >= NIGHTS_2025[0]!);
    const byReason = (reason: string) => in2025.filter((p) => p.policy.reason === reason).map((p) => p.night.toISOString().slice(0, 10));
    expect(byReason('R-13')).toHaveLength(31);
    expect(byReason('R-13').at(-1)).toBe('2025-08-28');
    expect(byReason('D-3')).toEqual(['2025-08-29', '2025-08-30']);
    // The copy is the last night it answered: 1 January 2024 (the last of the 2023 nights).
    expect(in2025.at(-1)?.policy.rulesFrom).toEqual({ snapshotId: NIGHTS_2023.length - 1 });
  });
});

describe('2025: the fetch rules beside the recorded histories', () => {
  it('moved.demo: three redirects, the first to another host, then six from 25 August (past the five of R-11)', () => {
    const before = fetchOn('moved.demo', '2025-08-24T22:00:00Z');
    expect(before.reply.status).toBe(200);
    expect(before.hops.map((h) => new URL(h).hostname)).toEqual(['www.moved.demo', 'www.moved.demo', 'www.moved.demo']);
    expect(parseRobotsTxt(before.reply.body ?? '').isAllowed('http://moved.demo/account/orders', 'Googlebot')).toBe(false);

    const after = fetchOn('moved.demo', '2025-08-25T22:00:00Z', 10);
    expect(after.reply.status).toBe(200);
    expect(after.hops).toHaveLength(6);
    expect(fetchOn('moved.demo', '2025-08-25T22:00:00Z').reply.status).toBe(0); // cut after five hops
  });

  it('gone.demo: rules until 5 August, 404 from the night of 6 August', () => {
    expect(fetchOn('gone.demo', '2025-08-05T22:00:00Z').reply.status).toBe(200);
    expect(fetchOn('gone.demo', '2025-08-06T22:00:00Z').reply.status).toBe(404);
    expect(fetchOn('gone.demo', '2025-08-30T22:00:00Z').reply.status).toBe(404);
  });

  it('spa.demo: an HTML page with status 200, which lint names as such', () => {
    const { reply } = fetchOn('spa.demo', '2025-08-01T22:00:00Z');
    expect(reply.status).toBe(200);
    expect(reply.headers?.['content-type']).toMatch(/^text\/html/);
    expect(lintRobotsTxt(reply.body ?? '').map((d) => d.code)).toContain('html-body');
  });

  it('the 2025 nights are every night from 29 July to 30 August, at 22:00 UTC', () => {
    expect(NIGHTS_2025).toHaveLength(33);
    expect([NIGHTS_2025[0]?.toISOString(), NIGHTS_2025.at(-1)?.toISOString()]).toEqual(['2025-07-29T22:00:00.000Z', '2025-08-30T22:00:00.000Z']);
  });
});

describe('recordedSite: a recorded history served night by night', () => {
  const BODY = Buffer.from('User-agent: *\nDisallow: /x\n');
  const PAGE = Buffer.from('\ufeff\n  <!DOCTYPE html><html><body>gone</body></html>');
  const site = recordedSite({
    host: 'www.example.de',
    source: 'avuim/RobotsTXTCrawler',
    versions: [
      { date: new Date('2025-07-29T13:16:45Z'), sha256: sha256Hex(BODY), body: BODY },
      { date: new Date('2025-07-31T16:30:00Z'), sha256: sha256Hex(PAGE), body: PAGE },
    ],
  });

  it.each<[string, string, number, string | undefined, Buffer | undefined]>([
    ['before its first version: no robots.txt (404)', '2025-07-29T03:00:00Z', 404, undefined, undefined],
    ['a robots.txt as text/plain, byte for byte', '2025-07-29T22:00:00Z', 200, 'text/plain', BODY],
    ['an HTML page as text/html, byte for byte', '2025-07-31T22:00:00Z', 200, 'text/html', PAGE],
  ])('%s', (_, night, status, type, body) => {
    const reply = site.serve(new Date(night), '/robots.txt', url) ?? { status: 404 };
    expect(reply.status).toBe(status);
    expect(reply.headers?.['content-type']).toBe(type);
    expect(reply.body).toEqual(body);
  });

  it('lives under .demo, in its own portfolio, and answers nothing but /robots.txt', () => {
    expect(site.host).toBe(recordedHostName('www.example.de'));
    expect(site.host).toBe('www.example.de.demo');
    expect(site.portfolio).toBe('recorded-2025');
    expect(site.serve(new Date('2025-08-01T22:00:00Z'), '/', url)).toBeNull();
  });
});

describe('signals.demo: a synthetic site whose Content-Signal line turns AI training from yes to no (issue 28)', () => {
  it.each<[string, string]>([
    ['2025-08-19T22:00:00Z', 'Content-Signal: search=yes, ai-input=yes, ai-train=yes'],
    ['2025-08-20T22:00:00Z', 'Content-Signal: search=yes, ai-input=yes, ai-train=no'],
  ])('on %s it says %s, in the `*` group, and lets every crawler fetch its articles', (night, line) => {
    const { reply } = fetchOn('signals.demo', night);
    expect(String(reply.body)).toContain(`User-agent: *\n${line}\n`);
    expect(String(reply.body)).toMatch(/^# signals\.demo: a synthetic site/);
    expect(allowed('signals.demo', night, '/articles/summer-reading', 'GPTBot')).toBe(true);
  });
});

describe('demoPlan', () => {
  it('adds the publishers in 2023, then the edge cases and the 21 recorded hosts in 2025, each host once, all under .demo', () => {
    expect(plan.parts.map((p) => [p.nights.length, p.sites.length])).toEqual([
      [13, PUBLISHERS_2023.length],
      [33, EDGE_CASES_2025.length + 21],
    ]);
    const hosts = plan.hosts.map((h) => h.host);
    expect(new Set(hosts).size).toBe(hosts.length);
    expect(hosts.every((h) => h.endsWith('.demo'))).toBe(true);
    for (const site of plan.parts.flatMap((p) => p.sites)) expect(site.tracked.every((t) => t.startsWith('/'))).toBe(true);
  });
});
