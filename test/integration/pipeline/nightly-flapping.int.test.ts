/**
 * Nightly pipeline, flapping (issue 18): a robots.txt that alternates between two versions, per
 * request (two CDN nodes) or per night (a cache serving an old copy), is flapping: one alert
 * when it starts, no per-night change, flip or AI-access alerts, at most 2 alerts over 6 nights.
 * A change that lasts is alerted and is not flapping. A changed body is confirmed by a second
 * fetch before it counts; two answers that disagree record both versions. Loopback servers, real
 * Postgres and Redis, one night at a time with `audit --at`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../../src/db/client.js';
import { createDashboard } from '../../../src/web/server.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import type { Night } from '../../helpers/nightly.js';
import { addSites, alertsOf, hostOf, nightAt, replayNight, rows, track } from '../../helpers/nightly.js';

const NIGHT_0 = '2026-06-01T03:00:00.000Z';
const NIGHTS = 6;
const A = 'User-agent: *\nDisallow: /private/\n';
/** B for the per-night site: one more rule that decides no tracked URL (a rules_changed alone). */
const B_MILD = 'User-agent: *\nDisallow: /private/\nDisallow: /tmp/\n';
/** B for the per-request site: takes /products/ away from Googlebot (critical). */
const B_BLOCKS = 'User-agent: *\nDisallow: /private/\n\nUser-agent: Googlebot\nDisallow: /products/\n';

let p: Pipeline;
let ids: Record<'nodes' | 'nightly' | 'once' | 'steady', number>;
const nights: Night[] = [];
let nodeRequests = 0;

beforeAll(async () => {
  p = await startPipeline();
  ids = await addSites(p, ['nodes', 'nightly', 'once', 'steady']);
  for (const name of ['nodes', 'nightly', 'once', 'steady']) await track(p, name, ['/products/a', '/private/x']);
  // Two CDN nodes answering in turn: A, B, A, B, ... per request.
  p.web.set(hostOf('nodes'), (req, res) => {
    if (req.url !== '/robots.txt') return void res.writeHead(404).end();
    nodeRequests += 1;
    res.writeHead(200, { 'content-type': 'text/plain' }).end(nodeRequests % 2 === 1 ? A : B_BLOCKS);
  });
  for (let day = 0; day < NIGHTS; day++) {
    nights.push(await replayNight(p, nightAt(NIGHT_0, day), { nightly: day % 2 === 0 ? A : B_MILD, once: day < 2 ? A : B_MILD, steady: A }));
  }
}, 90_000);

afterAll(async () => p?.close());

async function alertKinds(siteId: number): Promise<string[][]> {
  const out: string[][] = [];
  for (const night of nights) out.push((await alertsOf(p, night.runId, siteId)).map((a) => a.kind));
  return out;
}

const stateOf = async (siteId: number) =>
  (await rows<{ flapping_since: Date | null; recent_versions: unknown[] }>(p, 'select flapping_since, recent_versions from site_state where site_id = $1', [siteId]))[0]!;

describe('per request: two answers of one night disagree', () => {
  it('is flapping from the first night the confirmation disagrees, with at most 2 alerts over 6 nights', async () => {
    const kinds = await alertKinds(ids.nodes);
    expect(kinds.flat().length).toBeLessThanOrEqual(2);
    expect(kinds[1]).toEqual(['flapping_started']);
    expect((await stateOf(ids.nodes)).flapping_since?.toISOString()).toBe(nightAt(NIGHT_0, 1));
  });

  it('records both versions on the night: the one in force, and the other as confirm_sha256', async () => {
    const [night] = await rows<{ flapping: boolean; body: string; confirm: string }>(
      p,
      `select n.flapping, convert_from(b.content, 'UTF8') as body, convert_from(c.content, 'UTF8') as confirm
         from snapshots n join bodies b on b.id = n.body_id join bodies c on c.sha256 = n.confirm_sha256
        where n.run_id = $1 and n.site_id = $2`,
      [nights[1]!.runId, ids.nodes],
    );
    expect(night).toEqual({ flapping: true, body: A, confirm: B_BLOCKS });
  });

  it('is critical: one version takes /products/a away from Googlebot, and the alert says so', async () => {
    const [alert] = await alertsOf(p, nights[1]!.runId, ids.nodes);
    expect(alert!.severity).toBe('critical');
    const details = alert!.details as { flapping: { versions: unknown[]; differences: { url: string; agent: string }[] } };
    expect(details.flapping.versions).toHaveLength(2);
    expect(details.flapping.differences.map((d) => [new URL(d.url).pathname, d.agent])).toContainEqual(['/products/a', 'Googlebot']);
  });
});

describe('per night: A on even nights, B on odd nights', () => {
  it('is flapping from the night it comes back to A, with at most 2 alerts over 6 nights', async () => {
    const kinds = await alertKinds(ids.nightly);
    expect(kinds).toEqual([[], ['rules_changed'], ['flapping_started'], [], [], []]);
    expect((await stateOf(ids.nightly)).flapping_since?.toISOString()).toBe(nightAt(NIGHT_0, 2));
    const flags = await rows<{ flapping: boolean }>(p, 'select flapping from snapshots where site_id = $1 order by run_at', [ids.nightly]);
    expect(flags.map((f) => f.flapping)).toEqual([false, false, true, true, true, true]);
  });
});

describe('reports', () => {
  it('report status --format json has flapping: true for both alternating sites, false for the others', async () => {
    const run = await p.cli(['report', 'status', '--format', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const by = Object.fromEntries((JSON.parse(run.stdout) as { origin: string; flapping: boolean }[]).map((r) => [r.origin, r.flapping]));
    expect([by[p.origin('nodes')], by[p.origin('nightly')], by[p.origin('once')], by[p.origin('steady')]]).toEqual([true, true, false, false]);
  });
});

describe('the dashboard', () => {
  it('marks the flapping sites on the overview and on their page', async () => {
    const reader = createDb(p.db.url, { max: 2, readOnly: true });
    const app = await createDashboard({ pool: reader.pool, token: null, databaseName: 'test' });
    try {
      const overview = await app.inject({ url: '/' });
      expect(overview.statusCode).toBe(200);
      expect(overview.body.match(/class="pill flapping"/g) ?? []).toHaveLength(2);
      const page = await app.inject({ url: `/site?origin=${encodeURIComponent(p.origin('nightly'))}` });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('its robots.txt alternates between versions');
      const steady = await app.inject({ url: `/site?origin=${encodeURIComponent(p.origin('steady'))}` });
      expect(steady.body).not.toContain('class="pill flapping"');
      // The card and its list: the two flapping sites only.
      expect(overview.body).toMatch(/<b>2<\/b> flapping between versions/);
      const listed = await app.inject({ url: '/?show=flapping' });
      expect(listed.statusCode).toBe(200);
      expect(listed.body).toContain(p.origin('nightly'));
      expect(listed.body).not.toContain(p.origin('steady'));
    } finally {
      await app.close();
      await reader.close();
    }
  });
});

describe('a change that lasts', () => {
  it('is alerted once and is not flapping', async () => {
    expect(await alertKinds(ids.once)).toEqual([[], [], ['rules_changed'], [], [], []]);
    expect((await stateOf(ids.once)).flapping_since).toBeNull();
  });
});

describe('confirm a change before it counts: only changed sites pay the second request', () => {
  it('fetches an unchanged site once a night, a changed one twice', async () => {
    const count = async (name: string) => (await rows<{ n: string }>(p, 'select count(*) as n from fetch_attempts where site_id = $1', [ids[name as 'once']]))[0]!.n;
    const robotsRequests = (name: string) => p.web.requests(hostOf(name)).filter((r) => r.path === '/robots.txt').length;
    expect(robotsRequests('steady')).toBe(NIGHTS);
    expect(robotsRequests('once')).toBe(NIGHTS + 1);
    expect(Number(await count('steady'))).toBe(NIGHTS);
  });
});
