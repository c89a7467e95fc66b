/**
 * Nightly pipeline, D-3: a site that answers 503 night after night. Full disallow from the
 * first failure, nothing new while the streak goes on, the last good rules once the
 * streak is more than 30 days old, and the end of that fallback when the site answers
 * again. One night at a time, as the scheduler would run them, with `audit --at`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import type { Night } from '../../helpers/nightly.js';
import { addSites, alertsOf, changeOf, defaultAgentTokens, flipsOf, nightAt, replayNight, rows, snapshotOf, track } from '../../helpers/nightly.js';

const NIGHT_0 = '2026-03-01T03:00:00.000Z';
const RULES = 'User-agent: *\nDisallow: /private/\n';
const UNAVAILABLE = { status: 503, body: 'down for maintenance\n', headers: { 'retry-after': '0' } };
/** Night 1 is the first failure; night 31 is exactly 30 days later, night 32 more than 30. */
const LAST_FAILING_NIGHT = 32;

/** A second site whose outage lasts two nights only (nights 1 and 2). */
const BLIP_DAYS = new Set([1, 2]);

let p: Pipeline;
let siteId: number;
let blipId: number;
let agents: string[];
const nights: Night[] = [];

beforeAll(async () => {
  p = await startPipeline();
  ({ down: siteId, blip: blipId } = await addSites(p, ['down', 'blip']));
  await track(p, 'down', ['/products/a', '/private/x']);
  await track(p, 'blip', ['/products/a', '/private/x']);
  agents = await defaultAgentTokens(p);
  nights.push(await replayNight(p, NIGHT_0, { down: RULES, blip: RULES }));
  for (let day = 1; day <= LAST_FAILING_NIGHT; day++) {
    nights.push(await replayNight(p, nightAt(NIGHT_0, day), { down: UNAVAILABLE, blip: BLIP_DAYS.has(day) ? UNAVAILABLE : RULES }));
  }
  nights.push(await replayNight(p, nightAt(NIGHT_0, LAST_FAILING_NIGHT + 1), { down: RULES, blip: RULES }));
}, 90_000);

afterAll(async () => p?.close());

const allowedBefore = (name: string) => [`${p.origin(name)}/`, `${p.origin(name)}/products/a`];

describe('R-13 / D-3: full disallow from the first failure', () => {
  it('retries within the run, then stores a full-disallow snapshot whose streak starts tonight', async () => {
    const night = nights[1]!;
    const snapshot = await snapshotOf(p, night.runId, siteId);
    expect(snapshot).toMatchObject({ outcome: 'server_error', policy: 'disallow_all', policy_reason: 'R-13', rules_run_id: null, body_id: null });
    expect(snapshot.unreachable_since?.toISOString()).toBe(nightAt(NIGHT_0, 1));
    // ROBOTS_AUDIT_RETRY_DELAYS=0.05,0.05: three attempts, every one recorded.
    const [attempts] = await rows<{ n: string }>(p, 'select count(*) as n from fetch_attempts where run_id = $1 and site_id = $2 and status = 503', [
      night.runId,
      siteId,
    ]);
    expect(Number(attempts!.n)).toBe(3);
  });

  it('flips every allowed URL to disallowed for every agent, cause outcome_changed', async () => {
    const night = nights[1]!;
    const flips = await flipsOf(p, night.runId, siteId);
    expect(flips.map((f) => [f.url, f.token])).toEqual(allowedBefore('down').flatMap((url) => agents.map((a) => [url, a])));
    for (const f of flips) expect(f).toMatchObject({ from_allowed: true, to_allowed: false, cause: 'outcome_changed', rule_after: null });
    expect((await changeOf(p, night.runId, siteId))?.kinds).toEqual(['outcome', 'policy']);
  });

  it('raises one critical site_unreachable alert that lists the flips', async () => {
    const alerts = await alertsOf(p, nights[1]!.runId, siteId);
    expect(alerts.map((a) => [a.severity, a.kind])).toEqual([['critical', 'site_unreachable']]);
    expect(alerts[0]!.details).toMatchObject({
      policy: { from: 'rules', to: 'disallow_all', reason: 'R-13', outcomeFrom: 'ok', outcomeTo: 'server_error' },
      flipsTotal: 2 * agents.length,
    });
  });
});

describe('D-3: while the streak lasts 30 days or less, nothing new', () => {
  it('keeps full disallow with the same streak start, and writes no change, flip or alert (nights 2..31)', async () => {
    for (let day = 2; day <= 31; day++) {
      const night = nights[day]!;
      const snapshot = await snapshotOf(p, night.runId, siteId);
      expect(snapshot, `night ${day}`).toMatchObject({ outcome: 'server_error', policy: 'disallow_all', policy_reason: 'R-13' });
      expect(snapshot.unreachable_since?.toISOString(), `night ${day}`).toBe(nightAt(NIGHT_0, 1));
      expect(await changeOf(p, night.runId, siteId), `night ${day}`).toBeUndefined();
      expect(await flipsOf(p, night.runId, siteId), `night ${day}`).toEqual([]);
      expect(await alertsOf(p, night.runId, siteId), `night ${day}`).toEqual([]);
    }
  });
});

describe('R-14 / D-3: more than 30 days unreachable, the last good rules apply', () => {
  it('applies night 0 rules with reason D-3 on the night more than 30 days after the first failure', async () => {
    const snapshot = await snapshotOf(p, nights[LAST_FAILING_NIGHT]!.runId, siteId);
    // The rules are night 0's: the run whose body applies is named, this night has no body of its own.
    expect(snapshot).toMatchObject({ outcome: 'server_error', policy: 'rules', policy_reason: 'D-3', rules_run_id: nights[0]!.runId, body_id: null });
    expect(snapshot.unreachable_since?.toISOString()).toBe(nightAt(NIGHT_0, 1));
    expect((await changeOf(p, nights[LAST_FAILING_NIGHT]!.runId, siteId))?.kinds).toEqual(['policy', 'fallback_started']);
  });

  it('flips the URLs the rules allow back to allowed, cause fallback_started', async () => {
    const flips = await flipsOf(p, nights[LAST_FAILING_NIGHT]!.runId, siteId);
    expect(flips.map((f) => [f.url, f.token])).toEqual(allowedBefore('down').flatMap((url) => agents.map((a) => [url, a])));
    for (const f of flips) expect(f).toMatchObject({ from_allowed: false, to_allowed: true, cause: 'fallback_started', rule_before: null, rule_after: null });
  });

  it('raises one info fallback_started alert, not site_recovered or search_url_allowed', async () => {
    const alerts = await alertsOf(p, nights[LAST_FAILING_NIGHT]!.runId, siteId);
    expect(alerts.map((a) => [a.severity, a.kind])).toEqual([['info', 'fallback_started']]);
    expect(alerts[0]!.details).toMatchObject({ policy: { from: 'disallow_all', to: 'rules', reason: 'D-3' }, flipsTotal: 2 * agents.length });
  });
});

describe('D-3: the site answers again, the fallback ends', () => {
  it('stores the fetched rules, raises fallback_ended, and flips nothing (same rules)', async () => {
    const night = nights[LAST_FAILING_NIGHT + 1]!;
    const snapshot = await snapshotOf(p, night.runId, siteId);
    // Its own body again, the same bytes as night 0's: the same body row.
    const night0 = await snapshotOf(p, nights[0]!.runId, siteId);
    expect(snapshot).toMatchObject({ outcome: 'ok', policy: 'rules', policy_reason: 'R-10', rules_run_id: null, body_id: night0.body_id, unreachable_since: null });
    const change = await changeOf(p, night.runId, siteId);
    expect(change?.kinds).toEqual(['outcome', 'fallback_ended']);
    expect(await flipsOf(p, night.runId, siteId)).toEqual([]);
    const alerts = await alertsOf(p, night.runId, siteId);
    expect(alerts.map((a) => [a.severity, a.kind])).toEqual([['info', 'fallback_ended']]);
  });

  it('a short outage ends with site_recovered: flips back with cause outcome_changed, no fallback', async () => {
    const night = nights[3]!;
    const snapshot = await snapshotOf(p, night.runId, blipId);
    expect(snapshot).toMatchObject({ outcome: 'ok', policy: 'rules', policy_reason: 'R-10', unreachable_since: null });
    expect((await changeOf(p, night.runId, blipId))?.kinds).toEqual(['outcome', 'policy']);
    const flips = await flipsOf(p, night.runId, blipId);
    expect(flips.map((f) => [f.url, f.token])).toEqual(allowedBefore('blip').flatMap((url) => agents.map((a) => [url, a])));
    for (const f of flips) expect(f).toMatchObject({ from_allowed: false, to_allowed: true, cause: 'outcome_changed' });
    const alerts = await alertsOf(p, night.runId, blipId);
    expect(alerts.map((a) => [a.severity, a.kind])).toEqual([['info', 'site_recovered']]);
    // Its second failing night added nothing, and it never reached the fallback.
    expect(await flipsOf(p, nights[2]!.runId, blipId)).toEqual([]);
    const [fallbacks] = await rows<{ n: string }>(p, "select count(*) as n from snapshots where site_id = $1 and policy_reason = 'D-3'", [blipId]);
    expect(Number(fallbacks!.n)).toBe(0);
  });

  it('counts the whole streak: one flip set into disallow and one back, over 34 nights', async () => {
    const [flips] = await rows<{ n: string }>(p, 'select count(*) as n from verdict_flips where site_id = $1', [siteId]);
    expect(Number(flips!.n)).toBe(2 * 2 * agents.length);
    const [runs] = await rows<{ n: string }>(p, "select count(*) as n from audit_runs where status = 'completed'");
    expect(Number(runs!.n)).toBe(LAST_FAILING_NIGHT + 2);
  });
});
