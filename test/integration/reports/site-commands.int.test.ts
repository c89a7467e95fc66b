/**
 * `robots-audit history`, `diff` and `explain` on nights the real pipeline stored: a loopback
 * web, `audit --wait --at` night after night (over more than 30 days, so that the 30-day
 * fallback of D-3 / R-14 is reached), then the commands in-process against the same database.
 *
 * Nights (days after NIGHT_0): 0, 1, 2, 3, 4, 5, 33. What each site serves:
 *   changed  V1, V1, V2, 503, V2, V3 (V2 with a comment), V3     three versions, flips and alerts
 *   steady   V1 every night                                       one version
 *   gone     V1, then 404                                         R-12
 *   down     V1, then 503                                         R-13, then D-3 with night 0's copy
 *   flaky    V1, 503 on nights 5 and 33                           R-13, two failed nights
 *   never    503 every night                                      D-3 with no copy: full allow
 *   reset    V1, connection reset on night 33                     R-15
 *   limited  V1, 429 on night 33                                  D-4
 *   loop     V1, a redirect loop on night 33                      R-11
 *   images   a googlebot group and a * group every night          R-42
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureReply } from '../../fixtures/web/index.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import type { Night } from '../../helpers/nightly.js';
import { addSites, defaultAgentTokens, hostOf, nightAt, replayNight, rows, track } from '../../helpers/nightly.js';

const NIGHT_0 = '2026-03-01T03:00:00.000Z';
const DAYS = [0, 1, 2, 3, 4, 5, 33] as const;
const LAST_DAY = 33;

const V1 = 'User-agent: *\nDisallow: /private/\n';
const V2 = 'User-agent: *\nDisallow: /private/\nDisallow: /tmp/\n\nUser-agent: GPTBot\nDisallow: /\n\nSitemap: https://example.com/sitemap.xml\n';
const V3 = `# edited\n${V2}`;
const IMAGES = 'User-agent: Googlebot\nDisallow: /search\n\nUser-agent: *\nDisallow: /private/\n';
/** Issue 28: Cloudflare's managed robots.txt (contentsignals.org), GPTBot blocked. */
const SIGNALS = 'User-Agent: *\nContent-Signal: search=yes,ai-train=no\nAllow: /\nDisallow: /private/\n\nUser-agent: GPTBot\nDisallow: /\n';
const S503: FixtureReply = { status: 503, body: 'down\n', headers: { 'retry-after': '0' } };
const S404: FixtureReply = { status: 404, body: 'not found\n' };
const S429: FixtureReply = { status: 429, body: 'slow down\n' };

/** What each site serves on a night; `handler` for the nights a reply cannot describe. */
const PLAN: Record<string, (day: number) => string | FixtureReply | 'reset' | 'loop'> = {
  changed: (d) => (d <= 1 ? V1 : d === 2 || d === 4 ? V2 : d === 3 ? S503 : V3),
  steady: () => V1,
  gone: (d) => (d === 0 ? V1 : S404),
  down: (d) => (d === 0 ? V1 : S503),
  flaky: (d) => (d === 5 || d === LAST_DAY ? S503 : V1),
  never: () => S503,
  reset: (d) => (d === LAST_DAY ? 'reset' : V1),
  limited: (d) => (d === LAST_DAY ? S429 : V1),
  loop: (d) => (d === LAST_DAY ? 'loop' : V1),
  images: () => IMAGES,
  signals: () => SIGNALS,
};

let p: Pipeline;
let agents: string[];
const nights = new Map<number, Night>();

beforeAll(async () => {
  p = await startPipeline();
  await addSites(p, Object.keys(PLAN));
  await track(p, 'changed', ['/private/x', '/tmp/a']);
  for (const day of DAYS) {
    const serve: Record<string, string | FixtureReply> = {};
    for (const [name, plan] of Object.entries(PLAN)) {
      const reply = plan(day);
      if (reply === 'reset') p.web.set(hostOf(name), (_req, res) => void res.socket?.destroy());
      else if (reply === 'loop') p.web.set(hostOf(name), (req, res) => void res.writeHead(301, { location: req.url ?? '/robots.txt' }).end());
      else serve[name] = reply;
    }
    nights.set(day, await replayNight(p, nightAt(NIGHT_0, day), serve));
  }
  // Sites with no night: added after the last run.
  await p.cli(['sites', 'add', p.origin('fresh'), 'http://twin.example', 'https://twin.example', 'https://twin.example:8443']);
  agents = await defaultAgentTokens(p);
}, 120_000);

afterAll(async () => p?.close());

async function json<T>(argv: string[]): Promise<T> {
  const run = await p.cli([...argv, '--json']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as T;
}

const night = (day: number) => nightAt(NIGHT_0, day);
const runKey = (day: number) => `at-${night(day)}`;
const runId = (day: number) => nights.get(day)!.runId;

describe('<site>: an origin, or a host that matches one monitored origin', () => {
  it.each<[string, (p: Pipeline) => string]>([
    ['the origin', (pp) => pp.origin('steady')],
    ['any URL of the origin', (pp) => `${pp.origin('steady')}/some/page?x=1`],
    ['the bare host (any scheme and port)', () => 'steady.test'],
    ['the host in another case', () => 'STEADY.test'],
    ['the host with its port', (pp) => `steady.test:${pp.web.port}`],
  ])('%s', async (_name, site) => {
    const history = await json<{ site: { origin: string } }>(['history', site(p)]);
    expect(history.site.origin).toBe(p.origin('steady'));
  });

  it.each<[string, string[], number, string]>([
    ['an origin not monitored', ['history', 'https://nowhere.test'], 1, 'robots-audit: not monitored: https://nowhere.test (robots-audit sites list shows the monitored sites)\n'],
    ['a host not monitored', ['diff', 'nowhere.test'], 1, 'robots-audit: not monitored: nowhere.test (robots-audit sites list shows the monitored sites)\n'],
    ['a host with another port', ['explain', 'steady.test:1', '/', '--ua', 'GPTBot'], 1, 'robots-audit: not monitored: steady.test:1 (robots-audit sites list shows the monitored sites)\n'],
    [
      'a host of several origins: each is listed',
      ['history', 'twin.example'],
      1,
      'robots-audit: twin.example matches several sites: http://twin.example, https://twin.example, https://twin.example:8443; name one by its origin\n',
    ],
    ['not a site at all', ['history', 'exa mple'], 2, 'robots-audit: not a site: invalid URL "exa mple": not a URL (name an origin such as https://example.com, or a host such as example.com)\n'],
  ])('%s: one line and its exit code', async (_name, argv, code, stderr) => {
    expect(await p.cli(argv)).toEqual({ code, stdout: '', stderr });
  });

  it('an origin of several on one host is found by its origin', async () => {
    const history = await json<{ site: { origin: string }; nights: unknown[] }>(['history', 'https://twin.example:8443']);
    expect(history).toMatchObject({ site: { origin: 'https://twin.example:8443' }, nights: [] });
  });
});

interface HistoryJson {
  site: { id: number; origin: string };
  totalNights: number;
  limit: number;
  nights: {
    night: string;
    runId: number;
    runKey: string;
    outcome: string;
    status: number | null;
    errorCode: string | null;
    policy: string;
    policyReason: string;
    unreachableSince: string | null;
    rulesNight: string | null;
    rulesRunKey: string | null;
    bodySha256: string | null;
    bodyBytes: number | null;
    changes: string[];
    flips: { url: string; agent: string; from: boolean | null; to: boolean; cause: string; ruleAfter: { line: number; value: string } | null }[];
    alerts: { severity: string; kind: string; title: string }[];
  }[];
}

describe('history: every night, newest first', () => {
  it('lists the nights with outcome, status, policy and reason, and the kinds of change (snapshot_changes)', async () => {
    const history = await json<HistoryJson>(['history', p.origin('changed')]);
    expect(history).toMatchObject({ totalNights: DAYS.length, limit: 30 });
    expect(history.nights.map((n) => [n.night, n.runKey, n.outcome, n.status, n.policy, n.policyReason, n.changes])).toEqual([
      [night(33), runKey(33), 'ok', 200, 'rules', 'R-10', []],
      [night(5), runKey(5), 'ok', 200, 'rules', 'R-10', ['raw', 'comments_only']],
      [night(4), runKey(4), 'ok', 200, 'rules', 'R-10', ['outcome', 'policy']],
      [night(3), runKey(3), 'server_error', 503, 'disallow_all', 'R-13', ['outcome', 'policy']],
      [night(2), runKey(2), 'ok', 200, 'rules', 'R-10', ['raw', 'rules', 'sitemaps']],
      [night(1), runKey(1), 'ok', 200, 'rules', 'R-10', []],
      [night(0), runKey(0), 'ok', 200, 'rules', 'R-10', ['first_seen']],
    ]);
    expect(history.nights.map((n) => n.runId)).toEqual([33, 5, 4, 3, 2, 1, 0].map(runId));
  });

  it('shows the verdicts that flipped, with cause and deciding line, and the alerts of each night', async () => {
    const byDay = new Map((await json<HistoryJson>(['history', p.origin('changed')])).nights.map((n) => [n.night, n]));
    const root = `${p.origin('changed')}/`;
    const tmp = `${p.origin('changed')}/tmp/a`;
    // Night 2: GPTBot gets its own `Disallow: /` (line 6), every other agent the * `Disallow: /tmp/` (line 3).
    const flips2 = byDay.get(night(2))!.flips;
    expect(flips2.map((f) => [f.url, f.agent, f.from, f.to, f.cause, f.ruleAfter?.line])).toEqual([
      [root, 'GPTBot', true, false, 'rules_changed', 6],
      ...agents
        .slice()
        .sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()))
        .map((agent) => [tmp, agent, true, false, 'rules_changed', agent === 'GPTBot' ? 6 : 3]),
    ]);
    expect(byDay.get(night(2))!.alerts.map((a) => [a.severity, a.kind])).toEqual([
      ['critical', 'search_url_disallowed'],
      ['warning', 'ai_access_changed'],
      ['warning', 'rules_changed'],
      ['info', 'sitemaps_changed'],
    ]);
    // Night 3 (503): everything still allowed flips to disallowed; night 4 flips back.
    expect(byDay.get(night(3))!.flips.every((f) => f.from === true && f.to === false && f.cause === 'outcome_changed')).toBe(true);
    expect(byDay.get(night(3))!.alerts.map((a) => [a.severity, a.kind])).toEqual([['critical', 'site_unreachable']]);
    expect(byDay.get(night(4))!.flips.every((f) => f.from === false && f.to === true)).toBe(true);
    expect(byDay.get(night(4))!.alerts.map((a) => a.kind)).toEqual(['site_recovered']);
    expect(byDay.get(night(1))!).toMatchObject({ flips: [], alerts: [], changes: [] });
  });

  it('D-3: a night under the fallback names the night of the copy it uses', async () => {
    const history = await json<HistoryJson>(['history', p.origin('down'), '--limit', '2']);
    expect(history.nights.map((n) => [n.night, n.policy, n.policyReason, n.unreachableSince, n.rulesNight, n.rulesRunKey, n.changes])).toEqual([
      [night(33), 'rules', 'D-3', night(1), night(0), runKey(0), ['policy', 'fallback_started']],
      [night(5), 'disallow_all', 'R-13', night(1), null, null, []],
    ]);
    expect(history.nights[0]!.alerts.map((a) => a.kind)).toEqual(['fallback_started']);
  });

  it('the text table: one row per night, what happened under it', async () => {
    const run = await p.cli(['history', p.origin('down'), '--limit', '3']);
    const origin = p.origin('down');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        `${origin}: 7 nights, the newest 3 shown, newest first`,
        '',
        'NIGHT (UTC)        RUN                          OUTCOME           POLICY',
        '2026-04-03 03:00Z  at-2026-04-03T03:00:00.000Z  server_error 503  rules (D-3, copy of 2026-03-01 03:00Z)',
        '    changed: policy, fallback_started',
        `    flips: ${agents.length}`,
        `      ${origin}/: disallowed → allowed (fallback_started) for ${agents.slice().sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())).join(', ')}`,
        `    alert info fallback_started: robots.txt unreachable for more than 30 days on ${origin}: the last good copy applies`,
        '2026-03-06 03:00Z  at-2026-03-06T03:00:00.000Z  server_error 503  disallow_all (R-13)',
        '2026-03-05 03:00Z  at-2026-03-05T03:00:00.000Z  server_error 503  disallow_all (R-13)',
        '',
      ].join('\n'),
    );
  });

  it.each<[string, string, (string | number | null)[]]>([
    ['R-12: 4xx', 'gone', ['unavailable', 404, null, 'allow_all', 'R-12']],
    ['R-15: a network failure, with its error code (the connection reset)', 'reset', ['network_error', null, 'UND_ERR_SOCKET', 'disallow_all', 'R-15']],
    ['D-4: 429', 'limited', ['rate_limited', 429, null, 'allow_all', 'D-4']],
    ['R-11: a redirect loop', 'loop', ['redirect_limit', 301, 'REDIRECT_LOOP', 'allow_all', 'R-11']],
    ['D-3 with no copy ever fetched', 'never', ['server_error', 503, null, 'allow_all', 'D-3']],
  ])('the latest night of a site: %s', async (_name, site, expected) => {
    const [latest] = (await json<HistoryJson>(['history', p.origin(site), '--limit', '1'])).nights;
    expect([latest!.outcome, latest!.status, latest!.errorCode, latest!.policy, latest!.policyReason]).toEqual(expected);
  });

  it('a site with no night yet says so', async () => {
    expect(await p.cli(['history', 'fresh.test'])).toEqual({ code: 0, stdout: `${p.origin('fresh')}: no nights yet (robots-audit audit runs one)\n`, stderr: '' });
  });

  it.each([['0'], ['-1'], ['1.5'], ['ten'], ['']])('--limit %j: a whole number of at least 1 or a one-line error, exit 2', async (limit) => {
    expect(await p.cli(['history', p.origin('changed'), '--limit', limit])).toEqual({
      code: 2,
      stdout: '',
      stderr: `robots-audit: --limit "${limit}": not a whole number of at least 1\n`,
    });
  });
});

interface VersionJson {
  number: number;
  firstNight: string;
  firstRunKey: string;
  lastNight: string;
  nights: number;
  bytes: number;
}
interface DiffJson {
  site: { origin: string };
  result: 'diff' | 'same_version' | 'first_version' | 'too_few_versions';
  versions: number;
  from: VersionJson | null;
  to: VersionJson | null;
  textDiff?: string;
  kinds?: string[];
  crawlers?: { crawler: string; before: { token: string | null }; after: { token: string | null }; gained: { kind: string; value: string }[]; lost: { kind: string; value: string }[]; changed: boolean }[];
  sitemapsAdded?: string[];
}

describe('diff: two versions of the robots.txt', () => {
  it('versions are distinct bodies in a row: a 503 night between two nights of V2 does not end it', async () => {
    const diff = await json<DiffJson>(['diff', p.origin('changed'), '--from', '2026-03-01', '--to', '2026-03-05']);
    expect(diff.versions).toBe(3);
    expect(diff.from).toMatchObject({ number: 1, firstNight: night(0), lastNight: night(1), nights: 2, firstRunKey: runKey(0), bytes: V1.length });
    expect(diff.to).toMatchObject({ number: 2, firstNight: night(2), lastNight: night(4), nights: 2, firstRunKey: runKey(2), bytes: V2.length });
  });

  it('by default: the latest version against the one before (here a comment added: no rule changed)', async () => {
    const run = await p.cli(['diff', p.origin('changed')]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        `${p.origin('changed')}: version 2 → version 3 (3 versions stored)`,
        `  before: version 2: fetched 2026-03-03 03:00Z .. 2026-03-05 03:00Z, 2 nights (first run ${runKey(2)}); ${V2.length} bytes, sha256 ${(await sha(V2)).slice(0, 12)}`,
        `  after:  version 3: fetched 2026-03-06 03:00Z .. 2026-04-03 03:00Z, 2 nights (first run ${runKey(5)}); ${V3.length} bytes, sha256 ${(await sha(V3)).slice(0, 12)}`,
        '',
        '--- robots.txt (before)',
        '+++ robots.txt (after)',
        '@@ -1,3 +1,4 @@',
        '+# edited',
        ' User-agent: *',
        ' Disallow: /private/',
        ' Disallow: /tmp/',
        '',
        'Rules, sitemaps and records: the same (only comments, blank lines, order or spelling differ)',
        '',
      ].join('\n'),
    );
  });

  it('the semantic diff per crawler: * and those that follow it gain /tmp/; GPTBot leaves * for its own group', async () => {
    const diff = await json<DiffJson>(['diff', p.origin('changed'), '--from', runKey(0), '--to', runKey(2)]);
    expect(diff.kinds).toEqual(['rules', 'sitemaps']);
    expect(diff.sitemapsAdded).toEqual(['https://example.com/sitemap.xml']);
    const byCrawler = new Map(diff.crawlers!.map((c) => [c.crawler, c]));
    // *, the crawlers either file names, then the default agents: each once.
    expect(diff.crawlers!.map((c) => c.crawler)).toEqual(['*', 'GPTBot', ...agents.filter((a) => a !== 'GPTBot').sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()))]);
    const show = (c: NonNullable<DiffJson['crawlers']>[number]) => ({
      groups: `${c.before.token} -> ${c.after.token}`,
      gained: c.gained.map((r) => `${r.kind} ${r.value}`),
      lost: c.lost.map((r) => `${r.kind} ${r.value}`),
    });
    expect(show(byCrawler.get('GPTBot')!)).toEqual({ groups: '* -> gptbot', gained: ['disallow /'], lost: ['disallow /private/'] });
    for (const crawler of ['*', ...agents.filter((a) => a !== 'GPTBot')]) {
      expect(show(byCrawler.get(crawler)!), crawler).toEqual({ groups: '* -> *', gained: ['disallow /tmp/'], lost: [] });
    }
  });

  it('the text: crawlers with the same change share a line; + gained, - lost; sitemaps after', async () => {
    const run = await p.cli(['diff', p.origin('changed'), '--from', runKey(0), '--to', runKey(2)]);
    const others = agents.filter((a) => a !== 'GPTBot').sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
    expect(run.stdout.split('\n').slice(run.stdout.split('\n').indexOf('Per crawler (+ gained, - lost):'))).toEqual([
      'Per crawler (+ gained, - lost):',
      `  *, ${others.join(', ')} (the * group)`,
      '    + Disallow: /tmp/',
      '  GPTBot (the * group → the group User-agent: GPTBot)',
      '    - Disallow: /private/',
      '    + Disallow: /',
      '',
      'Sitemaps and other records:',
      '  + Sitemap: https://example.com/sitemap.xml',
      '',
    ]);
  });

  // Run ids are known once the nights ran: the table holds functions.
  it.each<[string, () => string, number]>([
    ['a run id', () => String(runId(0)), 1],
    ['a run key', () => runKey(0), 1],
    ['a day: the version at the end of that UTC day', () => '2026-03-01', 1],
    ['an ISO time', () => '2026-03-03T02:59:59Z', 1],
    ['an ISO time without a zone (UTC)', () => '2026-03-03T03:00', 2],
    ['an ISO time with an offset', () => '2026-03-03T04:00+01:00', 2],
    ['the night of a 503: the version fetched before it', () => '2026-03-04', 2],
    ['the run of a 503 night, by id', () => String(runId(3)), 2],
    ['a day with no run: the version in force', () => '2026-03-20', 3],
  ])('--from %s names a version', async (_name, from, version) => {
    const diff = await json<DiffJson>(['diff', p.origin('changed'), '--from', from(), '--to', '2026-04-03']);
    if (version === 3) expect(diff).toMatchObject({ result: 'same_version', from: { number: 3 }, to: { number: 3 } });
    else expect(diff).toMatchObject({ result: 'diff', from: { number: version }, to: { number: 3 } });
  });

  it('--to alone: against the version before it', async () => {
    expect(await json<DiffJson>(['diff', p.origin('changed'), '--to', '2026-03-03'])).toMatchObject({ result: 'diff', from: { number: 1 }, to: { number: 2 } });
    expect(await json<DiffJson>(['diff', p.origin('changed'), '--to', '2026-03-01'])).toMatchObject({ result: 'first_version', from: null, to: { number: 1 } });
  });

  it('--from later than --to: the diff runs backwards', async () => {
    const diff = await json<DiffJson>(['diff', p.origin('changed'), '--from', '2026-03-03', '--to', '2026-03-01']);
    expect(diff).toMatchObject({ result: 'diff', from: { number: 2 }, to: { number: 1 } });
    expect(diff.crawlers!.find((c) => c.crawler === 'GPTBot')).toMatchObject({ gained: [{ value: '/private/' }], lost: [{ value: '/' }] });
  });

  it.each<[string, string[], string]>([
    ['both ends the same version', ['changed', '--from', '2026-03-03', '--to', '2026-03-05'], 'no difference: both ends are version 2 of 3'],
    ['one version stored', ['steady'], 'one version of robots.txt stored (version 1: fetched 2026-03-01 03:00Z .. 2026-04-03 03:00Z, 7 nights'],
    ['no version stored', ['never'], 'no robots.txt stored yet: nothing to compare'],
    ['the first version named alone', ['changed', '--to', '2026-03-01'], 'version 1: fetched 2026-03-01 03:00Z .. 2026-03-02 03:00Z, 2 nights'],
  ])('%s: a clear message, exit 0', async (_name, [site, ...args], message) => {
    const run = await p.cli(['diff', p.origin(site!), ...args]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(message);
    expect(run.stdout.split('\n')).toHaveLength(2);
  });

  it.each<[string, string[], number, string]>([
    ['a date that does not exist', ['--from', '2026-02-30'], 2, '--from "2026-02-30": not a date'],
    ['a time that does not exist', ['--to', '2026-03-01T25:00Z'], 2, '--to "2026-03-01T25:00Z": not an ISO time'],
    ['a run id that does not exist', ['--from', '9999'], 1, '--from "9999": no run with id 9999'],
    ['neither a night nor a run', ['--from', 'yesterday'], 1, '--from "yesterday": no run with that key, and not a night (YYYY-MM-DD or an ISO time) or a run id'],
    ['a night before the first version', ['--from', '2026-02-01'], 1, `--from "2026-02-01": no robots.txt of ORIGIN was stored by night 2026-02-01; the first stored is of ${night(0)}`],
  ])('%s: one line and its exit code', async (_name, args, code, message) => {
    const run = await p.cli(['diff', p.origin('changed'), ...args]);
    expect(run).toEqual({ code, stdout: '', stderr: `robots-audit: ${message.replace('ORIGIN', p.origin('changed'))}\n` });
  });

  it.each<[string, string[], boolean]>([
    ['not a terminal: plain', [], false],
    ['--color: green and red even when not a terminal', ['--color'], true],
    ['--no-color: plain', ['--no-color'], false],
  ])('colour: %s', async (_name, args, coloured) => {
    const run = await p.cli(['diff', p.origin('changed'), '--from', runKey(0), '--to', runKey(2), ...args]);
    expect(run.code).toBe(0);
    expect(run.stdout.includes('\u001b[32m+Disallow: /tmp/\u001b[39m')).toBe(coloured);
    expect(run.stdout.includes('\u001b[31m    - Disallow: /private/\u001b[39m')).toBe(coloured);
    expect(run.stdout.includes('\u001b[')).toBe(coloured);
  });
});

interface ExplainJson {
  url: string;
  path: string;
  userAgent: string;
  followedAgent: string;
  allowed: boolean;
  decidedBy: string;
  rule: { line: number; kind: string; value: string } | null;
  group: { kind: string; userAgents: { value: string; line: number }[] } | null;
  policy: { kind: string; reason: string; why: string; since: string | null; unreachableSince: string | null; failedNights: number; rulesNight: string | null; rulesRunKey: string | null; errorCode: string | null };
}

describe('explain: the verdict under the current policy, and why the policy applies', () => {
  it.each<[string, string, string, string, Partial<ExplainJson>, Partial<ExplainJson['policy']>]>([
    ['R-10: the rules of the latest night decide', 'steady', '/private/x', 'GPTBot', { allowed: false, decidedBy: 'rule', rule: { line: 2, kind: 'disallow', value: '/private/' } as ExplainJson['rule'] }, { kind: 'rules', reason: 'R-10' }],
    ['R-10: no rule matches', 'steady', '/public', 'GPTBot', { allowed: true, decidedBy: 'no_rule', rule: null }, { kind: 'rules', reason: 'R-10' }],
    ['R-10: a group of its own (R-40)', 'changed', '/', 'gptbot', { allowed: false, decidedBy: 'rule', rule: { line: 7, kind: 'disallow', value: '/' } as ExplainJson['rule'] }, { kind: 'rules', reason: 'R-10' }],
    ['R-42: Googlebot-Image follows the googlebot group', 'images', '/search?q=1', 'Googlebot-Image', { allowed: false, followedAgent: 'googlebot', rule: { line: 2, kind: 'disallow', value: '/search' } as ExplainJson['rule'] }, { reason: 'R-10' }],
    ['R-12: a 4xx: full allow, decided by the policy', 'gone', '/private/x', 'GPTBot', { allowed: true, decidedBy: 'policy', rule: null, group: null }, { kind: 'allow_all', reason: 'R-12', since: night(1) }],
    ['R-13: a 5xx: full disallow', 'flaky', '/', 'Googlebot', { allowed: false, decidedBy: 'policy' }, { kind: 'disallow_all', reason: 'R-13', unreachableSince: night(5), failedNights: 2 }],
    ['R-15: a network failure: full disallow', 'reset', '/', 'Googlebot', { allowed: false, decidedBy: 'policy' }, { kind: 'disallow_all', reason: 'R-15', errorCode: 'UND_ERR_SOCKET', failedNights: 1 }],
    ['D-4: a 429: full allow', 'limited', '/private/x', 'Googlebot', { allowed: true, decidedBy: 'policy' }, { kind: 'allow_all', reason: 'D-4' }],
    ['R-11: a redirect loop: full allow', 'loop', '/private/x', 'Googlebot', { allowed: true, decidedBy: 'policy' }, { kind: 'allow_all', reason: 'R-11' }],
    [
      'D-3: unreachable more than 30 days: the last good copy decides',
      'down',
      '/private/x',
      'GPTBot',
      { allowed: false, decidedBy: 'rule', rule: { line: 2, kind: 'disallow', value: '/private/' } as ExplainJson['rule'] },
      { kind: 'rules', reason: 'D-3', unreachableSince: night(1), rulesNight: night(0), rulesRunKey: runKey(0) },
    ],
    ['D-3: no copy ever fetched: full allow', 'never', '/private/x', 'GPTBot', { allowed: true, decidedBy: 'policy' }, { kind: 'allow_all', reason: 'D-3', unreachableSince: night(0), rulesNight: null }],
  ])('%s', async (_name, site, url, ua, verdict, policy) => {
    const x = await json<ExplainJson>(['explain', p.origin(site), url, '--ua', ua]);
    expect(x).toMatchObject({ ...verdict, policy });
  });

  it('the deciding line, its group and the reason in words: rules (R-10)', async () => {
    const run = await p.cli(['explain', 'changed.test', '/tmp/a?x#frag', '--ua', 'Bingbot']);
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        `${p.origin('changed')}/tmp/a?x for Bingbot: disallowed`,
        '  deciding line: line 4: Disallow: /tmp/',
        '  group: the * group: User-agent: * (line 2)',
        `  policy: rules (R-10): robots.txt was fetched OK (200) on 2026-04-03 03:00Z (run ${runKey(33)}): its rules apply`,
        '',
      ].join('\n'),
    });
  });

  it('issue 28: the usage preference of each purpose beside the verdict, with its deciding line', async () => {
    const cs = 'Content Signals (contentsignals.org, draft-romm-aipref-contentsignals)';
    const run = await p.cli(['explain', 'signals.test', '/blog/a', '--ua', 'Bingbot']);
    expect(run.stdout.split('\n').slice(0, 7)).toEqual([
      `${p.origin('signals')}/blog/a for Bingbot: allowed`,
      '  deciding line: line 3: Allow: /',
      '  group: the * group: User-agent: * (line 1)',
      '  usage:',
      `    search: allowed (line 2, Content-Signal search=yes, ${cs})`,
      `    ai-train: refused (line 2, Content-Signal ai-train=no, ${cs})`,
      '    ai-input: unknown (no line states it)',
    ]);
    const gpt = await p.cli(['explain', 'signals.test', '/blog/a', '--ua', 'GPTBot']);
    expect(gpt.stdout).toContain('\n  usage: not crawlable (no preference applies to a URL the crawler may not fetch, D-9)\n');
    const x = await json<{ usage: Record<string, { preference: string; line: number | null }> }>(['explain', 'signals.test', '/blog/a', '--ua', 'Bingbot']);
    expect(Object.fromEntries(Object.entries(x.usage).map(([k, v]) => [k, [v.preference, v.line]]))).toEqual({ search: ['allowed', 2], 'ai-train': ['refused', 2], 'ai-input': ['unknown', null] });
  });

  it('the 30-day fallback in words: since when, and the copy of which night (D-3, R-14)', async () => {
    const run = await p.cli(['explain', p.origin('down'), `${p.origin('down')}/private/x`, '--ua', 'GPTBot']);
    expect(run.stdout).toBe(
      [
        `${p.origin('down')}/private/x for GPTBot: disallowed`,
        '  deciding line: line 2: Disallow: /private/',
        '  group: the * group: User-agent: * (line 1)',
        `  policy: rules (D-3): unreachable (503) since 2026-03-02 03:00Z, latest 2026-04-03 03:00Z (run ${runKey(33)}), 6 failed nights in a row: more than 30 days (R-14), so the copy fetched on 2026-03-01 03:00Z (run ${runKey(0)}) applies`,
        '',
      ].join('\n'),
    );
  });

  it.each<[string, string, string]>([
    ['R-42 in words, with its source', 'images', 'Googlebot-Image follows the Googlebot group when none names Googlebot-Image (https://developers.google.com/crawling/docs/robots-txt/robots-txt-spec#order-of-precedence-for-user-agents): the file has no group of its own for it (R-42)'],
    ['full disallow in words', 'flaky', 'deciding line: none: the policy decides (full disallow), no rule is read'],
    ['a 5xx streak in words', 'flaky', 'robots.txt answers 5xx (503) since 2026-03-06 03:00Z, latest 2026-04-03 03:00Z'],
    ['a 4xx in words', 'gone', 'policy: allow_all (R-12): robots.txt answers 404 since 2026-03-02 03:00Z'],
    ['a network failure in words', 'reset', 'robots.txt cannot be fetched, a network error (UND_ERR_SOCKET), on 2026-04-03 03:00Z'],
  ])('%s', async (_name, site, expected) => {
    const run = await p.cli(['explain', p.origin(site), '/search', '--ua', 'Googlebot-Image']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(expected);
  });

  it('agrees with the nightly verdicts: every tracked URL x default agent of every site', async () => {
    const latest = await rows<{ origin: string; url: string; token: string; allowed: boolean; rule_line: number | null }>(
      p,
      'select origin, url, token, allowed, rule_line from verdict_latest order by origin, url, token',
    );
    expect(latest.length).toBeGreaterThan(Object.keys(PLAN).length * agents.length);
    for (const v of latest) {
      const x = await json<ExplainJson>(['explain', v.origin, v.url, '--ua', v.token]);
      expect([x.allowed, x.rule?.line ?? null], `${v.url} ${v.token}`).toEqual([v.allowed, v.rule_line]);
    }
  });

  it.each<[string, string[], number, string]>([
    ['a URL of another origin', ['explain', 'steady.test', 'https://steady.test/x', '--ua', 'GPTBot'], 1, 'invalid URL "https://steady.test/x": not on ORIGIN (R-2..R-5: a robots.txt governs its own scheme, host and port)'],
    ['a URL that cannot be parsed', ['explain', 'steady.test', 'http://exa mple/x', '--ua', 'GPTBot'], 1, 'invalid URL "http://exa mple/x": not a URL'],
    ['a name that is not a product token (T14)', ['explain', 'steady.test', '/', '--ua', 'Googlebot/2.1'], 2, '--ua "Googlebot/2.1": not a user-agent product token (T14: letters, "-" and "_" only, e.g. Googlebot)'],
    ['a site with no night yet', ['explain', 'fresh.test', '/', '--ua', 'GPTBot'], 1, 'no nights yet for FRESH (robots-audit audit runs one)'],
  ])('%s: one line and its exit code', async (_name, argv, code, message) => {
    const run = await p.cli(argv);
    expect(run).toEqual({ code, stdout: '', stderr: `robots-audit: ${message.replace('ORIGIN', p.origin('steady')).replace('FRESH', p.origin('fresh'))}\n` });
  });

  it('--ua is required (commander)', async () => {
    const run = await p.cli(['explain', 'steady.test', '/']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("error: required option '--ua <token>' not specified");
  });

  it('any product token is accepted, also one no group names (it follows *)', async () => {
    const x = await json<ExplainJson>(['explain', 'steady.test', '/private/', '--ua', 'Some-New_Bot']);
    expect(x).toMatchObject({ allowed: false, followedAgent: 'Some-New_Bot', group: { kind: 'global' } });
  });
});

async function sha(text: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(text).digest('hex');
}
