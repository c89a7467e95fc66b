/**
 * A draft against the robots.txt in force (src/services/draft-check.ts): the flips, their
 * severities as the nightly alert rules give them, the gate of `--fail-on`, and what the draft is
 * read as (the 500 KiB cut, R-18).
 */
import { describe, expect, it } from 'vitest';
import { checkDraft, groupFlips, groupUsageFlips, isAccessAlert } from '../../../src/services/draft-check.js';
import type { CurrentRobots, DraftAgent, DraftCheckInput } from '../../../src/services/draft-check.js';
import type { AlertSeverity } from '../../../src/night/vocabulary.js';

const ORIGIN = 'https://shop.example';
const SHOP = 'User-agent: *\nDisallow: /cart\nDisallow: /checkout/\nAllow: /products/\n';
const bytes = (text: string) => new TextEncoder().encode(text);

const GOOGLEBOT: DraftAgent = { token: 'Googlebot', family: 'search', category: 'search' };
const GPTBOT: DraftAgent = { token: 'GPTBot', family: 'ai', category: 'ai-training' };
const AHREFS: DraftAgent = { token: 'AhrefsBot', family: 'seo', category: 'seo' };

const rulesInForce = (text: string): CurrentRobots => ({ outcome: 'ok', policy: 'rules', policyReason: 'R-10', rulesBody: bytes(text), lastGoodBody: bytes(text) });

function input(draft: string, overrides: Partial<DraftCheckInput> = {}): DraftCheckInput {
  return {
    origin: ORIGIN,
    current: rulesInForce(SHOP),
    draft: bytes(draft),
    maxBodyBytes: 512_000,
    targets: [
      { url: `${ORIGIN}/`, isRoot: true, agents: [GOOGLEBOT, GPTBOT] },
      { url: `${ORIGIN}/products/blue-widget`, isRoot: false, agents: [GOOGLEBOT, GPTBOT] },
    ],
    rootCrawlers: [],
    diffCrawlers: ['Googlebot', 'GPTBot'],
    failOn: 'critical',
    ...overrides,
  };
}

describe('the staging `Disallow: /` (the issue\'s example)', () => {
  const report = checkDraft(input('User-agent: *\nDisallow: /\n'));

  it('flips the tracked URL and the root for Googlebot, with the deciding lines before and after', () => {
    const google = report.flips.filter((f) => f.crawler === 'Googlebot');
    expect(google.map((f) => [f.url, f.before, f.after, f.ruleBefore, f.ruleAfter])).toEqual([
      [`${ORIGIN}/`, true, false, null, { kind: 'disallow', value: '/', line: 2 }],
      [`${ORIGIN}/products/blue-widget`, true, false, { kind: 'allow', value: '/products/', line: 4 }, { kind: 'disallow', value: '/', line: 2 }],
    ]);
    expect(google.every((f) => f.alert?.severity === 'critical' && f.alert.kind === 'search_url_disallowed')).toBe(true);
  });

  it('raises the nightly alerts: Disallow: / for * and the search URLs (critical), AI access (warning)', () => {
    expect(report.alerts.map((a) => [a.kind, a.severity, a.failing])).toEqual([
      ['disallow_all_added', 'critical', true],
      ['search_url_disallowed', 'critical', true],
      ['rules_changed', 'warning', false],
      ['ai_access_changed', 'warning', false],
    ]);
    expect(report.failing).toBe(true);
    expect(report.alerts.find((a) => a.kind === 'disallow_all_added')?.lines).toEqual([2]);
  });

  it('says what the * group and the crawlers that follow it lose and gain', () => {
    const star = report.crawlers.find((c) => c.crawler === '*')!;
    expect(star.gained.map((r) => r.value)).toEqual(['/']);
    expect(star.lost.map((r) => r.value).sort()).toEqual(['/cart', '/checkout/', '/products/']);
    expect(report.lint.map((d) => d.code)).toContain('disallow-all');
  });
});

describe('a draft that only adds a comment', () => {
  it('flips nothing, raises only comments_only, passes at every level', () => {
    for (const failOn of ['critical', 'warning', 'info'] as AlertSeverity[]) {
      const report = checkDraft(input(`# reviewed by SEO\n${SHOP}`, { failOn }));
      expect(report.flips).toEqual([]);
      expect(report.alerts.map((a) => a.kind)).toEqual(['comments_only']);
      expect(report.failing).toBe(false);
    }
  });

  it('the same bytes: identical, no alert', () => {
    const report = checkDraft(input(SHOP));
    expect(report.kinds).toEqual(['identical']);
    expect(report.alerts).toEqual([]);
  });
});

describe('--fail-on: the least severe access alert that fails', () => {
  const cases: { name: string; draft: string; agents?: DraftAgent[]; fails: Record<AlertSeverity, boolean> }[] = [
    { name: 'Googlebot loses a tracked URL (critical)', draft: `${SHOP}\nUser-agent: Googlebot\nDisallow: /products/\n`, fails: { critical: true, warning: true, info: true } },
    { name: 'GPTBot is blocked (warning)', draft: `${SHOP}\nUser-agent: GPTBot\nDisallow: /\n`, fails: { critical: false, warning: true, info: true } },
    { name: 'Googlebot gains /checkout/ (info)', draft: SHOP.replace('Disallow: /checkout/\n', ''), agents: [GOOGLEBOT], fails: { critical: false, warning: false, info: true } },
    { name: 'GPTBot gains /checkout/ too (warning)', draft: SHOP.replace('Disallow: /checkout/\n', ''), fails: { critical: false, warning: true, info: true } },
    { name: 'a sitemap is added (info, not about access)', draft: `${SHOP}\nSitemap: ${ORIGIN}/sitemap.xml\n`, fails: { critical: false, warning: false, info: false } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const agents = c.agents ?? [GOOGLEBOT, GPTBOT];
      const targets = [`${ORIGIN}/checkout/step-1`, `${ORIGIN}/products/blue-widget`].map((url) => ({ url, isRoot: false, agents }));
      for (const failOn of ['critical', 'warning', 'info'] as AlertSeverity[]) {
        expect(checkDraft(input(c.draft, { failOn, targets })).failing, failOn).toBe(c.fails[failOn]);
      }
    });
  }
});

describe('what the draft is read as', () => {
  it('R-18: a Disallow past the 500 KiB cut flips nothing, and lint says the tail is ignored', () => {
    const padding = `# ${'x'.repeat(600)}\n`.repeat(900);
    const report = checkDraft(input(`${SHOP}${padding}User-agent: *\nDisallow: /\n`));
    expect(report.size.bytes).toBeGreaterThan(512_000);
    expect(report.size.ignored).toBe(report.size.bytes - 512_000);
    expect(report.flips).toEqual([]);
    expect(report.lint.map((d) => d.code)).toContain('beyond-size-limit');
  });

  it('D-14: lint includes the crawler-aware usage finding, on the draft as crawlers read it', () => {
    const draft = `${SHOP}Content-Signal: search=yes, ai-train=no\n\nUser-agent: GPTBot\nDisallow: /\nContent-Signal: ai-train=yes\n`;
    const report = checkDraft(input(draft));
    expect(report.lint.filter((d) => d.code.startsWith('usage-')).map((d) => `${d.line}:${d.code}`)).toEqual(['5:usage-contradicts-crawl', '9:usage-contradicts-crawl']);
    // Past the cut, lint reads the whole draft and the crawler-aware finding the part read.
    const padding = `# ${'x'.repeat(600)}\n`.repeat(900);
    const cut = checkDraft(input(`${draft}${padding}User-agent: CCBot\nDisallow: /\nContent-Signal: ai-train=yes\n`));
    expect(cut.lint.filter((d) => d.code === 'usage-contradicts-crawl').map((d) => d.line)).toEqual([5, 9]);
  });

  it('R-42: Googlebot-Image follows the googlebot group the draft adds', () => {
    const image: DraftAgent = { token: 'Googlebot-Image', family: 'search', category: 'search' };
    const report = checkDraft(input(`${SHOP}\nUser-agent: Googlebot\nDisallow: /products/\n`, { targets: [{ url: `${ORIGIN}/products/blue-widget`, isRoot: false, agents: [image] }] }));
    expect(report.flips.map((f) => [f.crawler, f.ruleAfter?.line])).toEqual([['Googlebot-Image', 7]]);
  });

  it("special-case crawlers ignore *: Disallow: / for * flips Googlebot, not AdsBot-Google, whichever is asked first", () => {
    const adsbot: DraftAgent = { token: 'AdsBot-Google', family: 'search', category: 'search' };
    for (const agents of [
      [adsbot, GOOGLEBOT],
      [GOOGLEBOT, adsbot],
    ]) {
      const report = checkDraft(input('User-agent: *\nDisallow: /\n', { targets: [{ url: `${ORIGIN}/products/blue-widget`, isRoot: false, agents }] }));
      expect(report.flips.map((f) => f.crawler)).toEqual(['Googlebot']);
    }
  });

  it('R-40, T26: a group of its own opens to GPTBot the paths * keeps closed (star_rules_bypassed, warning)', () => {
    const report = checkDraft(input(`${SHOP}\nUser-agent: GPTBot\nDisallow: /private/\n`));
    expect(report.starGapsOpened.map((g) => [g.tokens, g.path])).toEqual([
      [['gptbot'], '/cart'],
      [['gptbot'], '/checkout/'],
    ]);
    const alert = report.alerts.find((a) => a.kind === 'star_rules_bypassed')!;
    expect([alert.severity, alert.aboutAccess, alert.lines]).toEqual(['warning', true, [6]]);
  });
});

describe('the policy in force decides what a flip is, as the nightly run does', () => {
  it('R-12: a site answering 404 (full allow) that deploys Disallow: / loses every URL (critical)', () => {
    const current: CurrentRobots = { outcome: 'unavailable', policy: 'allow_all', policyReason: 'R-12', rulesBody: null, lastGoodBody: null };
    const report = checkDraft(input('User-agent: *\nDisallow: /\n', { current }));
    expect(report.flips.filter((f) => f.alert?.kind === 'search_url_disallowed')).toHaveLength(2);
    expect(report.failing).toBe(true);
  });

  it('R-13: a site in full disallow (5xx) that deploys rules recovers: the flips are the site_recovered alert\'s (info)', () => {
    const current: CurrentRobots = { outcome: 'server_error', policy: 'disallow_all', policyReason: 'R-13', rulesBody: null, lastGoodBody: bytes(SHOP) };
    const report = checkDraft(input(SHOP, { current, failOn: 'info' }));
    expect(report.alerts.map((a) => a.kind)).toEqual(['site_recovered']);
    expect(new Set(report.flips.map((f) => f.alert?.kind))).toEqual(new Set(['site_recovered']));
    expect(report.flips.every((f) => !f.before && f.after)).toBe(true);
  });
});

describe('the catalogue at the root', () => {
  it('a catalogued crawler no agent of the site names is compared at the root only, marked untracked', () => {
    const report = checkDraft(input(`${SHOP}\nUser-agent: AhrefsBot\nDisallow: /\n`, { rootCrawlers: [GOOGLEBOT, AHREFS] }));
    expect(report.flips.map((f) => [f.crawler, f.url, f.tracked, f.alert])).toEqual([['AhrefsBot', `${ORIGIN}/`, false, null]]);
    expect(report.compared).toBe(5);
    expect(report.failing).toBe(false);
  });
});

describe('isAccessAlert reads the alert\'s data, whatever its kind', () => {
  it.each([
    [{ flips: [{ url: 'u', agent: 'a', agentFamily: 'search' as const, isRoot: true, from: true, to: false, cause: 'x', ruleBefore: null, ruleAfter: null }] }, true],
    [{ agents: ['*'] }, true],
    [{ gaps: [{ crawlers: ['gptbot'], path: '/x', starLine: 1, groupLine: 3 }] }, true],
    [{ diffLines: ['+ group GPTBot'] }, false],
    [{}, false],
  ])('%j -> %s', (details, expected) => {
    expect(isAccessAlert(details)).toBe(expected);
  });
});

describe('groupFlips', () => {
  it('one line per URL, direction, deciding lines and alert; the most severe first', () => {
    const report = checkDraft(input('User-agent: *\nDisallow: /\n'));
    expect(groupFlips(report.flips).map((g) => [g.alert?.kind ?? null, g.url, g.crawlers.map((c) => c.token)])).toEqual([
      ['search_url_disallowed', `${ORIGIN}/`, ['Googlebot']],
      ['search_url_disallowed', `${ORIGIN}/products/blue-widget`, ['Googlebot']],
      ['ai_access_changed', `${ORIGIN}/`, ['GPTBot']],
      ['ai_access_changed', `${ORIGIN}/products/blue-widget`, ['GPTBot']],
    ]);
  });
});

describe('usage preferences (issue 28, docs/usage-preferences.md): what the draft changes, and the alerts it would raise', () => {
  const SIGNALS = 'User-agent: *\nContent-Signal: search=yes, ai-train=yes\nDisallow: /cart\n';
  const REFUSING = 'User-agent: *\nContent-Signal: search=yes, ai-train=no\nDisallow: /cart\n';
  const signalsInForce = { current: rulesInForce(SIGNALS) };

  it('each tracked URL x agent x purpose that changes, before -> after with the deciding lines', () => {
    const report = checkDraft(input(REFUSING, signalsInForce));
    expect(report.flips).toEqual([]);
    expect(report.usageFlips.map((f) => [f.url, f.crawler, f.purpose, f.before, f.after, f.ruleBefore?.value, f.ruleAfter?.line, f.alert?.kind])).toEqual([
      [`${ORIGIN}/`, 'Googlebot', 'ai-train', 'allowed', 'refused', 'search=yes, ai-train=yes', 2, 'ai_training_refused'],
      [`${ORIGIN}/`, 'GPTBot', 'ai-train', 'allowed', 'refused', 'search=yes, ai-train=yes', 2, 'ai_training_refused'],
      [`${ORIGIN}/products/blue-widget`, 'Googlebot', 'ai-train', 'allowed', 'refused', 'search=yes, ai-train=yes', 2, 'ai_training_refused'],
      [`${ORIGIN}/products/blue-widget`, 'GPTBot', 'ai-train', 'allowed', 'refused', 'search=yes, ai-train=yes', 2, 'ai_training_refused'],
    ]);
    expect(report.usageFlips[0]!.ruleAfter).toEqual({ line: 2, mechanism: 'content-signal', label: 'ai-train', value: 'search=yes, ai-train=no' });
    const alert = report.alerts.find((a) => a.kind === 'ai_training_refused')!;
    expect([alert.severity, alert.aboutAccess, alert.lines]).toEqual(['info', true, [2]]);
  });

  it('the catalogue\'s crawlers at the root are compared for access, not for usage (the night keeps preferences for tracked pairs only)', () => {
    const report = checkDraft(input(REFUSING, { ...signalsInForce, rootCrawlers: [AHREFS] }));
    expect(report.usageFlips.some((f) => f.crawler === 'AhrefsBot')).toBe(false);
  });

  it('--fail-on reads the new kinds\' severities: ai-train allowed is a warning, a refusal info', () => {
    const allowing = checkDraft(input(SIGNALS, { current: rulesInForce(REFUSING), failOn: 'warning' }));
    expect(allowing.alerts.filter((a) => a.failing).map((a) => [a.kind, a.severity])).toEqual([['ai_training_allowed', 'warning']]);
    expect(allowing.failing).toBe(true);
    expect(checkDraft(input(SIGNALS, { current: rulesInForce(REFUSING), failOn: 'critical' })).failing).toBe(false);
    expect(checkDraft(input(REFUSING, { ...signalsInForce, failOn: 'warning' })).failing).toBe(false);
    expect(checkDraft(input(REFUSING, { ...signalsInForce, failOn: 'info' })).failing).toBe(true);
  });

  it('a preference no longer stated is usage_preference_withdrawn; a URL the draft disallows is a verdict flip, not a usage change (D-15)', () => {
    const withdrawn = checkDraft(input('User-agent: *\nContent-Signal: search=yes\nDisallow: /cart\n', signalsInForce));
    expect(new Set(withdrawn.usageFlips.map((f) => `${f.purpose} ${f.before}->${f.after} ${f.alert?.kind}`))).toEqual(new Set(['ai-train allowed->unknown usage_preference_withdrawn']));
    const closed = checkDraft(input('User-agent: *\nContent-Signal: ai-train=no\nDisallow: /products/\n', signalsInForce));
    expect(closed.usageFlips.every((f) => f.url === `${ORIGIN}/`)).toBe(true);
    expect(closed.flips.map((f) => f.url)).toContain(`${ORIGIN}/products/blue-widget`);
  });

  it('from a file that states nothing: the usage changes group per URL and purpose', () => {
    const report = checkDraft(input(REFUSING));
    expect(groupUsageFlips(report.usageFlips).map((g) => [g.url, g.purpose, g.before, g.after, g.crawlers.map((c) => c.token)])).toEqual([
      [`${ORIGIN}/`, 'search', 'unknown', 'allowed', ['Googlebot', 'GPTBot']],
      [`${ORIGIN}/`, 'ai-train', 'unknown', 'refused', ['Googlebot', 'GPTBot']],
      [`${ORIGIN}/products/blue-widget`, 'search', 'unknown', 'allowed', ['Googlebot', 'GPTBot']],
      [`${ORIGIN}/products/blue-widget`, 'ai-train', 'unknown', 'refused', ['Googlebot', 'GPTBot']],
    ]);
  });
});
