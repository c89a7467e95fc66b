/**
 * `robots-audit report <name>`: every report in its three formats against nights replayed through
 * the real pipeline (loopback sites, Postgres, Redis): a publisher that blocks AI crawlers on
 * night 2, a shop that answers 503 from night 2, a blog without robots.txt, a site
 * whose file has lint warnings. CSV is read back with csv-parse, JSON with JSON.parse.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, replayNight, rows, track } from '../../helpers/nightly.js';

const NIGHTS = ['2026-03-01T03:00:00.000Z', '2026-03-02T03:00:00.000Z', '2026-03-03T03:00:00.000Z'];
const NEWS_1 = 'User-agent: *\nDisallow: /search\n';
const NEWS_2 = `${NEWS_1}\nUser-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n`;
const SHOP = 'User-agent: *\nDisallow: /cart\n';
const LINTED = 'User-agent: *\nDisalow: /tmp\nAllow /x\n';
const HTTP_503 = { status: 503, body: 'busy' };
const HTTP_404 = { status: 404, body: 'not found' };

let p: Pipeline;
let aiCrawlers: number;

beforeAll(async () => {
  p = await startPipeline();
  await addSites(p, ['news', 'blog'], 'publishers');
  await addSites(p, ['shop', 'linted'], 'shops');
  await track(p, 'news', ['/world/a']);
  await replayNight(p, NIGHTS[0]!, { news: NEWS_1, blog: HTTP_404, shop: SHOP, linted: LINTED });
  await replayNight(p, NIGHTS[1]!, { news: NEWS_2, shop: HTTP_503 });
  await replayNight(p, NIGHTS[2]!, {});
  const [n] = await rows<{ n: number }>(p, "select count(*)::int as n from user_agents where category like 'ai-%'");
  aiCrawlers = n!.n;
}, 120_000);

afterAll(async () => {
  await p?.close();
});

async function report(args: string[]) {
  return p.cli(['report', ...args]);
}

async function json<T = Record<string, unknown>>(args: string[]): Promise<T[]> {
  const run = await report([...args, '--format', 'json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T[];
}

describe('report status', () => {
  it('one row per audited site: outcome, policy and why (R-10, R-12, R-13), failing nights, lint counts', async () => {
    const status = await json(['status']);
    const by = Object.fromEntries(status.map((r) => [r.origin, r]));
    expect(Object.keys(by).sort()).toEqual(['blog', 'linted', 'news', 'shop'].map((n) => p.origin(n)).sort());
    expect(by[p.origin('news')]).toMatchObject({ outcome: 'ok', status: 200, policy: 'rules', policyReason: 'R-10', failedNights: 0, lintErrors: 0 });
    expect(by[p.origin('blog')]).toMatchObject({ outcome: 'unavailable', status: 404, policy: 'allow_all', policyReason: 'R-12', portfolios: ['publishers'] });
    expect(by[p.origin('shop')]).toMatchObject({ outcome: 'server_error', status: 503, policy: 'disallow_all', policyReason: 'R-13', failedNights: 2 });
    expect(by[p.origin('shop')]!.policySince).toBe(NIGHTS[1]);
    expect(by[p.origin('linted')]).toMatchObject({ lintWarnings: 2, bodyBytes: Buffer.byteLength(LINTED) });
    expect(by[p.origin('news')]!.lastChangeAt).toBe(NIGHTS[1]);
    expect(by[p.origin('news')]!.checkedAt).toBe(NIGHTS[2]);
  });

  it('--portfolio keeps that portfolio\'s sites', async () => {
    expect((await json(['status', '--portfolio', 'publishers'])).map((r) => r.origin)).toEqual([p.origin('blog'), p.origin('news')]);
  });

  it('--since keeps the sites whose last change is on or after the night', async () => {
    expect((await json(['status', '--since', '2026-03-02'])).map((r) => r.origin).sort()).toEqual([p.origin('news'), p.origin('shop')].sort());
  });

  it('the CSV has the table\'s headings and the JSON\'s values', async () => {
    const csv = await report(['status', '--format', 'csv']);
    expect(csv.code).toBe(0);
    expect(csv.stdout).toMatch(/\r\n$/);
    const records = parseCsv(csv.stdout, { columns: true }) as Record<string, string>[];
    const fromJson = await json(['status']);
    expect(records).toHaveLength(fromJson.length);
    expect(Object.keys(records[0]!)).toEqual(['SITE', 'OUTCOME', 'HTTP', 'POLICY', 'WHY', 'SINCE', 'UNVERIFIED', 'FLAPPING', 'FAILED', 'DAYS DOWN', 'BYTES', 'CUT', 'ERRORS', 'WARNINGS', 'LAST CHANGE', 'CHECKED', 'PORTFOLIOS']);
    records.forEach((rec, i) => {
      expect(rec.SITE).toBe(fromJson[i]!.origin);
      expect(rec.HTTP).toBe(String(fromJson[i]!.status ?? ''));
      expect(rec.CHECKED).toBe(fromJson[i]!.checkedAt);
    });
  });

  it('the table fits the width asked for, cutting the long columns with an ellipsis', async () => {
    const wide = await report(['lint']);
    expect(wide.stdout).not.toContain('…');
    expect(Math.max(...wide.stdout.split('\n').map((l) => l.length))).toBeGreaterThan(70);
    const run = await report(['lint', '--width', '70']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^SITE +LINE +SEVERITY +CODE +MESSAGE$/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(70);
    expect(lines[1]).toMatch(/…$/);
  });
});

describe('report changes', () => {
  it('newest first: rules changed on night 2 with the semantic diff, the 503 as an outcome and policy move', async () => {
    const changes = await json(['changes']);
    const night2 = changes.filter((c) => c.night === NIGHTS[1]);
    const news = night2.find((c) => c.origin === p.origin('news'))!;
    expect(news.kinds).toEqual(expect.arrayContaining(['raw', 'rules']));
    expect(news.summary).toBe('+ group CCBot; + Disallow: /; + group GPTBot; + Disallow: /');
    const shop = night2.find((c) => c.origin === p.origin('shop'))!;
    expect(shop).toMatchObject({ outcome: 'ok → server_error', policy: 'rules → disallow_all', summary: null });
    expect(changes.at(-1)!.night).toBe(NIGHTS[0]);
    expect(changes.map((c) => c.night)).toEqual([...changes.map((c) => c.night as string)].sort().reverse());
  });

  it('--since drops older nights', async () => {
    expect(await json(['changes', '--since', '2026-03-03'])).toEqual([]);
    // 1d: from a day before the latest night (night 3), so night 2 is in.
    expect((await json(['changes', '--since', '1d'])).map((c) => c.night)).toEqual([NIGHTS[1], NIGHTS[1]]);
    expect((await json(['changes', '--since', '2026-03-02T00:00:00Z'])).map((c) => c.origin).sort()).toEqual([p.origin('news'), p.origin('shop')].sort());
  });
});

describe('report flips', () => {
  it('GPTBot and CCBot lose the root and the tracked URL on night 2, decided by Disallow: / of their group', async () => {
    const flips = await json(['flips', '--portfolio', 'publishers']);
    const newsAi = flips.filter((f) => f.origin === p.origin('news') && f.cause === 'rules_changed');
    expect(newsAi.map((f) => `${f.agent} ${f.url}`).sort()).toEqual(
      ['CCBot', 'GPTBot'].flatMap((a) => [`${a} ${p.origin('news')}/`, `${a} ${p.origin('news')}/world/a`]).sort(),
    );
    for (const f of newsAi) expect(f).toMatchObject({ before: 'allowed', after: 'disallowed', rule: 'Disallow: / (line 6)', category: expect.stringMatching(/^ai-/) });
  });

  it('the shop\'s 503 flips its root to disallowed for every default agent, with no rule', async () => {
    const flips = (await json(['flips', '--portfolio', 'shops'])).filter((f) => f.origin === p.origin('shop'));
    expect(flips).toHaveLength(10);
    for (const f of flips) expect(f).toMatchObject({ after: 'disallowed', cause: 'outcome_changed', rule: 'no rule' });
  });
});

describe('report alerts', () => {
  it('each alert with the night it is about, newest first, in the three formats', async () => {
    const alerts = await json(['alerts']);
    expect(alerts.find((a) => a.origin === p.origin('shop') && a.kind === 'site_unreachable')).toMatchObject({ night: NIGHTS[1], severity: 'critical' });
    expect(alerts.find((a) => a.origin === p.origin('news') && a.kind === 'ai_access_changed')).toMatchObject({ night: NIGHTS[1], severity: 'warning' });
    expect(alerts.map((a) => a.night)).toEqual([...alerts.map((a) => a.night as string)].sort().reverse());
    const csv = await report(['alerts', '--format', 'csv']);
    expect((parseCsv(csv.stdout, { columns: true }) as Record<string, string>[]).map((r) => r.KIND)).toEqual(alerts.map((a) => a.kind));
    const table = await report(['alerts', '--portfolio', 'shops']);
    expect(table.stdout.split('\n')[0]).toMatch(/^NIGHT\s+SITE\s+SEVERITY\s+KIND\s+TITLE$/);
    expect(await json(['alerts', '--since', '2026-03-03'])).toEqual([]);
  });
});

describe('report ai-access', () => {
  it('names the blocked AI crawlers per site and counts them per category', async () => {
    const access = Object.fromEntries((await json(['ai-access'])).map((r) => [r.origin, r]));
    expect(access[p.origin('news')]!.blocked).toBe('CCBot, GPTBot');
    expect(access[p.origin('blog')]).toMatchObject({ policy: 'allow_all', blocked: null });
    expect(access[p.origin('shop')]).toMatchObject({ policy: 'disallow_all', blocked: `all ${aiCrawlers}` });
    const training = (access[p.origin('news')]!.trainingBlocked as string).split('/');
    expect(Number(training[0])).toBe(2);
  });

  it('--since lists only the sites whose AI access changed, with what was newly blocked', async () => {
    const changed = await json(['ai-access', '--since', '2026-03-01T12:00:00Z']);
    expect(changed.map((r) => r.origin).sort()).toEqual([p.origin('news'), p.origin('shop')].sort());
    expect(changed.find((r) => r.origin === p.origin('news'))).toMatchObject({ newlyBlocked: ['CCBot', 'GPTBot'], newlyAllowed: [] });
    expect((changed.find((r) => r.origin === p.origin('shop'))!.newlyBlocked as string[]).length).toBe(aiCrawlers);
  });
});

describe('report failing', () => {
  it('the shop: 503 for two nights, full disallow under R-13, last good night 1', async () => {
    expect(await json(['failing'])).toEqual([
      {
        origin: p.origin('shop'),
        outcome: 'server_error',
        status: 503,
        failedNights: 2,
        unreachableSince: NIGHTS[1],
        daysUnreachable: 1,
        policy: 'disallow_all',
        policyReason: 'R-13',
        copyOf: null,
        lastOk: NIGHTS[0],
      },
    ]);
  });

  it('an empty report is not an error: a line in a table, [] in JSON, the headings in CSV', async () => {
    expect(await report(['failing', '--portfolio', 'publishers'])).toMatchObject({ code: 0, stdout: 'no rows (failing)\n', stderr: '' });
    expect(await json(['failing', '--portfolio', 'publishers'])).toEqual([]);
    const csv = await report(['failing', '--portfolio', 'publishers', '--format', 'csv']);
    expect(csv.stdout).toBe('SITE,OUTCOME,HTTP,NIGHTS,DOWN SINCE,DAYS,POLICY,WHY,USING COPY OF,LAST OK\r\n');
  });
});

describe('report lint', () => {
  it('one row per warning of the current file, with its line and code', async () => {
    expect((await json(['lint'])).map((r) => [r.origin, r.line, r.severity, r.code])).toEqual([
      [p.origin('linted'), 2, 'warning', 'typo-accepted'],
      [p.origin('linted'), 3, 'warning', 'missing-colon'],
    ]);
  });
});

describe('mistakes get one line: exit 2 for a malformed argument, 1 for a name that does not exist', () => {
  it.each([
    [['status', '--portfolio', 'nope'], 1, /^robots-audit: no portfolio named "nope" \(portfolios: publishers, shops\)\n$/],
    [['changes', '--since', '2026-02-30'], 2, /^robots-audit: --since "2026-02-30" is not a date: use YYYY-MM-DD/],
    [['changes', '--since', 'yesterday'], 2, /is not a date/],
    [['changes', '--since', '2026-03-01T03:00+25:00'], 2, /is not a date/],
    [['status', '--width', 'wide'], 2, /--width "wide": give a whole number/],
    [['nonsense'], 1, /value 'nonsense' is invalid for argument 'report'\. Allowed choices are status, changes, flips, alerts, ai-access, ai-use, failing, lint, portability/],
    [['status', '--format', 'xml'], 1, /option '--format <format>' argument 'xml' is invalid/],
  ] as const)('report %j', async (args, code, message) => {
    const run = await report([...args]);
    expect(run.code).toBe(code);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });
});
