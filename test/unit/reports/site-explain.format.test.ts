/**
 * The text of `robots-audit explain`: why the policy applies, per spec rule (R-10..R-15, D-3,
 * D-4), and the verdict with its deciding line and group.
 */
import { describe, expect, it } from 'vitest';
import type { SiteExplanation, SitePolicyState } from '../../../src/reports/site-explain.js';
import { explanationJson, formatExplanation, policyWhy } from '../../../src/reports/site-explain.format.js';
import { explainUnderState } from '../../../src/reports/site-explain.js';
import { NO_PREFERENCES, NOT_CRAWLABLE_ANSWER } from '../../../src/robots/index.js';

const at = (day: number) => new Date(Date.UTC(2026, 2, 1 + day, 3));

function state(over: Partial<SitePolicyState>): SitePolicyState {
  return {
    night: at(40),
    runId: 41,
    runKey: 'nightly-2026-04-10',
    outcome: 'ok',
    status: 200,
    errorCode: null,
    policy: 'rules',
    policyReason: 'R-10',
    unreachableSince: null,
    failedNights: 0,
    rulesNight: at(40),
    rulesRunKey: 'nightly-2026-04-10',
    rulesBodySha256: 'ab'.repeat(32),
    since: at(0),
    sinceRunKey: 'nightly-2026-03-01',
    unverifiedSince: null,
    flappingSince: null,
    ...over,
  };
}

const LATEST = '2026-04-10 03:00Z (run nightly-2026-04-10)';

describe('policyWhy: the rule behind the policy, in words', () => {
  it.each<[string, Partial<SitePolicyState>, string]>([
    ['R-10: fetched OK', {}, `robots.txt was fetched OK (200) on ${LATEST}: its rules apply`],
    [
      'R-11: redirect limit',
      { outcome: 'redirect_limit', status: 301, errorCode: 'REDIRECT_LOOP', policy: 'allow_all', policyReason: 'R-11', since: at(38) },
      `robots.txt redirected past the hop limit or in a loop (REDIRECT_LOOP) since 2026-04-08 03:00Z, latest ${LATEST}: treated as a 404, full allow`,
    ],
    ['R-12: a 4xx on its first night', { outcome: 'unavailable', status: 404, policy: 'allow_all', policyReason: 'R-12', since: at(40) }, `robots.txt answers 404 on ${LATEST}: no valid robots.txt, full allow`],
    [
      'R-12: a 4xx for a while',
      { outcome: 'unavailable', status: 410, policy: 'allow_all', policyReason: 'R-12', since: at(10) },
      `robots.txt answers 410 since 2026-03-11 03:00Z, latest ${LATEST}: no valid robots.txt, full allow`,
    ],
    ['D-4: 429', { outcome: 'rate_limited', status: 429, policy: 'allow_all', policyReason: 'D-4', since: at(40) }, `robots.txt answers 429 (rate limited) on ${LATEST}: a 4xx, so full allow, reported apart`],
    [
      'R-13: a 5xx streak',
      { outcome: 'server_error', status: 503, policy: 'disallow_all', policyReason: 'R-13', unreachableSince: at(38), failedNights: 3 },
      `robots.txt answers 5xx (503) since 2026-04-08 03:00Z, latest ${LATEST}, 3 failed nights in a row: full disallow; after 30 days the last good copy applies (D-3)`,
    ],
    [
      'R-15: a network failure, first night',
      { outcome: 'network_error', status: null, errorCode: 'ENOTFOUND', policy: 'disallow_all', policyReason: 'R-15', unreachableSince: at(40), failedNights: 1 },
      `robots.txt cannot be fetched, a network error (ENOTFOUND), on ${LATEST}, 1 failed night in a row: full disallow; after 30 days the last good copy applies (D-3)`,
    ],
    [
      'D-3: more than 30 days, the last good copy',
      { outcome: 'server_error', status: 500, policy: 'rules', policyReason: 'D-3', unreachableSince: at(2), failedNights: 39, rulesNight: at(1), rulesRunKey: 'nightly-2026-03-02' },
      `unreachable (500) since 2026-03-03 03:00Z, latest ${LATEST}, 39 failed nights in a row: more than 30 days (R-14), so the copy fetched on 2026-03-02 03:00Z (run nightly-2026-03-02) applies`,
    ],
    [
      'D-3: more than 30 days, never a copy',
      { outcome: 'network_error', status: null, errorCode: 'ECONNREFUSED', policy: 'allow_all', policyReason: 'D-3', unreachableSince: at(0), failedNights: 41, rulesNight: null, rulesRunKey: null },
      `unreachable (network error ECONNREFUSED) since 2026-03-01 03:00Z, latest ${LATEST}, 41 failed nights in a row: more than 30 days (R-14), and no copy was ever fetched OK: full allow`,
    ],
    [
      'challenged: the last good rules stand, unverified',
      { outcome: 'challenged', status: 403, errorCode: 'cloudflare', policy: 'rules', policyReason: 'challenged', unverifiedSince: at(37), rulesNight: at(36), rulesRunKey: 'nightly-2026-04-06' },
      `Cloudflare answers instead of the site (403) since 2026-04-07 03:00Z, latest ${LATEST}: what crawlers get there is unknown, so the rules fetched on 2026-04-06 03:00Z (run nightly-2026-04-06) stand, unverified`,
    ],
    [
      'challenged from the first night, no known policy',
      { outcome: 'challenged', status: 429, errorCode: 'cloudflare', policy: 'allow_all', policyReason: 'challenged', unverifiedSince: at(40), rulesNight: null, rulesRunKey: null },
      `Cloudflare answers instead of the site (429) on ${LATEST}: what crawlers get there is unknown, so the last known policy stands, unverified`,
    ],
  ])('%s', (_name, over, why) => {
    expect(policyWhy(state(over))).toBe(why);
  });
});

describe('formatExplanation: a flapping site', () => {
  it('says since when it flaps, and which version the verdict is under', () => {
    const text = formatExplanation(explanation({}, { state: state({ flappingSince: at(39) }) }));
    expect(text).toContain('  flapping since 2026-04-09 03:00Z: its robots.txt alternates between versions');
    expect(explanationJson(explanation({}, { state: state({ flappingSince: at(39) }) })).policy).toMatchObject({ flappingSince: at(39).toISOString(), unverifiedSince: null });
  });
});

function explanation(over: Partial<SiteExplanation['verdict']>, extra: Partial<SiteExplanation> = {}): SiteExplanation {
  return {
    site: { id: 1, origin: 'https://example.com' },
    url: 'https://example.com/private/x',
    path: '/private/x',
    userAgent: 'GPTBot',
    followedAgent: 'GPTBot',
    followed: { rule: 'own', agent: 'GPTBot', source: null },
    crawlerRule: null,
    robotsTxt: null,
    robotsTxtNote: null,
    parser: { profile: 'unknown', basis: 'unknown', source: null, read: '2026-11-24' },
    parserVerdict: null,
    state: state({}),
    verdict: { allowed: false, decidedBy: 'rule', rule: null, group: null, engineReason: null, ...over },
    usage: NOT_CRAWLABLE_ANSWER,
    usageStated: false,
    ...extra,
  };
}

const POLICY_LINE = `  policy: rules (R-10): robots.txt was fetched OK (200) on ${LATEST}: its rules apply`;

describe('formatExplanation: the verdict, the deciding line and its group, the policy', () => {
  it.each<[string, SiteExplanation, string[]]>([
    [
      'a rule of a named group',
      explanation({
        rule: { line: 5, kind: 'disallow', value: '/private/', pattern: '/private/', viaIndexHtml: false },
        group: { kind: 'named', userAgents: [{ value: 'GPTBot', line: 3 }, { value: 'CCBot', line: 4 }] },
      }),
      ['https://example.com/private/x for GPTBot: disallowed', '  deciding line: line 5: Disallow: /private/', '  group: User-agent: GPTBot, CCBot (lines 3, 4)', POLICY_LINE],
    ],
    [
      'a rule of the * group',
      explanation({ rule: { line: 2, kind: 'disallow', value: '/private/', pattern: '/private/', viaIndexHtml: false }, group: { kind: 'global', userAgents: [{ value: '*', line: 1 }] } }),
      ['https://example.com/private/x for GPTBot: disallowed', '  deciding line: line 2: Disallow: /private/', '  group: the * group: User-agent: * (line 1)', POLICY_LINE],
    ],
    [
      'C8: the index.html rule',
      explanation({
        allowed: true,
        rule: { line: 3, kind: 'allow', value: '/docs/index.html', pattern: '/docs/$', viaIndexHtml: true },
        group: { kind: 'global', userAgents: [{ value: '*', line: 1 }] },
      }),
      ['https://example.com/private/x for GPTBot: allowed', '  deciding line: line 3: Allow: /docs/index.html, read as /docs/$ (index.html rule)', '  group: the * group: User-agent: * (line 1)', POLICY_LINE],
    ],
    [
      'no rule matches',
      explanation({ allowed: true, decidedBy: 'no_rule', group: { kind: 'global', userAgents: [{ value: '*', line: 1 }] } }),
      ['https://example.com/private/x for GPTBot: allowed', '  deciding line: none: no rule of the group matches /private/x, so it is allowed', '  group: the * group: User-agent: * (line 1)', POLICY_LINE],
    ],
    [
      'R-43: no group',
      explanation({ allowed: true, decidedBy: 'no_group', group: { kind: 'none', userAgents: [] } }),
      ['https://example.com/private/x for GPTBot: allowed', '  deciding line: none', '  group: no group matched: allowed (no group names GPTBot and there is no * group, R-43)', POLICY_LINE],
    ],
    [
      'R-42: the group of a further product token',
      explanation(
        { rule: { line: 2, kind: 'disallow', value: '/private', pattern: '/private', viaIndexHtml: false }, group: { kind: 'named', userAgents: [{ value: 'Googlebot', line: 1 }] } },
        { userAgent: 'Googlebot-Image', followedAgent: 'googlebot' },
      ),
      [
        'https://example.com/private/x for Googlebot-Image: disallowed',
        '  deciding line: line 2: Disallow: /private',
        '  group: User-agent: Googlebot (line 1)',
        '  Googlebot-Image follows the googlebot group: the file has none of its own (R-42)',
        POLICY_LINE,
      ],
    ],
    [
      'full disallow: the policy decides',
      explanation({ decidedBy: 'policy' }, { state: state({ outcome: 'server_error', status: 503, policy: 'disallow_all', policyReason: 'R-13', unreachableSince: at(40), failedNights: 1 }) }),
      [
        'https://example.com/private/x for GPTBot: disallowed',
        '  deciding line: none: the policy decides (full disallow), no rule is read',
        `  policy: disallow_all (R-13): robots.txt answers 5xx (503) on ${LATEST}, 1 failed night in a row: full disallow; after 30 days the last good copy applies (D-3)`,
      ],
    ],
    [
      'a crawler that ignores the * group: no group applies, with the source',
      explanation(
        { allowed: true, decidedBy: 'no_group', group: { kind: 'none', userAgents: [] } },
        {
          userAgent: 'AdsBot-Google',
          followedAgent: 'AdsBot-Google',
          followed: { rule: 'ignores-star', agent: null, source: 'https://developers.google.com/x' },
          crawlerRule: 'AdsBot-Google ignores the * group (https://developers.google.com/x)',
        },
      ),
      [
        'https://example.com/private/x for AdsBot-Google: allowed',
        '  deciding line: none',
        '  group: no group applies: allowed (no group names AdsBot-Google, and AdsBot-Google ignores the * group (https://developers.google.com/x))',
        POLICY_LINE,
      ],
    ],
    [
      'a documented further token (Applebot), a robots.txt use and an assumed parser are named',
      explanation(
        { allowed: true, decidedBy: 'no_rule', group: { kind: 'named', userAgents: [{ value: 'Googlebot', line: 1 }] } },
        {
          userAgent: 'Applebot',
          followedAgent: 'googlebot',
          followed: { rule: 'further-token', agent: 'googlebot', source: 'https://support.apple.com/en-us/119829' },
          crawlerRule: 'Applebot follows the Googlebot group when none names Applebot (https://support.apple.com/en-us/119829)',
          robotsTxtNote: 'Applebot: its operator says robots.txt rules may not apply to the fetches it makes (https://example.org)',
          parser: { profile: 'crawler-commons', basis: 'assumed', source: 'https://example.org/p', read: '2026-11-24' },
        },
      ),
      [
        'https://example.com/private/x for Applebot: allowed',
        '  deciding line: none: no rule of the group matches /private/x, so it is allowed',
        '  group: User-agent: Googlebot (line 1)',
        '  Applebot follows the Googlebot group when none names Applebot (https://support.apple.com/en-us/119829): the file has no group of its own for it (R-42)',
        '  robots.txt use: Applebot: its operator says robots.txt rules may not apply to the fetches it makes (https://example.org)',
        "  parser: crawler-commons (assumed, https://example.org/p); the verdict above is Google's parser's",
        POLICY_LINE,
      ],
    ],
    [
      "a verdict under the crawler's own parser that differs from Google's, with the profile and known/assumed",
      explanation(
        { rule: { line: 2, kind: 'disallow', value: '/private', pattern: '/private', viaIndexHtml: false }, group: { kind: 'global', userAgents: [{ value: '*', line: 1 }] } },
        {
          userAgent: 'Scrapy',
          followedAgent: 'Scrapy',
          followed: { rule: 'star', agent: 'Scrapy', source: null },
          parser: { profile: 'scrapy-protego', basis: 'known', source: 'https://docs.scrapy.org/x', read: '2026-11-24' },
          parserVerdict: { profile: 'scrapy-protego', basis: 'known', source: 'https://docs.scrapy.org/x', allowed: true, line: null },
        },
      ),
      [
        'https://example.com/private/x for Scrapy: disallowed',
        '  deciding line: line 2: Disallow: /private',
        '  group: the * group: User-agent: * (line 1)',
        "  parser: scrapy-protego (known, https://docs.scrapy.org/x); the verdict above is Google's parser's",
        "  under its parser: disallowed by Google's parser; allowed under scrapy-protego (Protego 0.2.1, known)",
        POLICY_LINE,
      ],
    ],
  ])('%s', (_name, x, lines) => {
    expect(formatExplanation(x)).toBe(`${lines.join('\n')}\n`);
  });

  it('the JSON carries the verdict, the rule, the group and the policy with its reason in words', () => {
    const x = explanation({ rule: { line: 2, kind: 'disallow', value: '/p', pattern: '/p', viaIndexHtml: false }, group: { kind: 'global', userAgents: [{ value: '*', line: 1 }] } });
    expect(explanationJson(x)).toEqual({
      site: { id: 1, origin: 'https://example.com' },
      url: 'https://example.com/private/x',
      path: '/private/x',
      userAgent: 'GPTBot',
      followedAgent: 'GPTBot',
      followed: { rule: 'own', agent: 'GPTBot', source: null },
      robotsTxt: null,
      parser: { profile: 'unknown', basis: 'unknown', source: null },
      parserVerdict: null,
      allowed: false,
      decidedBy: 'rule',
      rule: { line: 2, kind: 'disallow', value: '/p', pattern: '/p', viaIndexHtml: false },
      group: { kind: 'global', userAgents: [{ value: '*', line: 1 }] },
      // Issue 28: a disallowed URL has no usage preference (D-9).
      usage: NOT_CRAWLABLE_ANSWER,
      policy: {
        kind: 'rules',
        reason: 'R-10',
        why: `robots.txt was fetched OK (200) on ${LATEST}: its rules apply`,
        night: '2026-04-10T03:00:00.000Z',
        runKey: 'nightly-2026-04-10',
        outcome: 'ok',
        status: 200,
        errorCode: null,
        since: '2026-03-01T03:00:00.000Z',
        unreachableSince: null,
        failedNights: 0,
        rulesNight: '2026-04-10T03:00:00.000Z',
        rulesRunKey: 'nightly-2026-04-10',
        rulesSha256: 'ab'.repeat(32),
        unverifiedSince: null,
        flappingSince: null,
      },
    });
  });
});

// Cloudflare's managed robots.txt (contentsignals.org), with a Content-Usage line for a path.
const SIGNALS = 'User-Agent: *\nContent-Signal: search=yes,ai-train=no\nAllow: /\nDisallow: /private/\nContent-Usage: /press/ ai-use=y\n\nUser-agent: GPTBot\nDisallow: /\n';

describe('explain: the usage preferences beside the verdict (issue 28, D-7..D-13)', () => {
  const explain = (url: string, userAgent: string, rules: string | null, over: Partial<SitePolicyState> = {}) =>
    explainUnderState({ site: { id: 1, origin: 'https://example.com' }, url, userAgent, state: state(over), rules: rules === null ? null : new TextEncoder().encode(rules) });
  const CS = 'Content Signals (contentsignals.org, draft-romm-aipref-contentsignals)';

  it.each<[string, string, string, string[]]>([
    [
      'a crawler of *: each purpose with its deciding line',
      'https://example.com/press/a',
      'Bingbot',
      [
        '  usage:',
        `    search: allowed (line 2, Content-Signal search=yes, ${CS})`,
        `    ai-train: refused (line 2, Content-Signal ai-train=no, ${CS})`,
        '    ai-input: allowed (line 5, Content-Usage ai-use=y, draft-ietf-aipref-vocab-08)',
      ],
    ],
    ['disallowed: not crawlable (D-9)', 'https://example.com/private/x', 'Bingbot', ['  usage: not crawlable (no preference applies to a URL the crawler may not fetch, D-9)']],
    ['a crawler with its own group (D-7)', 'https://example.com/a', 'GPTBot', ['  usage: not crawlable (no preference applies to a URL the crawler may not fetch, D-9)']],
  ])('%s', (_name, url, ua, usageLines) => {
    const text = formatExplanation(explain(url, ua, SIGNALS)).trimEnd().split('\n');
    // After the verdict's deciding line and group, before the policy.
    expect(text.slice(3, 3 + usageLines.length)).toEqual(usageLines);
    expect(text[3 + usageLines.length]).toMatch(/^ {2}policy: rules/);
  });

  it('JSON: every purpose with its answer', () => {
    expect(explanationJson(explain('https://example.com/a', 'Bingbot', SIGNALS)).usage).toEqual({
      search: { preference: 'allowed', line: 2, mechanism: 'content-signal', label: 'search', definedBy: CS, value: 'search=yes,ai-train=no' },
      'ai-train': { preference: 'refused', line: 2, mechanism: 'content-signal', label: 'ai-train', definedBy: CS, value: 'search=yes,ai-train=no' },
      'ai-input': { preference: 'unknown', line: null, mechanism: null, label: null, definedBy: null, value: null },
    });
  });

  it('a file without usage lines: the text is as before, the JSON says unknown', () => {
    const x = explain('https://example.com/a', 'Bingbot', 'User-agent: *\nDisallow: /private/\n');
    expect(formatExplanation(x)).not.toMatch(/usage/);
    expect(explanationJson(x).usage).toEqual(NO_PREFERENCES);
  });

  it.each<[string, Partial<SitePolicyState>, typeof NO_PREFERENCES]>([
    ['full allow: nothing stated', { outcome: 'unavailable', status: 404, policy: 'allow_all', policyReason: 'R-12' }, NO_PREFERENCES],
    ['full disallow: not crawlable', { outcome: 'server_error', status: 503, policy: 'disallow_all', policyReason: 'R-13' }, NOT_CRAWLABLE_ANSWER],
  ])('the policy decides, %s', (_name, over, usage) => {
    const x = explain('https://example.com/a', 'Bingbot', null, over);
    expect(x.usage).toBe(usage);
    expect(formatExplanation(x)).not.toMatch(/usage/);
  });
});
