/**
 * Nightly pipeline, bot walls (issue 18): a robots.txt answered by Cloudflare's challenge on
 * 403 and on 429 is `challenged`, not a 4xx: the last good rules stand (unverified since the
 * first challenged night), no verdict flips, one alert when challenges start and one when they
 * end. A bare 403 from a plain server still follows R-12 (full allow). Loopback servers, real
 * Postgres and Redis, one night at a time with `audit --at`.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../../src/db/client.js';
import { createDashboard } from '../../../src/web/server.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import type { Night } from '../../helpers/nightly.js';
import { addSites, alertsOf, flipsOf, nightAt, replayNight, rows, snapshotOf, track } from '../../helpers/nightly.js';

const NIGHT_0 = '2026-05-01T03:00:00.000Z';
const RULES = 'User-agent: *\nDisallow: /private/\n';
const PAGE = fs.readFileSync(new URL('../../fixtures/challenges/cloudflare-just-a-moment.html', import.meta.url), 'utf8');
const challenge = (status: number) => ({ status, body: PAGE, headers: { 'cf-mitigated': 'challenge', server: 'cloudflare', 'content-type': 'text/html' } });
const BARE_403 = { status: 403, body: '<h1>403 Forbidden</h1>\n', headers: { server: 'nginx' } };
/** Nights 1..5 are challenged; on night 6 the 403 site lets the auditor through again. */
const CHALLENGED = [1, 2, 3, 4, 5];

let p: Pipeline;
let ids: Record<'cf403' | 'cf429' | 'bare403', number>;
const nights: Night[] = [];

beforeAll(async () => {
  p = await startPipeline();
  ids = await addSites(p, ['cf403', 'cf429', 'bare403']);
  for (const name of ['cf403', 'cf429', 'bare403']) await track(p, name, ['/products/a', '/private/x']);
  nights.push(await replayNight(p, NIGHT_0, { cf403: RULES, cf429: RULES, bare403: RULES }));
  for (const day of CHALLENGED) nights.push(await replayNight(p, nightAt(NIGHT_0, day), { cf403: challenge(403), cf429: challenge(429), bare403: BARE_403 }));
  nights.push(await replayNight(p, nightAt(NIGHT_0, 6), { cf403: RULES, cf429: challenge(429), bare403: BARE_403 }));
}, 90_000);

afterAll(async () => p?.close());

const alertCount = async (siteId: number, days: number[]) => {
  let n = 0;
  for (const day of days) n += (await alertsOf(p, nights[day]!.runId, siteId)).length;
  return n;
};

describe.each([
  ['cf403', 403],
  ['cf429', 429],
] as const)('a Cloudflare challenge on %s', (name, status) => {
  it('is recorded as challenged with its vendor; the last good rules stand, marked unverified', async () => {
    for (const day of CHALLENGED) {
      const snapshot = await snapshotOf(p, nights[day]!.runId, ids[name]);
      expect(snapshot).toMatchObject({ outcome: 'challenged', policy: 'rules', policy_reason: 'challenged', rules_run_id: nights[0]!.runId, body_id: null });
      const [row] = await rows<{ status: number; error_code: string }>(p, 'select status, error_code from snapshots where run_id = $1 and site_id = $2', [
        nights[day]!.runId,
        ids[name],
      ]);
      expect(row).toEqual({ status, error_code: 'cloudflare' });
    }
    const [state] = await rows<{ challenged_since: Date | null }>(p, 'select challenged_since from site_state where site_id = $1', [ids[name]]);
    expect(state!.challenged_since?.toISOString() ?? null).toBe(name === 'cf429' ? nightAt(NIGHT_0, 1) : null);
  });

  it('flips no verdict and raises at most 2 alerts over the 5 challenged nights', async () => {
    for (const day of CHALLENGED) expect(await flipsOf(p, nights[day]!.runId, ids[name])).toEqual([]);
    expect(await alertCount(ids[name], CHALLENGED)).toBeLessThanOrEqual(2);
    const started = await alertsOf(p, nights[1]!.runId, ids[name]);
    expect(started.map((a) => a.kind)).toEqual(['challenge_started']);
    expect(started[0]!.title).toContain('Cloudflare');
    expect(JSON.stringify(started[0]!.details)).toContain('robots-audit');
  });
});

describe('the challenge ends', () => {
  it('raises challenge_ended once, with no flip, and the policy is verified again (R-10)', async () => {
    const night = nights[6]!;
    expect((await alertsOf(p, night.runId, ids.cf403)).map((a) => a.kind)).toEqual(['challenge_ended']);
    expect(await flipsOf(p, night.runId, ids.cf403)).toEqual([]);
    expect(await snapshotOf(p, night.runId, ids.cf403)).toMatchObject({ outcome: 'ok', policy: 'rules', policy_reason: 'R-10' });
  });
});

describe('reports: the policy is unverified since the first challenged night', () => {
  it('report status --format json has unverifiedSince (and flapping: false)', async () => {
    const run = await p.cli(['report', 'status', '--format', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const by = Object.fromEntries((JSON.parse(run.stdout) as { origin: string }[]).map((r) => [r.origin, r]));
    expect(by[p.origin('cf429')]).toMatchObject({ outcome: 'challenged', policy: 'rules', policyReason: 'challenged', unverifiedSince: nightAt(NIGHT_0, 1), flapping: false });
    expect(by[p.origin('cf403')]).toMatchObject({ outcome: 'ok', unverifiedSince: null });
  });

  it('history says challenged, with the vendor, and the rules that stand', async () => {
    const run = await p.cli(['history', p.origin('cf429'), '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('challenged');
    expect(run.stdout).toContain('cloudflare');
  });
});

describe('run_summary counts the challenged nights', () => {
  it('two a night while both Cloudflare sites were challenged, one on night 6', async () => {
    const counts = await rows<{ challenged: number }>(p, 'select challenged from run_summary where run_id = any($1) order by run_at', [nights.map((n) => n.runId)]);
    expect(counts.map((c) => c.challenged)).toEqual([0, 2, 2, 2, 2, 2, 1]);
  });
});

describe('explain: why the rules that stand are unverified', () => {
  it('names the vendor, the first challenged night and the rules that stand', async () => {
    const run = await p.cli(['explain', p.origin('cf429'), '/private/x', '--ua', 'Googlebot']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('disallowed');
    expect(run.stdout).toContain(`Cloudflare answers instead of the site (429) since ${nightAt(NIGHT_0, 1).slice(0, 10)}`);
    expect(run.stdout).toContain('stand, unverified');
  });
});

describe('the dashboard', () => {
  it('shows the challenged site as unverified since its first challenged night', async () => {
    const reader = createDb(p.db.url, { max: 2, readOnly: true });
    const app = await createDashboard({ pool: reader.pool, token: null, databaseName: 'test' });
    try {
      const overview = await app.inject({ url: '/' });
      expect(overview.statusCode).toBe(200);
      expect(overview.body.match(/class="pill o-challenged"[^>]*>unverified since/g) ?? []).toHaveLength(1);
      const page = await app.inject({ url: `/site?origin=${encodeURIComponent(p.origin('cf429'))}` });
      expect(page.body).toContain('a bot wall answers instead of the site since');
      expect(overview.body).toMatch(/<b>1<\/b> behind a bot wall \(unverified\)/);
      const listed = await app.inject({ url: '/?show=unverified' });
      expect(listed.body).toContain(p.origin('cf429'));
      expect(listed.body).not.toContain(p.origin('bare403'));
    } finally {
      await app.close();
      await reader.close();
    }
  });
});

describe('R-12: a bare 403 from a plain server', () => {
  it('is unavailable and full allow, as before', async () => {
    for (const day of CHALLENGED) {
      expect(await snapshotOf(p, nights[day]!.runId, ids.bare403)).toMatchObject({ outcome: 'unavailable', policy: 'allow_all', policy_reason: 'R-12' });
    }
    expect((await alertsOf(p, nights[1]!.runId, ids.bare403)).map((a) => a.kind)).toContain('allow_all_4xx');
  });
});
