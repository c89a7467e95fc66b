/**
 * The repo modules against a real database: every write idempotent (a retried job changes
 * nothing), multi-row writes atomic, and the history queries the policy needs (D-3, R-14).
 */
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AttemptInput } from '../../../src/db/attempts.repo.js';
import { createRepos } from '../../../src/db/index.js';
import type { Repos } from '../../../src/db/index.js';
import { siteLatest } from '../../../src/db/schema.js';
import type { SnapshotInput } from '../../../src/db/snapshots.repo.js';
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
  await testDb.db.execute(sql`truncate sites, portfolios, audit_runs, bodies restart identity cascade`);
});

async function count(table: string): Promise<number> {
  const rows = await testDb.db.execute<{ n: string }>(sql`select count(*) as n from ${sql.identifier(table)}`);
  return Number(rows.rows[0]!.n);
}

const NIGHT = (day: number) => new Date(Date.UTC(2026, 10, day, 3, 0, 0));

async function site(origin = 'https://a.example'): Promise<number> {
  await repos.sites.addSites([origin]);
  return (await repos.sites.enabledSitesForRun()).find((s) => s.origin === origin)!.id;
}

async function run(day: number): Promise<number> {
  const { run: row } = await repos.runs.createRun({ runKey: `nightly-2026-11-${day}`, trigger: 'scheduled', runAt: NIGHT(day) });
  return row.id;
}

function attempt(runId: number, siteId: number, n: number, overrides: Partial<AttemptInput> = {}): AttemptInput {
  return {
    runId,
    siteId,
    attempt: n,
    startedAt: NIGHT(1),
    durationMs: 120,
    requestedUrl: 'https://a.example/robots.txt',
    finalUrl: 'https://a.example/robots.txt',
    hops: [],
    status: 200,
    outcome: 'ok',
    bodyBytes: 0,
    truncated: false,
    ...overrides,
  };
}

function snapshot(runId: number, siteId: number, day: number, overrides: Partial<SnapshotInput> = {}): SnapshotInput {
  return {
    runId,
    siteId,
    fetchedAt: NIGHT(day),
    outcome: 'ok',
    status: 200,
    attempts: 1,
    policy: 'rules',
    policyReason: 'R-10',
    policySnapshotId: 'self',
    ...overrides,
  };
}

describe('bodies: stored once by content hash', () => {
  it('putBody twice stores one row and returns the sha256 both times', async () => {
    const body = Buffer.from('User-agent: *\nDisallow: /private/\n');
    const first = await repos.bodies.putBody(body);
    const second = await repos.bodies.putBody(new Uint8Array(body));
    expect(first.equals(createHash('sha256').update(body).digest())).toBe(true);
    expect(second.equals(first)).toBe(true);
    expect(await count('bodies')).toBe(1);
    expect((await repos.bodies.getBody(first))?.equals(body)).toBe(true);
  });

  it('an empty body is a body too', async () => {
    const sha = await repos.bodies.putBody(new Uint8Array(0));
    expect((await repos.bodies.getBody(sha))?.length).toBe(0);
  });
});

describe('fetch attempts: every attempt kept, once (D-3, R-13)', () => {
  it('recording the same attempt twice writes one row', async () => {
    const siteId = await site();
    const runId = await run(1);
    expect(await repos.attempts.recordAttempt(attempt(runId, siteId, 1))).toEqual({ created: true });
    expect(await repos.attempts.recordAttempt(attempt(runId, siteId, 1, { durationMs: 999 }))).toEqual({ created: false });
    expect(await count('fetch_attempts')).toBe(1);
    const [stored] = await repos.attempts.attemptsFor(runId, siteId);
    expect(stored!.durationMs).toBe(120);
  });

  it('without a redirect, final_url and hops are stored as NULL and read back whole', async () => {
    const siteId = await site();
    const runId = await run(1);
    await repos.attempts.recordAttempt(attempt(runId, siteId, 1));
    const raw = await testDb.db.execute<{ final_url: string | null; hops: unknown }>(sql`select final_url, hops from fetch_attempts`);
    expect(raw.rows).toEqual([{ final_url: null, hops: null }]);
    const [read] = await repos.attempts.attemptsFor(runId, siteId);
    expect(read).toMatchObject({ finalUrl: 'https://a.example/robots.txt', hops: [] });
  });

  it('R-11: a redirect chain is kept as recorded', async () => {
    const siteId = await site();
    const runId = await run(1);
    const hops = [{ url: 'https://a.example/robots.txt', status: 301, location: 'https://www.a.example/robots.txt' }];
    await repos.attempts.recordAttempt(attempt(runId, siteId, 1, { finalUrl: 'https://www.a.example/robots.txt', hops }));
    const [read] = await repos.attempts.attemptsFor(runId, siteId);
    expect(read).toMatchObject({ finalUrl: 'https://www.a.example/robots.txt', hops });
  });

  it('R-13: retries within a run are separate rows, in order', async () => {
    const siteId = await site();
    const runId = await run(1);
    const n = await repos.attempts.recordAttempts([
      attempt(runId, siteId, 1, { outcome: 'server_error', status: 503 }),
      attempt(runId, siteId, 2, { outcome: 'network_error', status: null, errorCode: 'ECONNRESET' }),
      attempt(runId, siteId, 3),
    ]);
    expect(n).toBe(3);
    expect((await repos.attempts.attemptsFor(runId, siteId)).map((a) => a.outcome)).toEqual(['server_error', 'network_error', 'ok']);
  });
});

describe('audit runs: run_key makes a second firing add nothing', () => {
  it('createRun twice returns the same row', async () => {
    const input = { runKey: 'nightly-2026-11-22', trigger: 'scheduled' as const, runAt: NIGHT(22), sitesTotal: 3 };
    const first = await repos.runs.createRun(input);
    const second = await repos.runs.createRun({ ...input, sitesTotal: 99 });
    expect(first.created).toBe(true);
    expect(second).toEqual({ run: first.run, created: false });
    expect(await count('audit_runs')).toBe(1);
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
    await repos.snapshots.insertSnapshot(snapshot(runId, a, 1));
    const { snapshot: sb } = await repos.snapshots.insertSnapshot(
      snapshot(runId, b, 1, { outcome: 'server_error', status: 503, policy: 'disallow_all', policyReason: 'R-13', policySnapshotId: null }),
    );
    await testDb.db.execute(
      sql`insert into snapshot_changes (snapshot_id, run_id, site_id, outcome_to, policy_to, kinds) values (${sb.id}, ${runId}, ${b}, 'server_error', 'disallow_all', '{first_seen,outcome}')`,
    );
    await repos.runs.addCounts(runId, { alerts: { critical: 1 } });
    const finished = await repos.runs.finishRun(runId, { status: 'completed', finishedAt: NIGHT(2) });
    const expected = {
      outcome: { ok: 1, server_error: 1 },
      policy: { rules: 1, disallow_all: 1 },
      change: { first_seen: 1, outcome: 1 },
      alerts: { critical: 1 },
    };
    expect(finished).toMatchObject({ status: 'completed', finishedAt: NIGHT(2), counts: expected });
    const again = await repos.runs.finishRun(runId, { status: 'completed', finishedAt: NIGHT(3) });
    expect(again).toMatchObject({ finishedAt: NIGHT(2), counts: expected });
  });
});

describe('snapshots: exactly one per site per run', () => {
  it('insertSnapshot twice keeps one row and returns it both times', async () => {
    const siteId = await site();
    const runId = await run(1);
    const first = await repos.snapshots.insertSnapshot(snapshot(runId, siteId, 1));
    const second = await repos.snapshots.insertSnapshot(snapshot(runId, siteId, 1, { rules: 42 }));
    expect(first.created).toBe(true);
    expect(second).toEqual({ snapshot: first.snapshot, created: false });
    expect(await count('snapshots')).toBe(1);
  });

  it('R-10: an ok snapshot names itself as the source of its rules', async () => {
    const siteId = await site();
    const { snapshot: s } = await repos.snapshots.insertSnapshot(snapshot(await run(1), siteId, 1));
    expect(s.policySnapshotId).toBe(s.id);
  });

  it('recordFetch writes body, attempts and snapshot together, and is idempotent', async () => {
    const siteId = await site();
    const runId = await run(1);
    const body = Buffer.from('User-agent: *\nAllow: /\n');
    const sha = createHash('sha256').update(body).digest();
    const input = {
      bodies: [body],
      attempts: [attempt(runId, siteId, 1, { outcome: 'server_error', status: 500 }), attempt(runId, siteId, 2, { bodySha256: sha, bodyBytes: body.length })],
      snapshot: snapshot(runId, siteId, 1, { attempts: 2, bodySha256: sha, bodyBytes: body.length }),
    };
    const first = await repos.snapshots.recordFetch(input);
    const second = await repos.snapshots.recordFetch(input);
    expect(first.created).toBe(true);
    expect(second.created).toBe(false);
    expect([await count('bodies'), await count('fetch_attempts'), await count('snapshots')]).toEqual([1, 2, 1]);
  });

  it('recordFetch that fails part-way writes nothing', async () => {
    const siteId = await site();
    const runId = await run(1);
    const body = Buffer.from('User-agent: *\n');
    // The snapshot names a run that does not exist: its insert fails after the body and the
    // attempt were written in the same transaction.
    const failing = repos.snapshots.recordFetch({
      bodies: [body],
      attempts: [attempt(runId, siteId, 1)],
      snapshot: snapshot(runId + 1000, siteId, 1),
    });
    await expect(failing).rejects.toThrow();
    expect([await count('bodies'), await count('fetch_attempts'), await count('snapshots')]).toEqual([0, 0, 0]);
  });
});

describe('diff progress: each snapshot counted once in its run', () => {
  it('markDiffed sets diffed_at and counts the snapshot the first time only', async () => {
    const runId = await run(1);
    const a = (await repos.snapshots.insertSnapshot(snapshot(runId, await site('https://a.example'), 1))).snapshot;
    const b = (await repos.snapshots.insertSnapshot(snapshot(runId, await site('https://b.example'), 1))).snapshot;
    expect(await repos.changes.hasUndiffed(runId)).toBe(true);
    await repos.changes.markDiffed(a.id, NIGHT(1));
    // A diff job that runs again changes neither the time nor the count.
    await repos.changes.markDiffed(a.id, NIGHT(2));
    expect((await repos.runs.getRun(runId))!.sitesDiffed).toBe(1);
    expect((await repos.snapshots.snapshotFor(runId, a.siteId))!.diffedAt).toEqual(NIGHT(1));
    expect(await repos.changes.hasUndiffed(runId)).toBe(true);
    await repos.changes.markDiffed(b.id, NIGHT(1));
    expect((await repos.runs.getRun(runId))!.sitesDiffed).toBe(2);
    expect(await repos.changes.hasUndiffed(runId)).toBe(false);
    expect(await repos.changes.runProgress(runId)).toEqual({ snapshots: 2, diffed: 2 });
  });

  it('fetchPlanFacts: snapshot, run clock, origin and attempts in one answer', async () => {
    const siteId = await site();
    const runId = await run(3);
    expect(await repos.snapshots.fetchPlanFacts(runId, siteId)).toEqual({ snapshotId: null, runAt: NIGHT(3), origin: 'https://a.example', attempts: 0 });
    await repos.attempts.recordAttempt(attempt(runId, siteId, 1, { outcome: 'server_error', status: 503 }));
    expect((await repos.snapshots.fetchPlanFacts(runId, siteId)).attempts).toBe(1);
    const { snapshot: s } = await repos.snapshots.insertSnapshot(snapshot(runId, siteId, 3));
    expect((await repos.snapshots.fetchPlanFacts(runId, siteId)).snapshotId).toBe(s.id);
    expect(await repos.snapshots.fetchPlanFacts(runId + 99, siteId + 99)).toEqual({ snapshotId: null, runAt: null, origin: null, attempts: 0 });
  });
});

describe('snapshot history (D-3, R-14)', () => {
  // Nights 1..5: ok, ok, 503, unavailable (404), network error.
  let siteId: number;
  let ids: number[];
  beforeEach(async () => {
    siteId = await site();
    ids = [];
    const nights: Partial<SnapshotInput>[] = [
      {},
      {},
      { outcome: 'server_error', status: 503, policy: 'disallow_all', policyReason: 'R-13', policySnapshotId: null },
      { outcome: 'unavailable', status: 404, policy: 'allow_all', policyReason: 'R-12', policySnapshotId: null },
      { outcome: 'network_error', status: null, policy: 'disallow_all', policyReason: 'R-15', policySnapshotId: null },
    ];
    for (const [i, night] of nights.entries()) {
      const { snapshot: s } = await repos.snapshots.insertSnapshot(snapshot(await run(i + 1), siteId, i + 1, night));
      ids.push(s.id);
    }
  });

  it('latestSnapshot: the newest, or the newest before a time / outside a run', async () => {
    expect((await repos.snapshots.latestSnapshot(siteId))?.id).toBe(ids[4]);
    expect((await repos.snapshots.latestSnapshot(siteId, { before: NIGHT(4) }))?.id).toBe(ids[2]);
    const lastRun = (await repos.snapshots.latestSnapshot(siteId))!.runId;
    expect((await repos.snapshots.latestSnapshot(siteId, { excludeRunId: lastRun }))?.id).toBe(ids[3]);
    expect(await repos.snapshots.latestSnapshot(siteId, { before: NIGHT(1) })).toBeNull();
  });

  it('previousSnapshot: the one before a given snapshot', async () => {
    const fourth = (await repos.snapshots.history(siteId)).find((s) => s.id === ids[3])!;
    expect((await repos.snapshots.previousSnapshot(fourth))?.id).toBe(ids[2]);
  });

  it('history follows the run clock, not the order of insertion (a backfilled night)', async () => {
    // Night 0 (before all others) stored last, fetched last.
    const { snapshot: backfilled } = await repos.snapshots.insertSnapshot(snapshot(await run(0), siteId, 30));
    const first = (await repos.snapshots.history(siteId)).find((s) => s.id === ids[0])!;
    expect((await repos.snapshots.previousSnapshot(first))?.id).toBe(backfilled.id);
    expect(await repos.snapshots.previousSnapshot(backfilled)).toBeNull();
    expect((await repos.snapshots.lastGoodBefore(first))?.id).toBe(backfilled.id);
    expect((await repos.snapshots.history(siteId)).at(-1)?.id).toBe(backfilled.id);
    expect((await repos.snapshots.latestSnapshot(siteId, { before: NIGHT(1) }))?.id).toBe(backfilled.id);
  });

  it('lastGoodSnapshot: the newest ok one (the copy the 30-day fallback uses)', async () => {
    expect((await repos.snapshots.lastGoodSnapshot(siteId))?.id).toBe(ids[1]);
    expect((await repos.snapshots.lastGoodSnapshot(siteId, { before: NIGHT(2) }))?.id).toBe(ids[0]);
  });

  it('lastReachableSnapshot: the newest that was not a 5xx or network failure', async () => {
    expect((await repos.snapshots.lastReachableSnapshot(siteId))?.id).toBe(ids[3]);
  });

  it('history: newest first', async () => {
    expect((await repos.snapshots.history(siteId)).map((s) => s.id)).toEqual([...ids].reverse());
    expect((await repos.snapshots.history(siteId, { limit: 2 })).map((s) => s.id)).toEqual([ids[4], ids[3]]);
  });

  it('site_latest: one row per site with its newest snapshot', async () => {
    const other = await site('https://b.example');
    const { snapshot: s } = await repos.snapshots.insertSnapshot(snapshot(await run(9), other, 9));
    const rows = await testDb.db.select().from(siteLatest).orderBy(siteLatest.siteId);
    expect(rows.map((r) => [r.origin, r.snapshotId, r.outcome])).toEqual([
      ['https://a.example', ids[4], 'network_error'],
      ['https://b.example', s.id, 'ok'],
    ]);
  });

  it('removing a site removes its history (cascade)', async () => {
    await repos.attempts.recordAttempt(attempt((await repos.snapshots.latestSnapshot(siteId))!.runId, siteId, 1));
    expect(await repos.sites.removeSites(['a.example'])).toBe(1);
    expect([await count('snapshots'), await count('fetch_attempts'), await count('tracked_urls')]).toEqual([0, 0, 0]);
  });
});

describe('sites for a run', () => {
  it('enabled sites only, of one portfolio when given', async () => {
    await repos.sites.addSites(['a.example', 'b.example'], { portfolio: 'shop' });
    await repos.sites.addSites(['c.example', 'd.example']);
    await testDb.db.execute(sql`update sites set enabled = false where origin = 'https://b.example'`);
    const shop = await repos.portfolios.findPortfolio('shop');
    expect((await repos.sites.enabledSitesForRun()).map((s) => s.origin)).toEqual(['https://a.example', 'https://c.example', 'https://d.example']);
    expect((await repos.sites.enabledSitesForRun({ portfolioId: shop!.id })).map((s) => s.origin)).toEqual(['https://a.example']);
  });

  it('portfolios are created once and list their sizes', async () => {
    await repos.sites.addSites(['a.example', 'b.example'], { portfolio: 'shop' });
    await repos.sites.addSites(['a.example'], { portfolio: 'shop' });
    expect((await repos.portfolios.listPortfolios()).map((p) => [p.name, p.siteCount])).toEqual([['shop', 2]]);
  });
});
