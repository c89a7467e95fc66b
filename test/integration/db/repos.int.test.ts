/**
 * The repo modules and the night store against a real database: every write idempotent (a
 * retried job changes nothing), a batch of nights written in one transaction or not at all, a
 * night computed from a state that moved on refused, and the history read back by the run clock.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRepos, loadBody, loadBodyBySha, loadRunClock, loadSiteContexts, loadSpansInForce, storeNights } from '../../../src/db/index.js';
import { sha256Of } from '../../../src/night/keys.js';
import type { Repos } from '../../../src/db/index.js';
import { siteLatest } from '../../../src/db/schema.js';
import type { FetchOutcome } from '../../../src/policy/index.js';
import { storeSingleNight } from '../../../src/services/night-runner.js';
import { computeSiteNight } from '../../../src/services/site-night.js';
import { fetchResult } from '../../helpers/fetch-results.js';
import type { TestDatabase } from '../../helpers/test-db.js';
import { createTestDatabase } from '../../helpers/test-db.js';

let testDb: TestDatabase;
let repos: Repos;

beforeAll(async () => {
  testDb = await createTestDatabase();
  repos = createRepos(testDb.db);
});
afterAll(async () => {
  await testDb?.close();
});
beforeEach(async () => {
  await testDb.db.execute(sql`truncate sites, portfolios, audit_runs, bodies, responses restart identity cascade`);
});

async function count(table: string): Promise<number> {
  const rows = await testDb.db.execute<{ n: string }>(sql`select count(*) as n from ${sql.identifier(table)}`);
  return Number(rows.rows[0]!.n);
}

const NIGHT = (day: number) => new Date(Date.UTC(2026, 10, day, 3, 0, 0));

async function site(origin = 'https://a.example'): Promise<number> {
  await repos.sites.addSites([origin]);
  return (await repos.sites.findSiteByOrigin(origin))!.id;
}

async function run(day: number): Promise<number> {
  const { run: row } = await repos.runs.createRun({ runKey: `nightly-2026-11-${day}`, trigger: 'scheduled', runAt: NIGHT(day) });
  return row.id;
}

const BODY_A = 'User-agent: *\nDisallow: /a/\n';
const BODY_B = 'User-agent: *\nDisallow: /b/\n';

async function originOf(siteId: number): Promise<string> {
  return (await repos.sites.getSite(siteId))!.origin;
}

/** A site's night of a run, computed and stored as the pipeline does it (one attempt). */
async function night(runId: number, siteId: number, o: { outcome: FetchOutcome; status?: number; body?: string | Buffer; headers?: Record<string, string> }) {
  const runAt = (await repos.runs.getRun(runId))!.runAt;
  return storeSingleNight(testDb.pool, runId, siteId, fetchResult({ origin: await originOf(siteId), startedAt: runAt, ...o }));
}

/** A night computed now from the site's state as it is now, to be stored later. */
async function computedNight(runId: number, siteId: number, body: string) {
  const run = (await loadRunClock(testDb.pool, runId))!;
  const ctx = (await loadSiteContexts(testDb.pool, run, [siteId])).get(siteId)!;
  return computeSiteNight(
    {
      siteId,
      origin: ctx.origin!,
      runId,
      runAt: run.runAt,
      result: fetchResult({ origin: ctx.origin!, outcome: 'ok', body, startedAt: run.runAt }),
      attempt: 1,
      previous: ctx.state,
      targets: ctx.targets,
      targetsHash: ctx.targetsHash,
      catalogueTokens: ['googlebot', 'gptbot'],
      nextNight: null,
    },
    { body: (id) => loadBody(testDb.pool, id), bodyBySha: (sha) => loadBodyBySha(testDb.pool, sha), spansInForce: (ids, previous, replayed) => loadSpansInForce(testDb.pool, ids, previous, replayed) },
  );
}

async function store(...nights: Awaited<ReturnType<typeof computedNight>>[]) {
  const client = await testDb.pool.connect();
  try {
    return await storeNights(client, nights, []);
  } finally {
    client.release();
  }
}

describe('audit runs: run_key makes a second firing add nothing', () => {
  it('createRun twice returns the same row', async () => {
    const input = { runKey: 'nightly-2026-11-22', trigger: 'scheduled' as const, runAt: NIGHT(22), sitesTotal: 3 };
    const first = await repos.runs.createRun(input);
    const second = await repos.runs.createRun({ ...input, sitesTotal: 99 });
    expect(first.created).toBe(true);
    expect(second).toEqual({ run: first.run, created: false });
    expect(await count('audit_runs')).toBe(1);
  });

  it('getRunProgress is the run without its site list; getRun has the list', async () => {
    const siteIds = Array.from({ length: 1_000 }, (_, i) => i + 1);
    const { run: created } = await repos.runs.createRun({ runKey: 'manual-list', trigger: 'manual', runAt: NIGHT(21), sitesTotal: siteIds.length, siteIds });
    const { siteIds: stored, ...rest } = (await repos.runs.getRun(created.id))!;
    expect(stored).toEqual(siteIds);
    const progress = await repos.runs.getRunProgress(created.id);
    expect(progress).toEqual(rest);
    expect(progress).not.toHaveProperty('siteIds');
    expect(await repos.runs.getRunProgress(created.id + 1_000)).toBeNull();
  });

  it('addCounts sets the given keys and keeps the others; repeating it changes nothing', async () => {
    const runId = await run(1);
    await repos.runs.addCounts(runId, { alerts: { critical: 1 }, deliveries: { ok: 2 } });
    await repos.runs.addCounts(runId, { alerts: { warning: 3 } });
    await repos.runs.addCounts(runId, { alerts: { warning: 3 } });
    expect((await repos.runs.getRun(runId))!.counts).toEqual({ alerts: { critical: 1, warning: 3 }, deliveries: { ok: 2 } });
  });

  it('finishRun counts the run\'s snapshots and changes, keeps other groups, and is repeatable', async () => {
    const a = await site('https://a.example');
    const b = await site('https://b.example');
    const runId = await run(1);
    await night(runId, a, { outcome: 'ok', body: BODY_A });
    await night(runId, b, { outcome: 'server_error', status: 503 });
    await testDb.db.execute(sql`update snapshot_changes set kinds = '{first_seen,outcome}' where site_id = ${b}`);
    await repos.runs.addCounts(runId, { alerts: { critical: 1 } });
    const finished = await repos.runs.finishRun(runId, { status: 'completed', finishedAt: NIGHT(2) });
    const expected = {
      outcome: { ok: 1, server_error: 1 },
      policy: { rules: 1, disallow_all: 1 },
      change: { first_seen: 2, outcome: 1 },
      alerts: { critical: 1 },
    };
    expect(finished).toMatchObject({ status: 'completed', finishedAt: NIGHT(2), counts: expected });
    const again = await repos.runs.finishRun(runId, { status: 'completed', finishedAt: NIGHT(3) });
    expect(again).toMatchObject({ finishedAt: NIGHT(2), counts: expected });
  });
});

describe('night store: many nights in one transaction, each once', () => {
  it('first nights: a snapshot each, a body once per content, an answer once per headers, a state each', async () => {
    const [a, b, c] = [await site('https://a.example'), await site('https://b.example'), await site('https://c.example')];
    const runId = await run(1);
    const result = await store(await computedNight(runId, a, BODY_A), await computedNight(runId, b, BODY_A), await computedNight(runId, c, BODY_B));
    expect([...result.stored].sort()).toEqual([`${a}:${runId}`, `${b}:${runId}`, `${c}:${runId}`].sort());
    expect([await count('snapshots'), await count('bodies'), await count('responses'), await count('site_state')]).toEqual([3, 2, 1, 3]);
    const sa = await repos.snapshots.snapshotFor(runId, a);
    const sb = await repos.snapshots.snapshotFor(runId, b);
    expect(sa!.bodyId).toBe(sb!.bodyId);
    expect(await repos.bodies.getBodyRow(sa!.bodyId!)).toMatchObject({ sha256: sha256Of(Buffer.from(BODY_A)), size: BODY_A.length, groups: 1, rules: 1 });
    // The run counts each night once.
    expect((await repos.runs.getRun(runId))!).toMatchObject({ sitesDone: 3, counts: { outcome: { ok: 3 }, policy: { rules: 3 }, change: { first_seen: 3 } } });
  });

  it('the same nights stored again (a job run twice): nothing written, nothing counted', async () => {
    const a = await site();
    const runId = await run(1);
    const first = await computedNight(runId, a, BODY_A);
    await store(first);
    const tables = ['snapshots', 'bodies', 'responses', 'site_state', 'verdicts', 'snapshot_changes'];
    const before = await Promise.all(tables.map(count));
    const again = await store(first);
    expect(again.stored.size).toBe(0);
    expect(await Promise.all(tables.map(count))).toEqual(before);
    expect((await repos.runs.getRun(runId))!.sitesDone).toBe(1);
  });

  it('an unchanged night adds its snapshot and nothing else: same body, same answer, no verdict, no change', async () => {
    const a = await site();
    await night(await run(1), a, { outcome: 'ok', body: BODY_A });
    const tables = ['bodies', 'responses', 'verdicts', 'snapshot_changes', 'verdict_flips', 'alerts'];
    const before = await Promise.all(tables.map(count));
    const run2 = await run(2);
    await night(run2, a, { outcome: 'ok', body: BODY_A });
    expect(await Promise.all(tables.map(count))).toEqual(before);
    expect(await count('snapshots')).toBe(2);
    const state = await testDb.pool.query('select run_id, failed_nights from site_state where site_id = $1', [a]);
    expect(state.rows).toEqual([{ run_id: run2, failed_nights: 0 }]);
  });

  it('a night computed from a state that moved on is stale: nothing of its batch is written', async () => {
    const [a, b] = [await site('https://a.example'), await site('https://b.example')];
    await night(await run(1), a, { outcome: 'ok', body: BODY_A });
    const run2 = await run(2);
    const run3 = await run(3);
    // Both computed from night 1; night 3 is stored first, so night 2's state is stale.
    const late = await computedNight(run2, a, BODY_B);
    await store(await computedNight(run3, a, BODY_A));
    const result = await store(late, await computedNight(run2, b, BODY_B));
    expect([...result.stale]).toEqual([`${a}:${run2}`]);
    expect(await repos.snapshots.snapshotFor(run2, a)).toBeNull();
    expect(await repos.snapshots.snapshotFor(run2, b)).toBeNull();
    expect((await repos.runs.getRun(run2))!.sitesDone).toBe(0);
  });

  it('R-13: retried attempts are kept once each; the fetch_attempts view shows them before the final one', async () => {
    const a = await site();
    const runId = await run(1);
    const origin = await originOf(a);
    const runAt = NIGHT(1);
    const failed = (n: number) => ({
      siteId: a,
      runId,
      attempt: n,
      startedAt: new Date(runAt.getTime() + n * 1000),
      durationMs: 80,
      response: null,
      newResponse: null,
      fullSize: null,
      outcome: 'network_error' as const,
      status: null,
      errorCode: 'ECONNRESET',
      errorMessage: 'read ECONNRESET',
      retryUntil: new Date(runAt.getTime() + n * 1000 + 30_000),
      holdsRun: true,
    });
    const client = await testDb.pool.connect();
    try {
      await storeNights(client, [], [failed(1), failed(2)]);
      await storeNights(client, [], [failed(1)]);
    } finally {
      client.release();
    }
    await storeSingleNight(testDb.pool, runId, a, { ...fetchResult({ origin, outcome: 'ok', body: BODY_A, startedAt: new Date(runAt.getTime() + 3000) }) });
    await testDb.pool.query('update snapshots set attempts = 3 where site_id = $1', [a]);
    const attempts = await repos.snapshots.attemptsFor(runId, a);
    expect(attempts.map((x) => [x.attempt, x.final, x.outcome, x.errorCode])).toEqual([
      [1, false, 'network_error', 'ECONNRESET'],
      [2, false, 'network_error', 'ECONNRESET'],
      [3, true, 'ok', null],
    ]);
    expect(attempts[2]).toMatchObject({ requestedUrl: `${origin}/robots.txt`, finalUrl: `${origin}/robots.txt`, hops: [], remoteAddress: '203.0.113.7', bodyBytes: BODY_A.length, fullSize: BODY_A.length });
  });

  it('R-11: the redirect chain of an answer is kept once, with its final URL', async () => {
    const a = await site();
    const runId = await run(1);
    const origin = await originOf(a);
    const hops = [{ url: `${origin}/robots.txt`, status: 301, location: 'https://www.a.example/robots.txt' }];
    const result = { ...fetchResult({ origin, outcome: 'ok', body: BODY_A, startedAt: NIGHT(1) }), hops, finalUrl: 'https://www.a.example/robots.txt' };
    await storeSingleNight(testDb.pool, runId, a, result);
    const [attempt] = await repos.snapshots.attemptsFor(runId, a);
    expect(attempt).toMatchObject({ finalUrl: 'https://www.a.example/robots.txt', hops });
  });

  it('a NUL byte from a website (in a diff, a header) is stored as U+FFFD, not a failed night', async () => {
    const a = await site();
    await night(await run(1), a, { outcome: 'ok', body: 'User-agent: *\nDisallow: /x\n' });
    const run2 = await run(2);
    await night(run2, a, { outcome: 'ok', body: Buffer.from('User-agent: *\nDisallow: /x\u0000y\n'), headers: { etag: '"a\u0000b"' } });
    const change = await repos.changes.changeOf(run2, a);
    // C20: Google's parser stops reading a line at its NUL byte, so no crawler reads a difference.
    expect(change?.kinds).toEqual(['raw', 'comments_only']);
    expect(change?.textDiff).toContain('+Disallow: /x\uFFFDy');
    expect((await testDb.pool.query('select etag from responses order by id desc limit 1')).rows[0]).toEqual({ etag: '"a\uFFFDb"' });
  });
});

describe('night history (D-3, R-14): by the run clock', () => {
  it('history is newest first by run clock, a backfilled night in its place; latestSnapshot the newest', async () => {
    const a = await site();
    const r2 = await run(2);
    const r3 = await run(3);
    await night(r2, a, { outcome: 'ok', body: BODY_A });
    await night(r3, a, { outcome: 'server_error', status: 503 });
    // Night 1 replayed after nights 2 and 3.
    const r1 = await run(1);
    await night(r1, a, { outcome: 'ok', body: BODY_B });
    expect((await repos.snapshots.history(a)).map((n) => n.runId)).toEqual([r3, r2, r1]);
    expect((await repos.snapshots.latestSnapshot(a))?.runId).toBe(r3);
    // The state stays the latest night's.
    expect((await testDb.pool.query('select run_id from site_state where site_id = $1', [a])).rows).toEqual([{ run_id: r3 }]);
  });

  it('site_latest: one row per site with its latest night, the body summary and the failed nights', async () => {
    const [a, b] = [await site('https://a.example'), await site('https://b.example')];
    await night(await run(1), a, { outcome: 'ok', body: BODY_A });
    const r2 = await run(2);
    await night(r2, a, { outcome: 'server_error', status: 503 });
    await night(r2, b, { outcome: 'ok', body: BODY_B });
    const rows = await testDb.db.select().from(siteLatest).orderBy(siteLatest.siteId);
    expect(rows.map((r) => [r.siteId, r.runId, r.outcome, r.policy, r.failedNights, r.rules])).toEqual([
      [a, r2, 'server_error', 'disallow_all', 1, 0],
      [b, r2, 'ok', 'rules', 0, 1],
    ]);
  });

  it('removing a site removes its history (cascade): nights, attempts, state, verdicts', async () => {
    const a = await site();
    await night(await run(1), a, { outcome: 'ok', body: BODY_A });
    await repos.sites.removeSites(['https://a.example']);
    expect([await count('snapshots'), await count('site_state'), await count('verdicts'), await count('snapshot_changes')]).toEqual([0, 0, 0, 0]);
  });
});

describe('sites for a run', () => {
  it('enabled sites only, in id order, of one portfolio when given', async () => {
    await repos.sites.addSites(['a.example', 'b.example'], { portfolio: 'shop' });
    await repos.sites.addSites(['c.example', 'd.example']);
    await testDb.db.execute(sql`update sites set enabled = false where origin = 'https://b.example'`);
    const shop = await repos.portfolios.findPortfolio('shop');
    const id = async (origin: string) => (await repos.sites.findSiteByOrigin(origin))!.id;
    const [a, c, d] = [await id('https://a.example'), await id('https://c.example'), await id('https://d.example')];
    expect(await repos.sites.enabledSiteIdsForRun()).toEqual([a, c, d].sort((x, y) => x - y));
    expect(await repos.sites.enabledSiteIdsForRun({ portfolioId: shop!.id })).toEqual([a]);
    expect(await repos.sites.enabledSiteIdsForRun({ portfolioId: shop!.id + 100 })).toEqual([]);
  });

  it('portfolios are created once and list their sizes', async () => {
    await repos.sites.addSites(['a.example', 'b.example'], { portfolio: 'shop' });
    await repos.sites.addSites(['a.example'], { portfolio: 'shop' });
    expect((await repos.portfolios.listPortfolios()).map((p) => [p.name, p.siteCount])).toEqual([['shop', 2]]);
  });
});
