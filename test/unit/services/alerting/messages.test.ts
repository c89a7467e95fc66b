import { describe, expect, it } from 'vitest';
import type { AlertDraft, VerdictFlip } from '../../../../src/night/alerts.js';
import { WEBHOOK_EVENT_ALERT, WEBHOOK_EVENT_DIGEST, alertWebhookPayload, digestWebhookPayload, escapeMrkdwn, slackAlertMessage, slackDigestMessage, webhookBody } from '../../../../src/services/alerting/messages.js';
import type { SlackBlock, SlackMessage } from '../../../../src/services/alerting/messages.js';
import { diffRobotsTxt } from '../../../../src/robots/diff.js';
import { parseRobotsTxt } from '../../../../src/robots/index.js';
import { jsonbTextBytes } from '../../../../src/services/alerting/alert-bounds.js';
import { MAX_ALERT_DETAILS_BYTES, MAX_ALERT_TITLE_CHARS, SLACK_BLOCKS_BUDGET_CHARS, SLACK_BODY_MAX_BYTES, SLACK_MAX_BLOCKS, SLACK_MAX_FLIPS, SLACK_SECTION_MAX_CHARS, WEBHOOK_ALERT_MAX_BYTES, WEBHOOK_DIGEST_MAX_ALERTS, WEBHOOK_DIGEST_MAX_BYTES, WEBHOOK_TEXT_DIFF_MAX_CHARS } from '../../../../src/services/alerting/size-limits.js';
import { hostileAlerts } from '../../../helpers/hostile-alerts.js';
import { alertsOfNight, type NightWithoutTransitions } from '../../../helpers/night-alerts.js';

const raisedAt = new Date('2026-01-02T03:04:05.000Z');
const BASE = 'User-agent: *\nDisallow: /cart\n';

function nightFor(origin: string, siteId: string, after: string, flips: VerdictFlip[] = []): NightWithoutTransitions {
  const rulesDiff = diffRobotsTxt(parseRobotsTxt(BASE), parseRobotsTxt(after), {
    before: new TextEncoder().encode(BASE),
    after: new TextEncoder().encode(after),
  });
  return {
    runId: 'run-7',
    siteId,
    origin,
    change: {
      kinds: rulesDiff.kinds,
      rulesDiff,
      outcomeFrom: 'ok',
      outcomeTo: 'ok',
      policyFrom: 'rules',
      policyTo: 'rules',
      policyReasonTo: 'R-10',
      fallbackStarted: false,
      fallbackEnded: false,
    },
    flips,
  };
}

const blocked = (origin: string, path: string, agent = 'Googlebot'): VerdictFlip => ({
  url: `${origin}${path}`,
  agent,
  agentFamily: 'search',
  isRoot: path === '/',
  from: true,
  to: false,
  cause: 'rules',
  ruleBefore: null,
  ruleAfter: { kind: 'disallow', value: '/', line: 3 },
});

/** disallow_all_added, search_url_disallowed and rules_changed for one site. */
const alertsOf = (origin: string, siteId: string, flips = [blocked(origin, '/')]) => alertsOfNight(nightFor(origin, siteId, `${BASE}Disallow: /\n`, flips));

const allText = (m: SlackMessage) =>
  m.blocks.map((b: SlackBlock) => (b.type === 'section' ? b.text.text : b.type === 'context' ? b.elements.map((e) => e.text).join('') : '')).join('\n');

function expectWithinSlackLimits(m: SlackMessage): void {
  expect(m.blocks.length).toBeLessThanOrEqual(SLACK_MAX_BLOCKS);
  for (const b of m.blocks) if (b.type === 'section') expect(b.text.text.length).toBeLessThanOrEqual(SLACK_SECTION_MAX_CHARS);
  expect(allText(m).length).toBeLessThanOrEqual(SLACK_BLOCKS_BUDGET_CHARS);
}

describe('webhook payloads (Standard Webhooks: type, timestamp, data)', () => {
  it('one alert: type, when it was raised, the alert and its details', () => {
    const alert = alertsOf('https://a.example', 's1')[0]!;
    const payload = alertWebhookPayload(alert, { raisedAt });
    expect(payload.type).toBe(WEBHOOK_EVENT_ALERT);
    expect(payload.timestamp).toBe('2026-01-02T03:04:05.000Z');
    expect(payload.data).toMatchObject({ id: alert.dedupeKey, severity: 'critical', kind: 'disallow_all_added', siteId: 's1', origin: 'https://a.example', runId: 'run-7' });
    expect(payload.data.details.agents).toEqual(['*']);
    expect(payload.data.textDiff).toBeUndefined();
  });

  it('carries the text diff, truncated past its cap', () => {
    const alert = alertsOf('https://a.example', 's1')[0]!;
    expect(alertWebhookPayload(alert, { raisedAt, textDiff: '+Disallow: /' }).data).toMatchObject({ textDiff: '+Disallow: /', textDiffTruncated: false });
    const long = alertWebhookPayload(alert, { raisedAt, textDiff: 'x'.repeat(WEBHOOK_TEXT_DIFF_MAX_CHARS * 2) }).data;
    expect(long.textDiffTruncated).toBe(true);
    expect(long.textDiff!.length).toBeLessThan(WEBHOOK_TEXT_DIFF_MAX_CHARS + 20);
  });

  it('the body is minified JSON that parses back to the payload', () => {
    const payload = alertWebhookPayload(alertsOf('https://a.example', 's1')[0]!, { raisedAt });
    const body = webhookBody(payload);
    expect(body).not.toContain('\n');
    expect(JSON.parse(body)).toEqual(payload);
  });

  it('digest: counts by severity, sites, alerts most severe first', () => {
    const alerts = [...alertsOf('https://b.example', 's2'), ...alertsOf('https://a.example', 's1')];
    const payload = digestWebhookPayload(alerts, { runId: 'run-7', finishedAt: raisedAt });
    expect(payload.type).toBe(WEBHOOK_EVENT_DIGEST);
    expect(payload.data.counts).toEqual({ critical: 4, warning: 2, info: 0 });
    expect(payload.data.sites).toBe(2);
    expect(payload.data.omitted).toBe(0);
    expect(payload.data.alerts.map((a) => `${a.severity} ${a.origin}`)).toEqual([
      'critical https://a.example',
      'critical https://a.example',
      'critical https://b.example',
      'critical https://b.example',
      'warning https://a.example',
      'warning https://b.example',
    ]);
  });

  it('issue 26: a run digest lists the sites it did not wait for; a late digest says it is one', () => {
    const alerts = alertsOf('https://a.example', 's1');
    const pending = [{ origin: 'https://slow.example', until: new Date('2026-11-23T04:00:00.000Z') }];
    const main = digestWebhookPayload(alerts, { runId: 'run-7', finishedAt: raisedAt, pending });
    expect(main.data).toMatchObject({ late: false, pending: [{ origin: 'https://slow.example', until: '2026-11-23T04:00:00.000Z' }] });
    const late = digestWebhookPayload(alerts, { runId: 'run-7', finishedAt: raisedAt, late: true, pending });
    expect(late.data).toMatchObject({ late: true, pending: [] });
    expect(digestWebhookPayload(alerts, { runId: 'run-7', finishedAt: raisedAt }).data).toMatchObject({ late: false, pending: [] });
    const slack = slackDigestMessage(alerts, { runId: 'run-7', finishedAt: raisedAt, pending });
    expect(allText(slack)).toContain('https://slow.example until 2026-11-23T04:00:00.000Z');
    expect(slackDigestMessage(alerts, { runId: 'run-7', finishedAt: raisedAt, late: true }).text).toMatch(/^robots-audit run run-7, late sites: /);
  });

  it(`digest: lists at most ${WEBHOOK_DIGEST_MAX_ALERTS} alerts and counts the rest`, () => {
    const many = Array.from({ length: WEBHOOK_DIGEST_MAX_ALERTS / 2 + 10 }, (_, i) => alertsOf(`https://s${i}.example`, `s${i}`).slice(0, 2)).flat();
    const payload = digestWebhookPayload(many, { runId: 'run-7', finishedAt: raisedAt });
    expect(payload.data.alerts).toHaveLength(WEBHOOK_DIGEST_MAX_ALERTS);
    expect(payload.data.omitted).toBe(20);
    expect(payload.data.counts.critical).toBe(many.length);
  });
});

describe('Slack: one alert', () => {
  it('names the severity without emoji, the site, the diff lines and the flipped URLs', () => {
    const alerts = alertsOf('https://a.example', 's1', [blocked('https://a.example', '/shop', 'Googlebot')]);
    const search = alerts.find((a) => a.kind === 'search_url_disallowed')!;
    const message = slackAlertMessage(search, { raisedAt, textDiff: '--- robots.txt (before)\n+++ robots.txt (after)\n+Disallow: /' });
    expect(message.text).toBe(`[CRITICAL] ${search.title}`);
    const text = allText(message);
    expect(text).toContain('*[CRITICAL]*');
    expect(text).toContain('*Site:* https://a.example');
    expect(text).toContain('```\n--- robots.txt (before)\n+++ robots.txt (after)\n+Disallow: /\n```');
    expect(text).toContain('• https://a.example/shop - Googlebot: allowed -&gt; disallowed (line 3: Disallow: /)');
    expect(text).toContain(search.dedupeKey);
    expect(text).not.toMatch(/:[a-z_]+:|[\u{1F300}-\u{1FAFF}]/u);
    expectWithinSlackLimits(message);
  });

  it('without a text diff, shows the semantic diff lines', () => {
    const rules = alertsOf('https://a.example', 's1').find((a) => a.kind === 'rules_changed')!;
    expect(allText(slackAlertMessage(rules, { raisedAt }))).toContain('```\n~ group *\n    + Disallow: /\n```');
  });

  it('escapes &, < and > so that Slack shows them as written', () => {
    expect(escapeMrkdwn('<a href="x">&</a>')).toBe('&lt;a href="x"&gt;&amp;&lt;/a&gt;');
    const alert: AlertDraft = { ...alertsOf('https://a.example', 's1')[0]!, title: 'Disallow: /<script>' };
    const text = allText(slackAlertMessage(alert, { raisedAt, textDiff: '+Disallow: /a&b<c>' }));
    expect(text).toContain('/&lt;script&gt;');
    expect(text).toContain('+Disallow: /a&amp;b&lt;c&gt;');
    expect(text).not.toContain('<script>');
  });

  it('a diff containing ``` cannot close the code block early', () => {
    const alert = alertsOf('https://a.example', 's1')[0]!;
    const section = slackAlertMessage(alert, { raisedAt, textDiff: '+# ```rm -rf```' }).blocks.find(
      (b) => b.type === 'section' && b.text.text.startsWith('```'),
    );
    expect(section).toBeDefined();
    const text = section!.type === 'section' ? section!.text.text : '';
    expect(text.match(/```/g)).toHaveLength(2);
  });

  it(`truncates a long diff and lists at most ${SLACK_MAX_FLIPS} flips, counting the rest`, () => {
    const origin = 'https://a.example';
    const flips = Array.from({ length: 60 }, (_, i) => blocked(origin, `/p/${i}`));
    const search = alertsOf(origin, 's1', flips).find((a) => a.kind === 'search_url_disallowed')!;
    const hugeDiff = Array.from({ length: 2000 }, (_, i) => `+Disallow: /x${i}`).join('\n');
    const message = slackAlertMessage(search, { raisedAt, textDiff: hugeDiff });
    const text = allText(message);
    expect(text).toContain('… truncated');
    expect(text).toContain('*Flipped verdicts (60):*');
    expect(text.match(/^• /gm)).toHaveLength(SLACK_MAX_FLIPS);
    expect(text).toContain(`… ${60 - SLACK_MAX_FLIPS} more`);
    expectWithinSlackLimits(message);
  });

  it('a policy alert shows the transition', () => {
    const [alert] = alertsOfNight({
      ...nightFor('https://a.example', 's1', BASE),
      change: { ...nightFor('https://a.example', 's1', BASE).change, kinds: [], rulesDiff: null, outcomeTo: 'server_error', policyTo: 'disallow_all', policyReasonTo: 'R-13' },
    });
    expect(allText(slackAlertMessage(alert!, { raisedAt }))).toContain('Policy: rules -&gt; disallow_all (R-13; fetch ok -&gt; server_error)');
  });
});

describe('Slack: flapping and challenges say what they are about', () => {
  const A = 'aa'.repeat(32);
  const B = 'bb'.repeat(32);
  it('flapping_started lists the versions in rotation and the verdicts that differ between them', () => {
    const [alert] = alertsOfNight({
      ...nightFor('https://f.example', 's9', BASE),
      flapping: {
        flapping: true,
        event: 'started',
        cause: 'returned',
        versions: [
          { sha256: A, firstSeen: '2026-01-01T03:00:00.000Z' },
          { sha256: B, firstSeen: '2026-01-02T03:00:00.000Z' },
        ],
        differences: [{ url: 'https://f.example/new', agent: 'Googlebot', agentFamily: 'search', isRoot: false, allowedBy: { [A]: true, [B]: false } }],
        rulesDiffer: true,
        stayed: null,
        since: '2026-01-03T03:00:00.000Z',
      },
    });
    const text = allText(slackAlertMessage(alert!, { raisedAt }));
    expect(text).toContain(`*Versions in rotation:* ${A.slice(0, 12)} (first served 2026-01-01), ${B.slice(0, 12)} (first served 2026-01-02)`);
    expect(text).toContain(`• https://f.example/new - Googlebot: ${A.slice(0, 12)} allowed, ${B.slice(0, 12)} disallowed`);
  });

  it('challenge_started says which User-Agent to let through', () => {
    const [alert] = alertsOfNight({
      ...nightFor('https://w.example', 's8', BASE),
      challenge: { started: true, ended: false, since: null, vendor: 'cloudflare', signal: 'cf-mitigated: challenge', status: 403, userAgent: 'robots-audit/0.1' },
    });
    expect(allText(slackAlertMessage(alert!, { raisedAt }))).toContain('*What to do:* Let the User-Agent "robots-audit/0.1" fetch /robots.txt through Cloudflare');
  });
});

describe('Slack: the digest of a run', () => {
  it('summarises counts and groups alerts by site, most severe sites first', () => {
    const warnOnly = alertsOfNight(nightFor('https://w.example', 's3', `${BASE}Disallow: /tmp\n`));
    const alerts = [...warnOnly, ...alertsOf('https://z.example', 's2'), ...alertsOf('https://a.example', 's1')];
    const message = slackDigestMessage(alerts, { runId: 'run-7', finishedAt: raisedAt });
    expect(message.text).toBe('robots-audit run run-7: 4 critical, 3 warning, 0 info on 3 sites');
    const sites = message.blocks
      .filter((b): b is Extract<SlackBlock, { type: 'section' }> => b.type === 'section')
      .slice(1)
      .map((b) => b.text.text.split('\n')[0]);
    expect(sites).toEqual(['*https://a.example*', '*https://z.example*', '*https://w.example*']);
    const a = message.blocks.find((b) => b.type === 'section' && b.text.text.startsWith('*https://a.example*'));
    expect(a && a.type === 'section' ? a.text.text.split('\n').slice(1) : []).toEqual(alertsOf('https://a.example', 's1').map((x) => `• *[${x.severity.toUpperCase()}]* ${x.title}`));
    expectWithinSlackLimits(message);
  });

  it('an empty run says so in one block', () => {
    const message = slackDigestMessage([], { runId: 'run-8', finishedAt: raisedAt });
    expect(message.text).toBe('robots-audit run run-8: 0 critical, 0 warning, 0 info on 0 sites');
    expect(message.blocks).toHaveLength(1);
  });

  it('hundreds of sites: stays within 50 blocks and the character budget, and says how many sites were left out', () => {
    const alerts = Array.from({ length: 300 }, (_, i) => alertsOf(`https://site-${String(i).padStart(3, '0')}.example`, `s${i}`)).flat();
    const message = slackDigestMessage(alerts, { runId: 'run-9', finishedAt: raisedAt });
    expectWithinSlackLimits(message);
    const last = message.blocks.at(-1)!;
    expect(last.type).toBe('context');
    const shownSites = message.blocks.filter((b) => b.type === 'section').length - 1;
    expect(last.type === 'context' ? last.elements[0]!.text : '').toBe(`… ${300 - shownSites} sites not shown`);
    expect(message.text).toContain('on 300 sites');
  });

  it(`many sites with short alerts: the ${SLACK_MAX_BLOCKS}-block limit binds before the character budget`, () => {
    const template = alertsOf('https://a.example', 's1')[0]!;
    const alerts = Array.from({ length: 120 }, (_, i): AlertDraft => ({ ...template, siteId: `s${i}`, origin: `https://s${i}.x`, title: 'x' }));
    const message = slackDigestMessage(alerts, { runId: 'run-9', finishedAt: raisedAt });
    expect(allText(message).length).toBeLessThan(SLACK_BLOCKS_BUDGET_CHARS / 2);
    expect(message.blocks).toHaveLength(SLACK_MAX_BLOCKS);
    const shownSites = message.blocks.filter((b) => b.type === 'section').length - 1;
    const last = message.blocks.at(-1)!;
    expect(last.type === 'context' ? last.elements[0]!.text : '').toBe(`… ${120 - shownSites} sites not shown`);
  });
});

describe('issue 26: every message under its maximum, whatever the alert holds', () => {
  const hostile = hostileAlerts();
  const cases = Object.entries(hostile);
  const bytes = (text: string) => Buffer.byteLength(text);
  /** A list of strings read back: its entries, and the count its last entry gives. */
  const counted = (list: readonly string[] = []) => {
    const m = /^… and (\d+) more .+$/.exec(list.at(-1) ?? '');
    return m ? list.length - 1 + Number(m[1]) : list.length;
  };

  it.each(cases)(`webhook of %s: under ${WEBHOOK_ALERT_MAX_BYTES / 1024} KiB, the details within theirs, the text diff in what remains`, (_, { alert, textDiff }) => {
    const payload = alertWebhookPayload(alert, { raisedAt, textDiff });
    const body = webhookBody(payload);
    expect(bytes(body)).toBeLessThanOrEqual(WEBHOOK_ALERT_MAX_BYTES);
    expect(jsonbTextBytes(payload.data.details)).toBeLessThanOrEqual(MAX_ALERT_DETAILS_BYTES);
    expect(payload.data.title.length).toBeLessThanOrEqual(MAX_ALERT_TITLE_CHARS);
    expect(payload.data.textDiffTruncated).toBe(true);
    expect(payload.data.textDiff).toMatch(/\n… truncated$/);
    expect(JSON.parse(body)).toEqual(payload);
  });

  it('the webhook carries the details of a new alert as they were stored', () => {
    const { alert, textDiff } = hostile['sitemaps_changed of 500 KiB of sitemaps']!;
    expect(alertWebhookPayload(alert, { raisedAt, textDiff }).data.details).toEqual(alert.details);
  });

  it('the details of an alert stored before the bounds are bounded on the way out, their counts exact', () => {
    const { alert } = hostile['stored before the bounds: 8,000 sitemaps each way and a title of 100,000 characters']!;
    const details = alertWebhookPayload(alert, { raisedAt }).data.details;
    expect(details.truncated).toBe(true);
    expect(counted(details.sitemapsAdded)).toBe(8_000);
    expect(counted(details.sitemapsRemoved)).toBe(8_000);
  });

  it.each([
    ['ASCII', 'x', 1],
    ['two-byte characters', 'é', 2],
    ['astral characters', '😀', 4],
    ['control characters (\\u0001 in JSON)', '\u0001', 6],
  ])('a text diff of %s is cut by the bytes it takes in the body', (_, char, size) => {
    const { alert } = hostile['sitemaps_changed of 500 KiB of sitemaps']!;
    const payload = alertWebhookPayload(alert, { raisedAt, textDiff: char.repeat(WEBHOOK_TEXT_DIFF_MAX_CHARS * 2) });
    expect(bytes(webhookBody(payload))).toBeLessThanOrEqual(WEBHOOK_ALERT_MAX_BYTES);
    const kept = payload.data.textDiff!.replace(/\n… truncated$/, '');
    expect(kept).toBe(char.repeat(kept.length / char.length));
    expect(kept.length).toBeLessThanOrEqual(WEBHOOK_TEXT_DIFF_MAX_CHARS);
    expect(kept.length).toBeGreaterThan(Math.min(WEBHOOK_TEXT_DIFF_MAX_CHARS, (WEBHOOK_ALERT_MAX_BYTES - 20_000) / size) - 2);
  });

  it(`a digest of 5,000 alerts with long titles: under ${WEBHOOK_DIGEST_MAX_BYTES / 1024} KiB, the most severe listed, the others counted`, () => {
    const template = alertsOf('https://a.example', 's1')[0]!;
    const alerts = Array.from({ length: 5_000 }, (_, i): AlertDraft => ({ ...template, siteId: `s${i}`, origin: `https://s${i}.example`, severity: i % 7 === 0 ? 'critical' : 'info', title: `${'t'.repeat(2_000)}${i}` }));
    const payload = digestWebhookPayload(alerts, { runId: 'run-9', finishedAt: raisedAt });
    expect(bytes(webhookBody(payload))).toBeLessThanOrEqual(WEBHOOK_DIGEST_MAX_BYTES);
    expect(payload.data.alerts.length).toBeGreaterThan(100);
    expect(payload.data.alerts.length + payload.data.omitted).toBe(5_000);
    expect(payload.data.alerts.every((a) => a.severity === 'critical')).toBe(true);
    expect(payload.data.counts).toEqual({ critical: 715, warning: 0, info: 4_285 });
  });

  it.each(cases)(`Slack message of %s: within Slack's limits, under ${SLACK_BODY_MAX_BYTES / 1024} KiB`, (_, { alert, textDiff }) => {
    const message = slackAlertMessage(alert, { raisedAt, textDiff });
    expectWithinSlackLimits(message);
    expect(message.text.length).toBeLessThanOrEqual(MAX_ALERT_TITLE_CHARS + 20);
    expect(bytes(JSON.stringify(message))).toBeLessThanOrEqual(SLACK_BODY_MAX_BYTES);
    // The first block (what and where) and the last (which alert) are always there.
    expect(message.blocks[0]).toMatchObject({ type: 'section' });
    expect(allText(message)).toContain(alert.origin);
  });

  it.each([
    ['a few each way: all shown', 3, 2, []],
    ['thousands each way, cut by the rules: the first shown each way, the others counted', 8_127, 8_127, ['-', '+']],
  ])('Slack, sitemaps changed, %s', (_, removed, added, counted) => {
    const urls = (n: number, v: string) => Array.from({ length: n }, (_, i) => `https://a.example/sitemaps/${v}/products-${i}.xml`);
    const before = `${BASE}${urls(removed, 'v1').map((u) => `Sitemap: ${u}`).join('\n')}\n`;
    const after = `${BASE}${urls(added, 'v2').map((u) => `Sitemap: ${u}`).join('\n')}\n`;
    const night = nightFor('https://a.example', 's1', after);
    const rulesDiff = diffRobotsTxt(parseRobotsTxt(before), parseRobotsTxt(after));
    const [alert] = alertsOfNight({ ...night, change: { ...night.change, rulesDiff, kinds: rulesDiff.kinds } });
    expect(alert!.kind).toBe('sitemaps_changed');
    const message = slackAlertMessage(alert!, { raisedAt });
    expectWithinSlackLimits(message);
    const code = allText(message).split('```')[1]!;
    for (const [sign, total] of [['-', removed], ['+', added]] as const) {
      const shown = code.split('\n').filter((l) => l.startsWith(`${sign} https:`)).length;
      if (counted.includes(sign)) expect(code).toContain(`${sign} … and ${total - shown} more sitemaps`);
      else expect(shown).toBe(total);
    }
  });

  it(`Slack digest of 5,000 alerts with titles of hidden characters: under ${SLACK_BODY_MAX_BYTES / 1024} KiB`, () => {
    const template = alertsOf('https://a.example', 's1')[0]!;
    const alerts = Array.from({ length: 5_000 }, (_, i): AlertDraft => ({ ...template, siteId: `s${i}`, origin: `https://s${i}.example`, title: '\u0001'.repeat(5_000) }));
    const message = slackDigestMessage(alerts, { runId: 'run-9', finishedAt: raisedAt });
    expectWithinSlackLimits(message);
    expect(bytes(JSON.stringify(message))).toBeLessThanOrEqual(SLACK_BODY_MAX_BYTES);
    expect(message.blocks.at(-1)).toMatchObject({ type: 'context' });
  });
});
