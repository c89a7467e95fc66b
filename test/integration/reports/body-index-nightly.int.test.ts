/**
 * What SQL reports read of a body without parsing it (body_rules, body_agent_access,
 * bodies.content_signals), written when a night first stores the body; `agents import` adds the
 * root access of new crawlers to the bodies in use; the star_rules_bypassed alert when a named
 * group newly leaves a `*` Disallow open. Real pipeline: loopback sites, Postgres, Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, alertsOf, replayNight, rows } from '../../helpers/nightly.js';
import type { Night } from '../../helpers/nightly.js';

const NIGHT_1 = '2026-04-01T03:00:00.000Z';
const NIGHT_2 = '2026-04-02T03:00:00.000Z';
const NEWS_1 = 'User-agent: *\nDisallow: /private/\nDisallow: /drafts/\nContent-Signal: search=yes, ai-train=no\n';
// Night 2: a GPTBot group that disallows /tmp/ only: /private/ and /drafts/ are open to GPTBot now.
const NEWS_2 = `${NEWS_1}\nUser-agent: GPTBot\nDisallow: /tmp/\n\nUser-agent: CCBot\nDisallow: /\n`;

let p: Pipeline;
let news: number;
let night2: Night;

beforeAll(async () => {
  p = await startPipeline();
  ({ news } = await addSites(p, ['news']));
  await replayNight(p, NIGHT_1, { news: NEWS_1 });
  night2 = await replayNight(p, NIGHT_2, { news: NEWS_2 });
}, 60_000);

afterAll(async () => {
  await p?.close();
});

async function currentBody(): Promise<number> {
  const [state] = await rows<{ rules_body_id: number }>(p, 'select rules_body_id from site_state where site_id = $1', [news]);
  return state!.rules_body_id;
}

describe('a body stored by a night is indexed in the same transaction', () => {
  it('body_rules: every rule with its line, group and the group\'s user-agents', async () => {
    const rules = await rows(p, 'select r.line, r.group_no, r.kind, g.user_agents, r.value from body_rules r join body_groups g using (body_id, group_no) where r.body_id = $1 order by r.line', [await currentBody()]);
    expect(rules).toEqual([
      { line: 2, group_no: 0, kind: 'disallow', user_agents: ['*'], value: '/private/' },
      { line: 3, group_no: 0, kind: 'disallow', user_agents: ['*'], value: '/drafts/' },
      { line: 7, group_no: 1, kind: 'disallow', user_agents: ['GPTBot'], value: '/tmp/' },
      { line: 10, group_no: 2, kind: 'disallow', user_agents: ['CCBot'], value: '/' },
    ]);
  });

  it('body_agent_access: the * answer at the root, and only the crawlers that answer otherwise', async () => {
    const access = await rows<{ token: string; allowed: boolean; rule_line: number | null }>(
      p,
      'select token, allowed, rule_line from body_agent_access where body_id = $1 order by token',
      [await currentBody()],
    );
    expect(access.find((a) => a.token === '*')).toEqual({ token: '*', allowed: true, rule_line: null });
    expect(access.find((a) => a.token === 'ccbot')).toEqual({ token: 'ccbot', allowed: false, rule_line: 10 });
    // GPTBot's root is allowed, as for *, by no rule: not an exception.
    expect(access.map((a) => a.token)).not.toContain('gptbot');
    expect(access.every((a) => a.token === '*' || a.token === a.token.toLowerCase())).toBe(true);
  });

  it('bodies.content_signals: the Content-Signal values, and the ai_access view shows them per crawler', async () => {
    const [body] = await rows(p, 'select content_signals, indexed from bodies where id = $1', [await currentBody()]);
    expect(body).toEqual({ content_signals: ['search=yes, ai-train=no'], indexed: true });
    const access = await rows<{ token: string; allowed: boolean; since: Date; content_signals: string[] }>(
      p,
      "select token, allowed, since, content_signals from ai_access where site_id = $1 and token in ('CCBot', 'GPTBot') order by token",
      [news],
    );
    expect(access).toEqual([
      { token: 'CCBot', allowed: false, since: new Date(NIGHT_2), content_signals: ['search=yes, ai-train=no'] },
      { token: 'GPTBot', allowed: true, since: new Date(NIGHT_1), content_signals: ['search=yes, ai-train=no'] },
    ]);
  });
});

describe('star_rules_bypassed (R-40: a crawler obeys only its own group)', () => {
  it('night 2 raises one warning naming GPTBot and the two * paths it may now crawl, with both lines', async () => {
    const alerts = (await alertsOf(p, night2.runId, news)).filter((a) => a.kind === 'star_rules_bypassed');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ severity: 'warning', title: expect.stringContaining('2 paths disallowed for * now open to gptbot') });
    expect(alerts[0]!.details).toMatchObject({
      gapsTotal: 2,
      gaps: [
        { crawlers: ['gptbot'], path: '/private/', starLine: 2, groupLine: 6 },
        { crawlers: ['gptbot'], path: '/drafts/', starLine: 3, groupLine: 6 },
      ],
    });
  });

  it('a night that changes nothing raises it no more', async () => {
    const night3 = await replayNight(p, '2026-04-03T03:00:00.000Z', { news: NEWS_2 });
    expect((await alertsOf(p, night3.runId, news)).map((a) => a.kind)).toEqual([]);
  });
});

describe('agents import: new crawlers get their root answer on the bodies in use', () => {
  it('a crawler named in the file but new to the catalogue is indexed by the import', async () => {
    const body = NEWS_2.replace('User-agent: CCBot', 'User-agent: CCBot\nUser-agent: FreshAiBot');
    const night = await replayNight(p, '2026-04-04T03:00:00.000Z', { news: body });
    expect(night.runId).toBeGreaterThan(0);
    const bodyId = await currentBody();
    const before = await rows(p, "select token from body_agent_access where body_id = $1 and token = 'freshaibot'", [bodyId]);
    expect(before).toEqual([]);
    const robotsJson = JSON.stringify({ FreshAiBot: { operator: 'Fresh Labs', function: 'AI Data Scrapers' } });
    const imported = await p.cli(['agents', 'import', '-', '--json'], robotsJson);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ added: ['FreshAiBot'], bodiesReindexed: expect.any(Number) });
    expect(await rows(p, "select token, allowed, rule_line from body_agent_access where body_id = $1 and token = 'freshaibot'", [bodyId])).toEqual([
      { token: 'freshaibot', allowed: false, rule_line: 11 },
    ]);
    const [access] = await rows(p, "select allowed, category from ai_access where site_id = $1 and token = 'FreshAiBot'", [news]);
    expect(access).toEqual({ allowed: false, category: 'ai-training' });
  });
});
