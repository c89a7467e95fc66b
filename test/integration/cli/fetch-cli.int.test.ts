/**
 * `robots-audit fetch <url> [--json] [--store]` against the fixture web server (`*.test` pinned
 * to 127.0.0.1 with --resolve, the loopback let through with --allow-network) and, for --store, a
 * real database. Run in-process through `main(argv, io)`.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../../src/cli/commands/lint.command.js';
import { LINT_PREVIEW_COUNT } from '../../../src/cli/commands/fetch.command.js';
import { createRepos } from '../../../src/db/index.js';
import { sha256Of } from '../../../src/night/keys.js';
import { lintRobotsTxt } from '../../../src/robots/index.js';
import { storeSingleNight } from '../../../src/services/night-runner.js';
import { fetchResult } from '../../helpers/fetch-results.js';
import { closedPort } from '../../fixtures/webhook-receiver.js';
import { OK_BODY, startFixtureWeb } from '../../fixtures/web/index.js';
import type { FixtureWeb } from '../../fixtures/web/index.js';
import { runCli } from '../../helpers/cli.js';
import type { CliRun } from '../../helpers/cli.js';
import type { TestDatabase } from '../../helpers/test-db.js';
import { createTestDatabase } from '../../helpers/test-db.js';

let web: FixtureWeb;
let testDb: TestDatabase;

const NETWORK = ['--allow-network', '127.0.0.0/8', '--resolve', '*.test=127.0.0.1'];
const DAY_MS = 24 * 3600 * 1000;

beforeAll(async () => {
  web = await startFixtureWeb();
  testDb = await createTestDatabase();
});
afterAll(async () => {
  await web?.close();
  await testDb?.close();
});

function fetchCli(host: string, extra: string[] = []): Promise<CliRun> {
  return runCli(['fetch', web.baseUrl(host), ...NETWORK, ...extra]);
}

async function fetchJson(host: string, extra: string[] = []) {
  const run = await fetchCli(host, ['--json', ...extra]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

async function count(table: string, where = sql`true`): Promise<number> {
  const rows = await testDb.db.execute<{ n: string }>(sql`select count(*) as n from ${sql.identifier(table)} where ${where}`);
  return Number(rows.rows[0]!.n);
}

describe('fetch: text report of one fetch (R-10..R-17)', () => {
  it('ok: outcome, status, bytes, cache lifetime, policy and lint summary', async () => {
    const run = await fetchCli('ok.test');
    const size = Buffer.byteLength(OK_BODY);
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        `robots.txt  http://ok.test:${web.port}/robots.txt`,
        'outcome     ok',
        'status      200',
        `body        ${size} bytes kept, full size ${size}, not truncated`,
        'cache       86400 s (default)',
        'policy      rules (R-10: robots.txt fetched: its rules apply)',
        'parsed      1 group, 2 rules, 1 sitemap',
        'lint        0 errors, 0 warnings, 0 info',
        '',
      ].join('\n'),
    });
  });

  it.each([
    ['s404.test', 'unavailable', '404', 'allow_all (R-12: 4xx: no robots.txt, everything allowed)'],
    ['s503.test', 'server_error', '503', 'disallow_all (R-13: 5xx: everything disallowed)'],
    ['s429.test', 'rate_limited', '429', 'allow_all (D-4: 429: everything allowed, reported apart)'],
  ])('%s: %s, exit code 0 (an answer is an observation)', async (host, outcome, status, policy) => {
    const run = await fetchCli(host);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`\noutcome     ${outcome}\nstatus      ${status}\n`);
    expect(run.stdout).toContain(`\npolicy      ${policy}\n`);
    expect(run.stdout).not.toContain('lint');
  });

  it('R-11: each redirect hop with its status and Location, then the final URL', async () => {
    const run = await fetchCli('redirect-2.test');
    const base = `http://redirect-2.test:${web.port}`;
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      [
        'status      200',
        `redirect 1  301 ${base}/robots.txt -> ${base}/r/1`,
        `redirect 2  302 ${base}/r/1 -> /r/2`,
        `final url   ${base}/r/2`,
        '',
      ].join('\n'),
    );
  });

  it('R-17: the cache lifetime the response asks for (max-age minus Age)', async () => {
    const run = await fetchCli('cached.test');
    expect(run.stdout).toContain('\ncache       540 s (max-age)\n');
  });

  it('R-15: no response is a network error with its code, full disallow, exit code 0', async () => {
    const port = await closedPort();
    const run = await runCli(['fetch', `http://127.0.0.1:${port}`, ...NETWORK]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('\noutcome     network_error\nstatus      none (no response)\nerror       ECONNREFUSED');
    expect(run.stdout).toContain('\ncache       none (no response)\npolicy      disallow_all (R-15: no response: everything disallowed)\n');
  });

  it(`lists the first ${LINT_PREVIEW_COUNT} diagnostics and counts the rest`, async () => {
    const body = ['User-agent: *', ...Array.from({ length: 8 }, (_, i) => `Disalow: /typo-${i}/`), ''].join('\n');
    web.set('lint-many.test', { body });
    const diagnostics = lintRobotsTxt(body);
    expect(diagnostics.length).toBeGreaterThan(LINT_PREVIEW_COUNT);
    const run = await fetchCli('lint-many.test');
    const preview = diagnostics.slice(0, LINT_PREVIEW_COUNT).map((d) => `  ${formatDiagnostic(d)}\n`);
    expect(run.stdout).toContain(`${preview.join('')}  … ${diagnostics.length - LINT_PREVIEW_COUNT} more (robots-audit lint)\n`);
  });
});

describe('fetch --json: one object with every field', () => {
  it('ok', async () => {
    const out = await fetchJson('ok.test');
    const size = Buffer.byteLength(OK_BODY);
    expect(out).toEqual({
      origin: `http://ok.test:${web.port}`,
      url: `http://ok.test:${web.port}/robots.txt`,
      outcome: 'ok',
      status: 200,
      errorCode: null,
      errorMessage: null,
      hops: [],
      finalUrl: `http://ok.test:${web.port}/robots.txt`,
      remoteAddress: '127.0.0.1',
      startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      durationMs: expect.any(Number),
      contentType: 'text/plain',
      bodyBytes: size,
      fullSize: size,
      truncated: false,
      cache: { lifetimeSeconds: 86_400, source: 'default', expiresAt: expect.any(String) },
      policy: { kind: 'rules', reason: 'R-10', fallback: false, description: 'robots.txt fetched: its rules apply' },
      summary: { groups: 1, rules: 2, sitemaps: 1 },
      lint: { errors: 0, warnings: 0, infos: 0, diagnostics: [] },
      stored: null,
    });
  });

  it('R-12: 404 has no body, summary or lint', async () => {
    expect(await fetchJson('s404.test')).toMatchObject({ outcome: 'unavailable', status: 404, bodyBytes: 0, summary: null, lint: null, policy: { kind: 'allow_all', reason: 'R-12' } });
  });

  it('R-13: 503 is a full disallow (no history without --store)', async () => {
    expect(await fetchJson('s503.test')).toMatchObject({ outcome: 'server_error', status: 503, policy: { kind: 'disallow_all', reason: 'R-13', fallback: false } });
  });

  it('R-11: hops in order, final URL', async () => {
    const base = `http://redirect-3.test:${web.port}`;
    expect(await fetchJson('redirect-3.test')).toMatchObject({
      outcome: 'ok',
      hops: [
        { url: `${base}/robots.txt`, status: 301, location: `${base}/r/1` },
        { url: `${base}/r/1`, status: 302, location: '/r/2' },
        { url: `${base}/r/2`, status: 303, location: `${base}/r/3` },
      ],
      finalUrl: `${base}/r/3`,
    });
  });
});

describe('fetch: bad input and network options', () => {
  it('a URL that cannot be parsed: exit code 2 and the reason', async () => {
    const run = await runCli(['fetch', 'http://exa mple.com']);
    expect(run).toEqual({ code: 2, stdout: '', stderr: 'robots-audit: invalid URL "http://exa mple.com": not a URL\n' });
  });

  it('a bad --allow-network: exit code 2, nothing fetched', async () => {
    web.resetCounters();
    const run = await runCli(['fetch', web.baseUrl('ok.test'), '--allow-network', '10.0.0.0/33']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('invalid allowNetworks entry "10.0.0.0/33"');
    expect(web.requestCount()).toBe(0);
  });

  it('a bad --resolve: exit code 2', async () => {
    const run = await runCli(['fetch', web.baseUrl('ok.test'), '--resolve', 'nonsense']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('invalid resolve pin "nonsense"');
  });

  it('without --allow-network the SSRF guard refuses the loopback: a network error, nothing sent', async () => {
    web.resetCounters();
    const run = await runCli(['fetch', web.baseUrl('127.0.0.1'), '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'network_error', errorCode: 'SSRF_BLOCKED', policy: { kind: 'disallow_all', reason: 'R-15' } });
    expect(web.requestCount()).toBe(0);
  });

  it('the flags add to ROBOTS_AUDIT_ALLOW_NETWORKS and ROBOTS_AUDIT_RESOLVE; a pin given here wins', async () => {
    const env = { ROBOTS_AUDIT_ALLOW_NETWORKS: '127.0.0.0/8', ROBOTS_AUDIT_RESOLVE: 'ok.test=10.255.255.1' };
    const fromEnv = await runCli(['fetch', web.baseUrl('ok.test'), '--json'], { env });
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ outcome: 'network_error', errorCode: 'SSRF_BLOCKED' });
    const overridden = await runCli(['fetch', web.baseUrl('ok.test'), '--json', '--resolve', 'ok.test=127.0.0.1'], { env });
    expect(JSON.parse(overridden.stdout)).toMatchObject({ outcome: 'ok', remoteAddress: '127.0.0.1' });
  });

  it('--resolve sends a name to the fixture server', async () => {
    const pinned = await runCli(['fetch', web.baseUrl('ok.test'), '--allow-network', '127.0.0.0/8', '--resolve', 'ok.test=127.0.0.1', '--json']);
    expect(JSON.parse(pinned.stdout)).toMatchObject({ outcome: 'ok', remoteAddress: '127.0.0.1' });
  });
});

describe('fetch --store: a manual run with its night (attempt, body, snapshot, verdicts)', () => {
  beforeEach(async () => {
    await testDb.db.execute(sql`truncate sites, portfolios, audit_runs, bodies, responses restart identity cascade`);
  });

  const store = (host: string, extra: string[] = []) => fetchCli(host, ['--store', '--database-url', testDb.url, ...extra]);

  it('issue 17: a store that fails ends its run (failed), with its one site listed and a night_failed night', async () => {
    // Postgres refuses the ok night of this site (a trigger, as a failing constraint would).
    await testDb.db.execute(sql.raw(`
      create or replace function refuse_ok_night() returns trigger language plpgsql as $$
      begin if new.outcome = 'ok' then raise exception 'refused for the test' using errcode = '22003'; end if; return new; end $$;
      create trigger refuse_ok_night before insert on snapshots for each row execute function refuse_ok_night();`));
    try {
      const run = await store('ok.test');
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain('refused for the test');
    } finally {
      await testDb.db.execute(sql.raw('drop trigger refuse_ok_night on snapshots; drop function refuse_ok_night();'));
    }
    const runs = await testDb.db.execute<{ status: string; site_ids: number[]; finished: boolean }>(sql`select status, site_ids, finished_at is not null as finished from audit_runs`);
    const [site] = (await testDb.db.execute<{ id: number }>(sql`select id from sites`)).rows;
    expect(runs.rows).toEqual([{ status: 'failed', site_ids: [site!.id], finished: true }]);
    const nights = await testDb.db.execute<{ outcome: string; error_code: string }>(sql`select outcome::text, error_code from snapshots`);
    expect(nights.rows).toEqual([{ outcome: 'night_failed', error_code: 'NIGHT_FAILED' }]);
  });

  it('adds the site, records a completed manual run, its attempt, snapshot and verdicts, and says so', async () => {
    const run = await store('ok.test');
    expect(run.code).toBe(0);
    const origin = `http://ok.test:${web.port}`;
    const runs = await testDb.db.execute<{ run_key: string; trigger: string; status: string; sites_total: number; finished: boolean }>(
      sql`select run_key, trigger, status, sites_total, finished_at is not null as finished from audit_runs`,
    );
    expect(runs.rows).toEqual([{ run_key: expect.stringMatching(new RegExp(`^fetch-${origin.replace(/[.]/g, '\\.')}-\\d{4}-\\d\\d-\\d\\dT`)), trigger: 'manual', status: 'completed', sites_total: 1, finished: true }]);
    expect(run.stdout).toContain(`\nstored      run ${runs.rows[0]!.run_key} (id 1); site added\n`);

    const repos = createRepos(testDb.db);
    const site = await repos.sites.findSiteByOrigin(origin);
    expect(site).not.toBeNull();
    const attempts = await repos.snapshots.attemptsFor(1, site!.id);
    expect(attempts).toMatchObject([{ attempt: 1, outcome: 'ok', status: 200, requestedUrl: `${origin}/robots.txt`, bodySha256: sha256Of(Buffer.from(OK_BODY)) }]);
    const snapshot = await repos.snapshots.snapshotFor(1, site!.id);
    expect(snapshot).toMatchObject({ outcome: 'ok', policy: 'rules', policyReason: 'R-10', rulesRunId: null, attempts: 1 });
    expect(await repos.bodies.getBodyRow(snapshot!.bodyId!)).toMatchObject({ content: Buffer.from(OK_BODY), groups: 1, rules: 2, sitemaps: 1 });
    // The night as a nightly run stores it: the baseline change and the root's verdicts.
    expect(await count('snapshot_changes', sql`kinds = '{first_seen}'`)).toBe(1);
    expect(await count('verdicts', sql`from_run_id = 1 and to_run_id is null`)).toBeGreaterThan(0);
    // The site is monitored from now on, root tracked URL included.
    expect(await count('tracked_urls', sql`is_root`)).toBe(1);
  });

  it('twice: two runs and two snapshots, the unchanged body stored once', async () => {
    expect((await store('ok.test')).code).toBe(0);
    const second = await store('ok.test');
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/\nstored {6}run fetch-\S+ \(id 2\)\n$/);
    expect([await count('audit_runs'), await count('snapshots'), await count('fetch_attempts'), await count('bodies'), await count('sites')]).toEqual([2, 2, 2, 1, 1]);
  });

  it('--json carries the stored run and snapshot', async () => {
    const out = await fetchJson('s404.test', ['--store', '--database-url', testDb.url]);
    expect(out.stored).toEqual({ runId: 1, runKey: expect.stringMatching(/^fetch-http:\/\/s404\.test:/), siteAdded: true });
    expect(await count('snapshots', sql`outcome = 'unavailable' and policy = 'allow_all' and body_id is null`)).toBe(1);
  });

  it('D-3: the stored policy counts with the site\'s history; without --store the same answer is a plain R-13', async () => {
    const host = 'history.test';
    const origin = `http://${host}:${web.port}`;
    web.set(host, { status: 503, body: 'down\n' });
    const repos = createRepos(testDb.db);
    await repos.sites.upsertSites([{ origin }]);
    const site = (await repos.sites.findSiteByOrigin(origin))!;
    const good = Buffer.from('User-agent: *\nDisallow: /old/\n');
    const goodAt = new Date(Date.now() - 45 * DAY_MS);
    const downAt = new Date(Date.now() - 40 * DAY_MS);
    // Two earlier nights, stored as runs store them: the rules 45 days ago, a 503 since 40 days.
    const { run: goodRun } = await repos.runs.createRun({ runKey: 'history-good', trigger: 'manual', runAt: goodAt });
    await storeSingleNight(testDb.pool, goodRun.id, site.id, fetchResult({ origin, outcome: 'ok', body: good, startedAt: goodAt }));
    const { run: downRun } = await repos.runs.createRun({ runKey: 'history-down', trigger: 'manual', runAt: downAt });
    await storeSingleNight(testDb.pool, downRun.id, site.id, fetchResult({ origin, outcome: 'server_error', status: 503, startedAt: downAt }));

    const plain = await fetchJson(host);
    expect(plain.policy).toMatchObject({ kind: 'disallow_all', reason: 'R-13', fallback: false });

    const withHistory = await fetchJson(host, ['--store', '--database-url', testDb.url]);
    expect(withHistory.policy).toMatchObject({ kind: 'rules', reason: 'D-3', fallback: true });
    const latest = await repos.snapshots.latestSnapshot(site.id);
    expect(latest).toMatchObject({ outcome: 'server_error', policy: 'rules', policyReason: 'D-3', rulesRunId: goodRun.id, unreachableSince: downAt });
    expect(withHistory.stored).toMatchObject({ siteAdded: false });
  });

  it('a database that cannot be reached: exit code 2 and the reason', async () => {
    const port = await closedPort();
    const run = await store('ok.test', ['--database-url', `postgres://postgres@127.0.0.1:${port}/nothing`]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^robots-audit: .*ECONNREFUSED/);
  });
});
