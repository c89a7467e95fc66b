/**
 * `robots-audit prune --before <date>`: old nights go; what the product needs stays (each site's
 * latest night, its last good body for the 30-day rule, every version that changed something,
 * changes, flips, alerts), and the nights after a prune work as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, changeOf, nightAt, replayNight, rows, snapshotOf, track } from '../../helpers/nightly.js';
import type { Night } from '../../helpers/nightly.js';

const NIGHT_0 = '2026-01-01T03:00:00.000Z';
const V1 = 'User-agent: *\nDisallow: /private/\n';
const V2 = 'User-agent: *\nDisallow: /private/\nDisallow: /products/\n';
const DOWN = { status: 503, body: 'down\n' };

let p: Pipeline;
let ids: Record<'steady' | 'changing' | 'down', number>;
const nights: Night[] = [];

const snapshotRuns = async (siteId: number) =>
  (await rows<{ run_id: number }>(p, 'select run_id from snapshots where site_id = $1 order by run_at', [siteId])).map((r) => r.run_id);
const countOf = async (table: string) => Number((await rows<{ n: string }>(p, `select count(*) as n from ${table}`))[0]!.n);

beforeAll(async () => {
  p = await startPipeline();
  ids = await addSites(p, ['steady', 'changing', 'down']);
  await track(p, 'changing', ['/products/a']);
  // Ten nights: steady never changes; changing goes V1 -> V2 on night 3 -> V1 on night 6;
  // down answers V1 on night 0, then 503 from night 1 on (its fallback copy is night 0's).
  for (let day = 0; day < 10; day++) {
    nights.push(
      await replayNight(p, nightAt(NIGHT_0, day), {
        steady: V1,
        changing: day >= 3 && day < 6 ? V2 : V1,
        down: day === 0 ? V1 : DOWN,
      }),
    );
  }
}, 90_000);
afterAll(async () => p?.close());

describe('prune --before: old nights go, what the product needs stays', () => {
  let before: { changes: number; flips: number; alerts: number; runs: number };

  it('--dry-run counts and removes nothing', async () => {
    const snapshots = await countOf('snapshots');
    const dry = await p.cli(['prune', '--before', nightAt(NIGHT_0, 8), '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    const counted = JSON.parse(dry.stdout) as { snapshots: number; dryRun: boolean };
    expect(counted.dryRun).toBe(true);
    expect(counted.snapshots).toBeGreaterThan(0);
    expect(await countOf('snapshots')).toBe(snapshots);
  });

  it('removes the nights before the date except the kept ones', async () => {
    before = { changes: await countOf('snapshot_changes'), flips: await countOf('verdict_flips'), alerts: await countOf('alerts'), runs: await countOf('audit_runs') };
    const run = await p.cli(['prune', '--before', nightAt(NIGHT_0, 8)]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^removed \d+ nights, \d+ retried attempts, \d+ verdict spans and 0 crawler requests \(not findings\) before 2026-01-09T03:00:00.000Z; \d+ bodies and \d+ answers no longer referenced\ncleared 0 client addresses of crawler requests before .+ \(ROBOTS_AUDIT_LOG_IP_RETENTION_DAYS=30\)\n$/,
    );
    const r = nights.map((n) => n.runId);
    // steady: its first night (first_seen, a change) and nights 8, 9 (after the date).
    expect(await snapshotRuns(ids.steady)).toEqual([r[0], r[8], r[9]]);
    // changing: the nights that changed (0, 3, 6), the nights they were compared with (2, 5), and 8, 9.
    expect(await snapshotRuns(ids.changing)).toEqual([r[0], r[2], r[3], r[5], r[6], r[8], r[9]]);
    // down: its last good night (0, the fallback's copy), its first failure (a change) and 8, 9.
    expect(await snapshotRuns(ids.down)).toEqual([r[0], r[1], r[8], r[9]]);
  });

  it('keeps every change, flip, alert and run; the versions of a file stay with their bodies', async () => {
    expect({ changes: await countOf('snapshot_changes'), flips: await countOf('verdict_flips'), alerts: await countOf('alerts'), runs: await countOf('audit_runs') }).toEqual(before);
    const bodies = await rows<{ content: Buffer }>(p, 'select content from bodies order by content');
    expect(bodies.map((b) => b.content.toString())).toEqual([V1, V2]);
    // Retried attempts of pruned nights are gone; those of kept nights stay.
    const [orphans] = await rows<{ n: string }>(
      p,
      'select count(*) as n from failed_attempts f where not exists (select 1 from snapshots n where n.site_id = f.site_id and n.run_id = f.run_id)',
    );
    expect(Number(orphans!.n)).toBe(0);
  });

  it('the nights after a prune: compared with the latest, the 30-day fallback finds its copy', async () => {
    // 40 days after the first failure: down's fallback applies night 0's rules.
    const late = await replayNight(p, nightAt(NIGHT_0, 41), { steady: V1, changing: V1, down: DOWN });
    expect(await changeOf(p, late.runId, ids.steady)).toBeUndefined();
    expect(await snapshotOf(p, late.runId, ids.down)).toMatchObject({ policy: 'rules', policy_reason: 'D-3', rules_run_id: nights[0]!.runId });
    const back = await replayNight(p, nightAt(NIGHT_0, 42), { steady: V1, changing: V2, down: V1 });
    expect((await changeOf(p, back.runId, ids.changing))?.kinds).toEqual(['raw', 'rules']);
    expect((await changeOf(p, back.runId, ids.down))?.kinds).toEqual(['outcome', 'fallback_ended']);
  });

  it('a bad date is a clear error', async () => {
    const run = await p.cli(['prune', '--before', 'last tuesday']);
    expect(run).toMatchObject({ code: 2, stderr: 'robots-audit: --before: not an ISO date or time: "last tuesday"\n' });
  });
});
