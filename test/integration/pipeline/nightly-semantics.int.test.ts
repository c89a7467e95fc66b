/**
 * Nightly pipeline, what a night's change means: a comment-only edit (R-23: no crawler reads
 * a difference), a 404 (R-12: full allow), and a GPTBot group appearing (R-40: only GPTBot's
 * group changes). Each case has its own site in its own portfolio, replayed with
 * `audit --portfolio`, so the cases do not see each other's sites.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, alertsOf, changeOf, defaultAgentTokens, flipsOf, replayNight, snapshotOf, track, verdictsOn } from '../../helpers/nightly.js';

const NIGHT_1 = '2026-04-01T03:00:00.000Z';
const NIGHT_2 = '2026-04-02T03:00:00.000Z';
const BASE = 'User-agent: *\nDisallow: /private/\n';

let p: Pipeline;
let agents: string[];

beforeAll(async () => {
  p = await startPipeline();
  agents = await defaultAgentTokens(p);
});
afterAll(async () => p?.close());

/** Night 1 serves BASE, night 2 serves `tonight`; returns the site id and night 2's run id. */
async function twoNights(name: string, tonight: string | { status: number; body: string }, tracked: string[]) {
  const { [name]: siteId } = await addSites(p, [name], name);
  await track(p, name, tracked);
  await replayNight(p, NIGHT_1, { [name]: BASE }, { portfolio: name });
  const { runId } = await replayNight(p, NIGHT_2, { [name]: tonight }, { portfolio: name });
  return { siteId: siteId!, runId };
}

describe('R-23: a comment-only change is info and flips nothing', () => {
  it('stores raw + comments_only, no verdict flip, one info alert comments_only', async () => {
    const tonight = '# edited by ops, 2026-04-02\nUser-agent: *\n\nDisallow: /private/   # keep crawlers out\n';
    const { siteId, runId } = await twoNights('comments', tonight, ['/private/x', '/products/a']);

    const change = await changeOf(p, runId, siteId);
    expect(change?.kinds).toEqual(['raw', 'comments_only']);
    expect(change?.text_diff).toContain('+# edited by ops');
    expect(await flipsOf(p, runId, siteId)).toEqual([]);
    const alerts = await alertsOf(p, runId, siteId);
    expect(alerts.map((a) => [a.severity, a.kind])).toEqual([['info', 'comments_only']]);
    // The verdict of /private/x stands, now decided by line 4 instead of line 2.
    const verdict = (await verdictsOn(p, runId, siteId)).find((v) => v.url === `${p.origin('comments')}/private/x` && v.token === 'Googlebot');
    expect(verdict).toEqual({ url: `${p.origin('comments')}/private/x`, token: 'Googlebot', allowed: false, rule_line: 4 });
  });
});

describe('R-12: a 404 is full allow', () => {
  it('flips previously disallowed URLs to allowed for every agent and raises a warning allow_all_4xx', async () => {
    const { siteId, runId } = await twoNights('gone', { status: 404, body: 'not here\n' }, ['/private/x', '/products/a']);

    const snapshot = await snapshotOf(p, runId, siteId);
    expect(snapshot).toMatchObject({ outcome: 'unavailable', policy: 'allow_all', policy_reason: 'R-12', rules_run_id: null, body_id: null });
    const change = await changeOf(p, runId, siteId);
    expect(change).toMatchObject({ kinds: ['outcome', 'policy'], outcome_from: 'ok', outcome_to: 'unavailable', policy_from: 'rules', policy_to: 'allow_all' });

    const flips = await flipsOf(p, runId, siteId);
    // Only /private/x was disallowed; the root and /products/a were allowed and stay so.
    expect(flips.map((f) => f.token)).toEqual(agents);
    for (const f of flips) {
      expect(f).toMatchObject({
        url: `${p.origin('gone')}/private/x`,
        from_allowed: false,
        to_allowed: true,
        cause: 'outcome_changed',
        rule_before: { line: 2, kind: 'disallow', value: '/private/', pattern: '/private/' },
        rule_after: null,
      });
    }

    const alerts = await alertsOf(p, runId, siteId);
    // The policy transition explains the flips: no search_url_allowed or ai_access_changed of their own.
    expect(alerts.map((a) => [a.severity, a.kind])).toEqual([['warning', 'allow_all_4xx']]);
    expect(alerts[0]!.details).toMatchObject({ policy: { from: 'rules', to: 'allow_all', reason: 'R-12', outcomeTo: 'unavailable' }, flipsTotal: agents.length });
  });
});

describe('R-40: a GPTBot group appearing changes GPTBot only', () => {
  it('flips the root for GPTBot alone and raises ai_access_changed, nothing critical', async () => {
    const tonight = `${BASE}\nUser-agent: GPTBot\nDisallow: /\n`;
    // /private/x is disallowed for GPTBot before (line 2, *) and after (line 5, its own group): no flip.
    const { siteId, runId } = await twoNights('aiblock', tonight, ['/private/x']);

    const flips = await flipsOf(p, runId, siteId);
    expect(flips).toEqual([
      {
        url: `${p.origin('aiblock')}/`,
        token: 'GPTBot',
        from_allowed: true,
        to_allowed: false,
        cause: 'rules_changed',
        rule_before: null,
        rule_after: { line: 5, kind: 'disallow', value: '/', pattern: '/' },
      },
    ]);

    const change = await changeOf(p, runId, siteId);
    expect(change?.kinds).toEqual(['raw', 'rules']);
    expect(change?.rule_diff).toMatchObject({ agentsAdded: ['gptbot'], agents: [{ token: 'gptbot', change: 'added', disallowAllAdded: true }] });

    const alerts = await alertsOf(p, runId, siteId);
    expect(alerts.map((a) => [a.severity, a.kind])).toEqual([
      ['warning', 'ai_access_changed'],
      ['warning', 'rules_changed'],
    ]);
    const ai = alerts[0]!;
    expect(ai.details.flips?.map((f) => [f.url, f.agent, f.from, f.to])).toEqual([[`${p.origin('aiblock')}/`, 'GPTBot', true, false]]);
    expect(ai.title).toContain('1 newly blocked');
  });
});

describe('R-42: a crawler with several product tokens follows its most specific group', () => {
  it('Googlebot-Image obeys the googlebot group when the file has none of its own, and its own group once it has one', async () => {
    const { img: siteId } = await addSites(p, ['img'], 'img');
    const tracked = await p.cli(['track', p.origin('img'), '/photos/a.jpg', '--ua', 'Googlebot-Image']);
    expect(tracked.code, tracked.stderr).toBe(0);
    const verdict = async (runId: number) =>
      (await verdictsOn(p, runId, siteId)).filter((v) => v.url.endsWith('/photos/a.jpg') && v.token === 'Googlebot-Image').map((v) => ({ allowed: v.allowed, rule_line: v.rule_line }));
    // Night 1: only `*` and `googlebot` groups; the googlebot group's rule (line 5) decides.
    const night1 = await replayNight(p, NIGHT_1, { img: 'User-agent: *\nAllow: /\n\nUser-agent: Googlebot\nDisallow: /photos/\n' }, { portfolio: 'img' });
    expect(await verdict(night1.runId)).toEqual([{ allowed: false, rule_line: 5 }]);
    // Night 2: a googlebot-image group of its own; only it applies from now on.
    const night2 = await replayNight(
      p,
      NIGHT_2,
      { img: 'User-agent: *\nAllow: /\n\nUser-agent: Googlebot\nDisallow: /photos/\n\nUser-agent: Googlebot-Image\nAllow: /photos/\n' },
      { portfolio: 'img' },
    );
    expect(await verdict(night2.runId)).toEqual([{ allowed: true, rule_line: 8 }]);
    const flips = await flipsOf(p, night2.runId, siteId!);
    expect(flips.filter((f) => f.token === 'Googlebot-Image')).toEqual([
      expect.objectContaining({ from_allowed: false, to_allowed: true, cause: 'rules_changed', rule_after: { line: 8, kind: 'allow', value: '/photos/', pattern: '/photos/' } }),
    ]);
  });
});
