/**
 * Issue 28, "done means": a night on which a site switches `ai-train=yes` to `ai-train=no` raises
 * exactly one alert of kind ai_training_refused, and the change is in `report ai-use --since`, in
 * the SQL view ai_use and in the site's `history`. Real nights: the site served from loopback,
 * `audit --wait --at`, Postgres and Redis. The first night is a baseline (no usage alert, no usage
 * flip); the same night run again, as a run or as a site job, adds neither an alert nor a flip.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nightEvents } from '../../../src/reports/night-events.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import type { Night } from '../../helpers/nightly.js';
import { addSites, alertsOf, defaultAgentTokens, replayNight, rows, track } from '../../helpers/nightly.js';

const NIGHT_1 = '2026-06-01T03:00:00.000Z';
const NIGHT_2 = '2026-06-02T03:00:00.000Z';
const signals = (aiTrain: 'yes' | 'no') => `User-agent: *\nAllow: /\nContent-Signal: search=yes, ai-train=${aiTrain}\n`;
const USAGE_KINDS = ['ai_training_refused', 'ai_training_allowed', 'ai_input_refused', 'ai_input_allowed', 'search_use_refused', 'search_use_allowed', 'usage_preference_withdrawn'];

let p: Pipeline;
let siteId: number;
let agents: string[];
let night1: Night;
let night2: Night;

beforeAll(async () => {
  p = await startPipeline();
  ({ signals: siteId } = await addSites(p, ['signals']));
  await track(p, 'signals', ['/articles/a']);
  // In the history's order (lower-case).
  agents = (await defaultAgentTokens(p)).sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
  night1 = await replayNight(p, NIGHT_1, { signals: signals('yes') });
  night2 = await replayNight(p, NIGHT_2, { signals: signals('no') });
});

afterAll(async () => {
  await p?.close();
});

const usageFlipCount = async () => Number((await rows<{ n: string }>(p, 'select count(*) as n from usage_flips where site_id = $1', [siteId]))[0]!.n);
const trainingAlerts = async () =>
  (await rows<{ run_id: number }>(p, "select run_id from alerts where site_id = $1 and kind = 'ai_training_refused'", [siteId])).map((r) => r.run_id);

describe('the baseline night', () => {
  it('states ai-train allowed everywhere, raising no usage alert and writing no usage flip', async () => {
    expect((await alertsOf(p, night1.runId, siteId)).filter((a) => USAGE_KINDS.includes(a.kind))).toEqual([]);
    expect(await rows(p, 'select 1 from usage_flips where run_id = $1', [night1.runId])).toEqual([]);
  });
});

describe('ai-train=yes → ai-train=no', () => {
  it('raises exactly one ai_training_refused alert, and no other usage alert', async () => {
    const usage = (await alertsOf(p, night2.runId, siteId)).filter((a) => USAGE_KINDS.includes(a.kind));
    expect(usage.map((a) => [a.kind, a.severity])).toEqual([['ai_training_refused', 'info']]);
    expect(usage[0]!.title).toContain('AI training refused on');
  });

  it('writes one usage flip per tracked URL x agent, allowed → refused, with the line before and after', async () => {
    const flips = await rows<{ url: string; purpose: string; from_preference: string; to_preference: string; rule_before: { line: number; value: string }; rule_after: { line: number; value: string } }>(
      p,
      'select t.url, f.purpose, f.from_preference, f.to_preference, f.rule_before, f.rule_after from usage_flips f join tracked_urls t on t.id = f.tracked_url_id where f.run_id = $1',
      [night2.runId],
    );
    expect(flips).toHaveLength(2 * agents.length);
    for (const f of flips) {
      expect(f).toMatchObject({ purpose: 'ai-train', from_preference: 'allowed', to_preference: 'refused' });
      expect(f.rule_before).toMatchObject({ line: 3, value: 'search=yes, ai-train=yes' });
      expect(f.rule_after).toMatchObject({ line: 3, value: 'search=yes, ai-train=no' });
    }
  });

  it('report ai-use --since: ai-train refused since night 2, allowed before, by line 3, for every URL and crawler', async () => {
    const run = await p.cli(['report', 'ai-use', '--since', '2026-06-02', '--format', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([
      {
        origin: p.origin('signals'),
        purpose: 'ai-train',
        preference: 'refused',
        before: 'allowed',
        since: NIGHT_2,
        line: 3,
        mechanism: 'Content-Signal',
        value: 'search=yes, ai-train=no',
        urls: 'all 2',
        crawlers: `all ${agents.length}`,
      },
    ]);
    // Nothing changed since the night after.
    expect(JSON.parse((await p.cli(['report', 'ai-use', '--since', '2026-06-02T03:00:01Z', '--format', 'json'])).stdout)).toEqual([]);
  });

  it('the ai_use view: ai-train refused for every tracked URL x agent, since night 2, with the line', async () => {
    const use = await rows<Record<string, unknown>>(
      p,
      "select preference, crawl_allowed, since, line, mechanism, label, value, count(*)::int as n from ai_use where site_id = $1 and purpose = 'ai-train' group by 1, 2, 3, 4, 5, 6, 7",
      [siteId],
    );
    expect(use).toEqual([
      { preference: 'refused', crawl_allowed: true, since: new Date(NIGHT_2), line: 3, mechanism: 'content-signal', label: 'ai-train', value: 'search=yes, ai-train=no', n: 2 * agents.length },
    ]);
    // search stays allowed, since the first night.
    const [search] = await rows(p, "select distinct preference, since from ai_use where site_id = $1 and purpose = 'search'", [siteId]);
    expect(search).toEqual({ preference: 'allowed', since: new Date(NIGHT_1) });
  });

  it('history: night 2 lists the usage flips beside its changes and its alert', async () => {
    const text = await p.cli(['history', p.origin('signals')]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`usage flips: ${2 * agents.length}`);
    expect(text.stdout).toContain(`${p.origin('signals')}/: ai-train allowed → refused (line 3: Content-Signal: search=yes, ai-train=no) for ${agents.join(', ')}`);
    expect(text.stdout).toMatch(/alert info ai_training_refused: AI training refused on/);
    const json = JSON.parse((await p.cli(['history', p.origin('signals'), '--json'])).stdout) as { nights: { runId: number; usageFlips: unknown[] }[] };
    expect(json.nights.find((n) => n.runId === night2.runId)!.usageFlips).toHaveLength(2 * agents.length);
    expect(json.nights.find((n) => n.runId === night1.runId)!.usageFlips).toEqual([]);
  });

  it('the night page: the usage flips counted, and the site\'s "usage" line with them and the alert', async () => {
    const page = await nightEvents(p.db.pool, { runId: night2.runId, portfolioId: null, severity: null, page: 1, pageSize: 10 });
    expect(page.counts).toMatchObject({ flips: 0, usageFlips: 2 * agents.length });
    const usage = page.sites.find((s) => s.siteId === siteId)!.causes.find((c) => c.cause === 'usage');
    expect(usage).toMatchObject({ severity: 'info', usageFlipCount: 2 * agents.length });
    expect(usage!.alerts.map((a) => a.kind)).toEqual(['ai_training_refused']);
    expect(usage!.what).toHaveLength(2); // the root and /articles/a, each naming every agent
  });

  it('audit --wait prints the night\'s usage flips beside its verdict flips', () => {
    expect(night2.stdout).toContain('  verdict flips:  0');
    expect(night2.stdout).toContain(`  usage flips:    ${2 * agents.length}`);
  });

  it('report alerts shows the kind as it is', async () => {
    const alerts = JSON.parse((await p.cli(['report', 'alerts', '--since', '2026-06-01', '--format', 'json'])).stdout) as { kind: string; night: string }[];
    expect(alerts.filter((a) => a.kind === 'ai_training_refused')).toEqual([expect.objectContaining({ night: NIGHT_2, severity: 'info' })]);
  });
});

describe('the same night again adds no alert and no usage flip', () => {
  it.each([
    ['audit --at the night again', () => replayNight(p, NIGHT_2, { signals: signals('no') }).then((again) => expect(again.runId).toBe(night2.runId))],
    ['its site job again', async () => expect(await p.rt.nights.runSite(night2.runId, siteId, 'test-holder')).toEqual({ kind: 'already-stored' })],
  ])('%s', async (_name, again) => {
    const flipsBefore = await usageFlipCount();
    await again();
    expect(await trainingAlerts()).toEqual([night2.runId]);
    expect(await usageFlipCount()).toBe(flipsBefore);
    expect(flipsBefore).toBe(2 * agents.length);
  });
});
