import { describe, expect, it } from 'vitest';
import { letterName, manyAgentGroups, manyAgentsOneGroup, manyRecords, manySitemaps } from '../../../helpers/hostile-bodies.js';
import { diffRobotsTxt } from '../../../../src/robots/diff.js';
import type { RobotsDiff } from '../../../../src/robots/diff.js';
import { parseRobotsTxt } from '../../../../src/robots/index.js';
import { openedStarRuleGaps } from '../../../../src/robots/star-rule-gaps.js';
import { jsonbTextBytes } from '../../../../src/services/alerting/alert-bounds.js';
import { MAX_ALERT_DETAILS_BYTES, MAX_ALERT_TITLE_CHARS, MAX_DIFF_LINE_CHARS, MAX_SITEMAPS_PER_ALERT, MAX_TITLE_NAMES } from '../../../../src/services/alerting/size-limits.js';
import { ALERT_RULES, MAX_AGENTS_PER_ALERT, MAX_DIFF_LINES_PER_ALERT, MAX_FLIPS_PER_ALERT, alertDedupeKey } from '../../../../src/services/alerting/alert-rules.js';
import { ALERT_KINDS, LOG_ALERT_KINDS } from '../../../../src/night/vocabulary.js';
import type { NightAlertKind } from '../../../../src/night/vocabulary.js';
import type { AlertDetails, ChallengeChange, FlappingChange, SiteNightChange, UsageFlip, VerdictFlip } from '../../../../src/night/alerts.js';
import type { AlertKind } from '../../../../src/night/vocabulary.js';
import { alertsOfNight, type NightWithoutTransitions } from '../../../helpers/night-alerts.js';

const ORIGIN = 'https://shop.example';
const BASE = 'User-agent: *\nDisallow: /cart\n\nUser-agent: Googlebot\nDisallow: /search\n';

/** A quiet night: fetched fine, same rules, nothing flipped. */
function night(change: Partial<SiteNightChange> = {}, flips: VerdictFlip[] = []): NightWithoutTransitions {
  return {
    runId: 'run-2026-01-02',
    siteId: 42,
    origin: ORIGIN,
    change: {
      kinds: ['identical'],
      rulesDiff: null,
      outcomeFrom: 'ok',
      outcomeTo: 'ok',
      policyFrom: 'rules',
      policyTo: 'rules',
      policyReasonTo: 'R-10',
      fallbackStarted: false,
      fallbackEnded: false,
      ...change,
    },
    flips,
  };
}

/** A night whose body changed from `before` to `after`. */
function bodyChange(before: string, after: string): NightWithoutTransitions {
  const rulesDiff = diffRobotsTxt(parseRobotsTxt(before), parseRobotsTxt(after), {
    before: new TextEncoder().encode(before),
    after: new TextEncoder().encode(after),
  });
  return night({ kinds: rulesDiff.kinds, rulesDiff });
}

function flip(partial: Partial<VerdictFlip> & Pick<VerdictFlip, 'agent' | 'agentFamily'>): VerdictFlip {
  return {
    url: `${ORIGIN}/`,
    isRoot: true,
    from: true,
    to: false,
    cause: 'rules',
    ruleBefore: null,
    ruleAfter: { kind: 'disallow', value: '/', line: 2 },
    ...partial,
  };
}

const googlebotBlocked = (url = `${ORIGIN}/products/1`) =>
  flip({ url, isRoot: false, agent: 'Googlebot', agentFamily: 'search', ruleAfter: { kind: 'disallow', value: '/products', line: 5 } });
const gptbotBlocked = flip({ agent: 'GPTBot', agentFamily: 'ai' });

const kindsOf = (input: NightWithoutTransitions) => alertsOfNight(input).map((a) => a.kind);

/** For every rule: a night that raises it, and the nearest night that must not. */
const SCENARIOS: Record<NightAlertKind, { yields: NightWithoutTransitions; nearMiss: NightWithoutTransitions; nearMissIs: string }> = {
  site_unreachable: {
    yields: night({ kinds: [], outcomeTo: 'server_error', policyTo: 'disallow_all', policyReasonTo: 'R-13' }),
    nearMiss: night({ kinds: [], outcomeFrom: 'server_error', outcomeTo: 'server_error', policyFrom: 'disallow_all', policyTo: 'disallow_all', policyReasonTo: 'R-13' }),
    nearMissIs: 'the second night of the same outage',
  },
  night_failed: {
    yields: night({ kinds: [], outcomeFrom: 'ok', outcomeTo: 'night_failed', policyFrom: 'rules', policyTo: 'rules', policyReasonTo: 'R-10' }),
    nearMiss: night({ kinds: [], outcomeFrom: 'night_failed', outcomeTo: 'night_failed', policyFrom: 'rules', policyTo: 'rules', policyReasonTo: 'R-10' }),
    nearMissIs: 'the second failed night in a row',
  },
  disallow_all_added: {
    yields: bodyChange(BASE, `${BASE}Disallow: /\n`),
    nearMiss: bodyChange(BASE, `${BASE}\nUser-agent: GPTBot\nDisallow: /\n`),
    nearMissIs: 'Disallow: / for an agent that is not Googlebot, Bingbot or *',
  },
  search_url_disallowed: {
    yields: night({}, [googlebotBlocked()]),
    nearMiss: night({}, [flip({ url: `${ORIGIN}/products/1`, isRoot: false, agent: 'AhrefsBot', agentFamily: 'seo' })]),
    nearMissIs: 'the same flip for an SEO crawler',
  },
  rules_changed: {
    yields: bodyChange(BASE, `${BASE}Disallow: /tmp\n`),
    nearMiss: bodyChange(BASE, `# hello\n${BASE}`),
    nearMissIs: 'a comment added',
  },
  ai_access_changed: {
    yields: night({}, [gptbotBlocked]),
    nearMiss: night({}, [flip({ agent: 'GPTBot', agentFamily: 'ai', from: null })]),
    nearMissIs: 'an AI verdict seen for the first time (no previous verdict)',
  },
  star_rules_bypassed: {
    // GPTBot's own group (line 4) does not repeat `Disallow: /private/` of `*` (line 2).
    yields: night({ kinds: ['rules'], starGapsOpened: [{ tokens: ['gptbot'], path: '/private/', pattern: '/private/', starLine: 2, groupLine: 4 }] }),
    nearMiss: night({ kinds: ['rules'], starGapsOpened: [] }),
    nearMissIs: 'a rule change that opens no path the `*` group closes',
  },
  allow_all_4xx: {
    yields: night({ kinds: [], outcomeTo: 'unavailable', policyTo: 'allow_all', policyReasonTo: 'R-12' }),
    nearMiss: night({ kinds: [], outcomeFrom: 'unavailable', outcomeTo: 'unavailable', policyFrom: 'allow_all', policyTo: 'allow_all', policyReasonTo: 'R-12' }),
    nearMissIs: 'a site that already answered 404 last night',
  },
  search_url_allowed: {
    yields: night({}, [flip({ agent: 'Bingbot', agentFamily: 'search', from: false, to: true })]),
    nearMiss: night({}, [flip({ agent: 'Bingbot', agentFamily: 'search', from: false, to: false })]),
    nearMissIs: 'a verdict that did not change',
  },
  site_recovered: {
    yields: night({ outcomeFrom: 'network_error', policyFrom: 'disallow_all' }),
    nearMiss: night({ outcomeFrom: 'network_error', outcomeTo: 'server_error', policyFrom: 'disallow_all', policyTo: 'disallow_all', policyReasonTo: 'R-13' }),
    nearMissIs: 'a network failure followed by a 5xx',
  },
  fallback_started: {
    yields: night({ kinds: [], outcomeFrom: 'server_error', outcomeTo: 'server_error', policyFrom: 'disallow_all', policyReasonTo: 'D-3', fallbackStarted: true }),
    nearMiss: night({ kinds: [], outcomeFrom: 'server_error', outcomeTo: 'server_error', policyFrom: 'rules', policyReasonTo: 'D-3' }),
    nearMissIs: 'the fallback continuing',
  },
  fallback_ended: {
    yields: night({ outcomeFrom: 'server_error', policyFrom: 'rules', fallbackEnded: true }),
    nearMiss: night({ outcomeFrom: 'server_error', policyFrom: null, fallbackEnded: true }),
    nearMissIs: 'the first night of a site',
  },
  sitemaps_changed: {
    yields: bodyChange(BASE, `${BASE}Sitemap: https://shop.example/sitemap.xml\n`),
    nearMiss: bodyChange(`Sitemap: https://shop.example/sitemap.xml\n${BASE}`, `${BASE}Sitemap: https://shop.example/sitemap.xml\n`),
    nearMissIs: 'a sitemap moved to another line',
  },
  records_changed: {
    yields: bodyChange(`${BASE}Crawl-delay: 5\n`, `${BASE}Crawl-delay: 10\n`),
    nearMiss: bodyChange(`${BASE}Crawl-delay: 5\n`, `${BASE}crawl-delay: 5\n`),
    nearMissIs: 'the key case changed',
  },
  comments_only: {
    yields: bodyChange(BASE, `# generated 2026-01-02\n${BASE}`),
    nearMiss: bodyChange(BASE, BASE),
    nearMissIs: 'the same bytes',
  },
  challenge_started: {
    yields: { ...night({ kinds: [], outcomeTo: 'challenged', policyReasonTo: 'challenged' }), challenge: challengeChange({ started: true }) },
    nearMiss: { ...night({ kinds: [], outcomeFrom: 'challenged', outcomeTo: 'challenged', policyReasonTo: 'challenged' }), challenge: challengeChange({}) },
    nearMissIs: 'the second challenged night in a row',
  },
  challenge_ended: {
    yields: { ...night({ kinds: [], outcomeFrom: 'challenged' }), challenge: challengeChange({ ended: true }) },
    nearMiss: { ...night({ kinds: [] }), challenge: challengeChange({}) },
    nearMissIs: 'an ordinary night after an ordinary night',
  },
  flapping_started: {
    yields: { ...bodyChange(BASE, `${BASE}Disallow: /tmp\n`), flapping: flappingChange({ event: 'started', cause: 'returned' }) },
    nearMiss: { ...bodyChange(BASE, `${BASE}Disallow: /tmp\n`), flapping: flappingChange({ event: 'continues' }) },
    nearMissIs: 'a night of a spell already alerted',
  },
  flapping_settled: {
    yields: { ...night(), flapping: flappingChange({ event: 'settled', stayed: { sha256: 'aa'.repeat(32), firstSeen: '2026-01-01T03:00:00.000Z' } }) },
    nearMiss: { ...night(), flapping: flappingChange({ event: 'continues' }) },
    nearMissIs: 'a flapping night that did not settle',
  },
  ai_training_refused: {
    yields: usageNight([usageFlip('ai-train', 'allowed', 'refused')]),
    nearMiss: usageNight([usageFlip('ai-train', 'refused', 'allowed')]),
    nearMissIs: 'AI training allowed, not refused',
  },
  ai_training_allowed: {
    yields: usageNight([usageFlip('ai-train', 'unknown', 'allowed')]),
    nearMiss: usageNight([usageFlip('ai-input', 'unknown', 'allowed')]),
    nearMissIs: 'another purpose allowed',
  },
  ai_input_refused: {
    yields: usageNight([usageFlip('ai-input', 'unknown', 'refused')]),
    nearMiss: { ...usageNight([usageFlip('ai-input', 'unknown', 'refused')]), change: { ...night().change, policyTo: 'allow_all', policyReasonTo: 'R-12', outcomeTo: 'unavailable' } },
    nearMissIs: 'a policy transition night (its alert explains every change)',
  },
  ai_input_allowed: {
    yields: usageNight([usageFlip('ai-input', 'refused', 'allowed')]),
    nearMiss: { ...usageNight([usageFlip('ai-input', 'refused', 'allowed')]), flapping: flappingChange({ event: 'continues' }) },
    nearMissIs: 'a flapping night',
  },
  search_use_refused: {
    yields: usageNight([usageFlip('search', 'allowed', 'refused')]),
    nearMiss: usageNight([usageFlip('ai-train', 'allowed', 'refused')]),
    nearMissIs: 'another purpose refused',
  },
  search_use_allowed: {
    yields: usageNight([usageFlip('search', 'refused', 'allowed')]),
    nearMiss: usageNight([usageFlip('search', 'refused', 'unknown')]),
    nearMissIs: 'search no longer stated (withdrawn), not allowed',
  },
  usage_preference_withdrawn: {
    yields: usageNight([usageFlip('ai-train', 'refused', 'unknown')]),
    nearMiss: usageNight([]),
    nearMissIs: 'a night with no usage change',
  },
};

function usageFlip(purpose: UsageFlip['purpose'], from: UsageFlip['from'], to: UsageFlip['to']): UsageFlip {
  const rule = (v: string) => ({ line: 3, mechanism: 'content-signal' as const, label: purpose, value: `search=yes, ${purpose}=${v}`, since: '2026-01-02T03:00:00.000Z' });
  return {
    url: `${ORIGIN}/`,
    agent: 'SomeBot',
    agentFamily: 'other',
    isRoot: true,
    purpose,
    from,
    to,
    ruleBefore: from === 'unknown' ? null : rule(from === 'allowed' ? 'yes' : 'no'),
    ruleAfter: to === 'unknown' ? null : rule(to === 'allowed' ? 'yes' : 'no'),
  };
}

function usageNight(usageFlips: UsageFlip[]): NightWithoutTransitions {
  const after = 'User-agent: *\nContent-Signal: ai-train=no\nAllow: /\n';
  return { ...bodyChange(after.replace('no', 'yes'), after), usageFlips };
}

function flappingChange(partial: Partial<FlappingChange>): FlappingChange {
  return {
    flapping: true,
    event: 'continues',
    cause: null,
    versions: [
      { sha256: 'aa'.repeat(32), firstSeen: '2026-01-01T03:00:00.000Z' },
      { sha256: 'bb'.repeat(32), firstSeen: '2026-01-02T03:00:00.000Z' },
    ],
    differences: [],
    rulesDiffer: true,
    stayed: null,
    since: '2026-01-02T03:00:00.000Z',
    ...partial,
  };
}

describe('flapping: quiet nights, one alert to start and one to settle', () => {
  it('raises no change, flip or AI-access alert while flapping', () => {
    const input = { ...bodyChange(BASE, `${BASE}Disallow: /\n`), flips: [googlebotBlocked(), gptbotBlocked] };
    expect(kindsOf(input).length).toBeGreaterThan(1);
    expect(kindsOf({ ...input, flapping: flappingChange({}) })).toEqual([]);
    expect(kindsOf({ ...input, flapping: flappingChange({ event: 'started', cause: 'returned' }) })).toEqual(['flapping_started']);
  });

  it('is critical when a version takes a tracked URL away from a search crawler', () => {
    const differences = [{ url: `${ORIGIN}/products/1`, agent: 'Googlebot', agentFamily: 'search' as const, isRoot: false, allowedBy: { ['aa'.repeat(32)]: true, ['bb'.repeat(32)]: false } }];
    const [alert] = alertsOfNight({ ...night(), flapping: flappingChange({ event: 'started', cause: 'disagreed', differences }) });
    expect(alert).toMatchObject({ kind: 'flapping_started', severity: 'critical' });
    expect(alert!.title).toContain('aaaaaaaaaaaa, bbbbbbbbbbbb');
    const [mild] = alertsOfNight({ ...night(), flapping: flappingChange({ event: 'started', cause: 'disagreed', differences: [{ ...differences[0]!, agent: 'GPTBot', agentFamily: 'ai' }] }) });
    expect(mild!.severity).toBe('warning');
    const [comments] = alertsOfNight({ ...night(), flapping: flappingChange({ event: 'started', cause: 'returned', rulesDiffer: false }) });
    expect(comments!.severity).toBe('info');
  });
});

function challengeChange(partial: Partial<ChallengeChange>): ChallengeChange {
  return { started: false, ended: false, since: null, vendor: 'cloudflare', signal: 'cf-mitigated: challenge', status: 403, userAgent: 'robots-audit/0.1', ...partial };
}

describe('challenge_started: says what to let through', () => {
  it('names the vendor and the User-Agent to allow', () => {
    const [alert] = alertsOfNight(SCENARIOS.challenge_started.yields);
    expect(alert!.title).toContain('Cloudflare');
    expect(alert!.details.challenge?.action).toContain('"robots-audit/0.1"');
  });
});

describe('ALERT_RULES: each rule has a case that raises it and a near miss that does not', () => {
  it('lists every kind once', () => {
    expect(ALERT_RULES.map((r) => r.kind).sort()).toEqual([...ALERT_KINDS].sort());
  });

  // The log import's kinds are raised from imported requests, tested in test/integration/logs/.
  const nightRules = ALERT_RULES.filter((r): r is Extract<(typeof ALERT_RULES)[number], { kind: NightAlertKind }> => !(LOG_ALERT_KINDS as readonly string[]).includes(r.kind));
  it.each(nightRules.map((r) => [r.kind, r.severity] as const))('%s (%s)', (kind, severity) => {
    const scenario = SCENARIOS[kind];
    const raised = alertsOfNight(scenario.yields).filter((a) => a.kind === kind);
    expect(raised).toHaveLength(1);
    expect(raised[0]!.severity).toBe(severity);
    expect(raised[0]!.title).toContain(ORIGIN);
    expect(kindsOf(scenario.nearMiss), `near miss: ${scenario.nearMissIs}`).not.toContain(kind);
  });
});

describe('critical rules', () => {
  it.each([
    ['R-13: 5xx', 'server_error', 'R-13'],
    ['R-15: network failure', 'network_error', 'R-15'],
  ] as const)('site_unreachable from %s', (_name, outcomeTo, reason) => {
    const [alert] = alertsOfNight(night({ kinds: [], outcomeTo, policyTo: 'disallow_all', policyReasonTo: reason }));
    expect(alert).toMatchObject({ kind: 'site_unreachable', severity: 'critical' });
    expect(alert!.details.policy).toEqual({ from: 'rules', to: 'disallow_all', reason, outcomeFrom: 'ok', outcomeTo });
  });

  it('site_unreachable is raised on the first night of a site too', () => {
    expect(kindsOf(night({ kinds: [], outcomeFrom: null, policyFrom: null, outcomeTo: 'network_error', policyTo: 'disallow_all', policyReasonTo: 'R-15' }))).toEqual([
      'site_unreachable',
    ]);
  });

  it.each([
    ['User-agent: *', 'Disallow: /', true],
    ['User-agent: Googlebot', 'Disallow: /*', true],
    ['User-agent: bingbot', 'Disallow: /', true],
    ['User-agent: Googlebot-News', 'Disallow: /', false],
    ['User-agent: *', 'Disallow: /private', false],
    ['User-agent: *', 'Allow: /', false],
  ])('disallow_all_added: "%s" + "%s" -> %s', (agentLine, rule, critical) => {
    const input = bodyChange('User-agent: Slurp\nDisallow: /x\n', `User-agent: Slurp\nDisallow: /x\n\n${agentLine}\n${rule}\n`);
    const alert = alertsOfNight(input).find((a) => a.kind === 'disallow_all_added');
    expect(alert !== undefined).toBe(critical);
    if (alert) expect(alert.details.agents).toEqual([agentLine.slice('User-agent: '.length)]);
  });

  it('one critical alert per site lists every tracked URL that became disallowed for search crawlers', () => {
    const flips = [googlebotBlocked(`${ORIGIN}/b`), googlebotBlocked(`${ORIGIN}/a`), { ...googlebotBlocked(`${ORIGIN}/a`), agent: 'Bingbot' }];
    const alerts = alertsOfNight(night({}, flips)).filter((a) => a.kind === 'search_url_disallowed');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.title).toBe(`2 tracked URLs now disallowed for search crawlers on ${ORIGIN}`);
    expect(alerts[0]!.details.flipsTotal).toBe(3);
    expect(alerts[0]!.details.flips!.map((f) => `${f.url} ${f.agent}`)).toEqual([`${ORIGIN}/a Bingbot`, `${ORIGIN}/a Googlebot`, `${ORIGIN}/b Googlebot`]);
  });

  it(`keeps at most ${MAX_FLIPS_PER_ALERT} flips in the details and counts them all`, () => {
    const flips = Array.from({ length: MAX_FLIPS_PER_ALERT + 25 }, (_, i) => googlebotBlocked(`${ORIGIN}/p/${String(i).padStart(4, '0')}`));
    const [alert] = alertsOfNight(night({}, flips));
    expect(alert!.details.flips).toHaveLength(MAX_FLIPS_PER_ALERT);
    expect(alert!.details.flipsTotal).toBe(MAX_FLIPS_PER_ALERT + 25);
  });
});

describe('warning rules', () => {
  it('rules_changed carries the semantic diff lines', () => {
    const [alert] = alertsOfNight(bodyChange(BASE, BASE.replace('Disallow: /search', 'Disallow: /find')));
    expect(alert).toMatchObject({ kind: 'rules_changed', severity: 'warning', details: { agentsAdded: [], agentsRemoved: [] } });
    expect(alert!.details.diffLines).toEqual(['~ group Googlebot', '    - Disallow: /search', '    + Disallow: /find']);
  });

  it('a new GPTBot group with Disallow: / is a rule change and, flipped, an AI access change; not critical', () => {
    const input = bodyChange(BASE, `${BASE}\nUser-agent: GPTBot\nDisallow: /\n`);
    const alerts = alertsOfNight({ ...input, flips: [gptbotBlocked] });
    expect(alerts.map((a) => [a.kind, a.severity])).toEqual([
      ['rules_changed', 'warning'],
      ['ai_access_changed', 'warning'],
    ]);
  });

  it('ai_access_changed counts blocked and unblocked in one alert', () => {
    const flips = [gptbotBlocked, flip({ agent: 'ClaudeBot', agentFamily: 'ai' }), flip({ agent: 'CCBot', agentFamily: 'ai', from: false, to: true })];
    const alerts = alertsOfNight(night({}, flips));
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.title).toBe(`AI crawler access changed on ${ORIGIN}: 2 newly blocked, 1 unblocked`);
  });

  it.each([
    ['R-12: 404', 'unavailable', 'R-12'],
    ['D-4: 429', 'rate_limited', 'D-4'],
    ['R-11: redirect limit', 'redirect_limit', 'R-11'],
  ] as const)('allow_all_4xx from %s', (_name, outcomeTo, reason) => {
    expect(kindsOf(night({ kinds: [], outcomeTo, policyTo: 'allow_all', policyReasonTo: reason }))).toEqual(['allow_all_4xx']);
  });

  it('allow_all_4xx: a 30-day fallback to full allow is not a 4xx', () => {
    const kinds = kindsOf(night({ kinds: [], outcomeFrom: 'server_error', outcomeTo: 'server_error', policyFrom: 'disallow_all', policyTo: 'allow_all', policyReasonTo: 'D-3', fallbackStarted: true }));
    expect(kinds).toEqual(['fallback_started']);
  });

  it('5xx -> 404 is reported as allow_all_4xx alone, not also as a recovery', () => {
    const kinds = kindsOf(night({ kinds: [], outcomeFrom: 'server_error', outcomeTo: 'unavailable', policyFrom: 'disallow_all', policyTo: 'allow_all', policyReasonTo: 'R-12' }));
    expect(kinds).toEqual(['allow_all_4xx']);
  });
});

describe('policy transitions explain their flips', () => {
  it('an outage: one critical site_unreachable listing the flips, no per-URL alerts', () => {
    const flips = [googlebotBlocked(), gptbotBlocked];
    const alerts = alertsOfNight(night({ kinds: [], outcomeTo: 'server_error', policyTo: 'disallow_all', policyReasonTo: 'R-13' }, flips));
    expect(alerts.map((a) => a.kind)).toEqual(['site_unreachable']);
    expect(alerts[0]!.details.flipsTotal).toBe(2);
  });

  it('a recovery: flips back to allowed are listed in site_recovered only', () => {
    const flips = [flip({ agent: 'Googlebot', agentFamily: 'search', from: false, to: true }), flip({ agent: 'GPTBot', agentFamily: 'ai', from: false, to: true })];
    const alerts = alertsOfNight(night({ outcomeFrom: 'server_error', policyFrom: 'disallow_all' }, flips));
    expect(alerts.map((a) => a.kind)).toEqual(['site_recovered']);
    expect(alerts[0]!.details.flips).toHaveLength(2);
  });

  it('when two transitions fire, the flips are listed once', () => {
    const alerts = alertsOfNight(
      night({ outcomeFrom: 'server_error', outcomeTo: 'unavailable', policyFrom: 'rules', policyTo: 'allow_all', policyReasonTo: 'R-12', fallbackEnded: true }, [
        flip({ agent: 'Googlebot', agentFamily: 'search', from: false, to: true }),
      ]),
    );
    expect(alerts.map((a) => a.kind)).toEqual(['allow_all_4xx', 'fallback_ended']);
    expect(alerts.filter((a) => a.details.flips !== undefined)).toHaveLength(1);
  });
});

describe('baseline and quiet nights', () => {
  it('a quiet night raises nothing', () => {
    expect(alertsOfNight(night())).toEqual([]);
  });

  it('the first night of a site is a baseline: its rules, even Disallow: /, raise nothing', () => {
    const after = 'User-agent: *\nDisallow: /\n';
    const rulesDiff = diffRobotsTxt(null, parseRobotsTxt(after), { before: null, after: new TextEncoder().encode(after) });
    const input = night({ kinds: rulesDiff.kinds, rulesDiff, outcomeFrom: null, policyFrom: null }, [flip({ agent: 'Googlebot', agentFamily: 'search', from: null })]);
    expect(alertsOfNight(input)).toEqual([]);
  });

  it('a robots.txt published after a 404 is a change: Disallow: / for * is critical', () => {
    const after = 'User-agent: *\nDisallow: /\n';
    const rulesDiff = diffRobotsTxt(null, parseRobotsTxt(after), { before: null, after: new TextEncoder().encode(after) });
    const input = night({ kinds: rulesDiff.kinds, rulesDiff, outcomeFrom: 'unavailable', policyFrom: 'allow_all' }, [googlebotBlocked()]);
    expect(kindsOf(input)).toEqual(['disallow_all_added', 'search_url_disallowed', 'rules_changed']);
  });
});

describe('order and dedupe keys', () => {
  it('alerts come out most severe first, in the order of ALERT_RULES', () => {
    const input = bodyChange(BASE, `${BASE}Disallow: /\nCrawl-delay: 3\nSitemap: https://shop.example/s.xml\n`);
    const alerts = alertsOfNight({ ...input, flips: [googlebotBlocked(), gptbotBlocked] });
    expect(alerts.map((a) => a.kind)).toEqual([
      'disallow_all_added',
      'search_url_disallowed',
      'rules_changed',
      'ai_access_changed',
      'sitemaps_changed',
      'records_changed',
    ]);
    const order = ALERT_RULES.map((r) => r.kind as AlertKind);
    const positions = alerts.map((a) => order.indexOf(a.kind));
    expect(positions).toEqual([...positions].sort((x, y) => x - y));
  });

  it('the same night computed twice gives the same keys (a retried job inserts nothing new)', () => {
    const input = { ...bodyChange(BASE, `${BASE}Disallow: /\n`), flips: [googlebotBlocked()] };
    const first = alertsOfNight(input).map((a) => a.dedupeKey);
    const again = alertsOfNight(structuredClone(input)).map((a) => a.dedupeKey);
    expect(again).toEqual(first);
    expect(new Set(first).size).toBe(first.length);
    // And the same in every version: the keys are job ids and the alerts' unique key, so a night
    // retried across an upgrade must find them again. Golden values for run 'run-2026-01-02', site
    // 42: `<kind>-` and the first 32 hex digits of sha256 of the JSON ["run-2026-01-02","42","<kind>"].
    expect(first).toEqual([
      'disallow_all_added-0ae14e7f34941d9f4368fa034990f4ac',
      'search_url_disallowed-ab585b5b5a85abf368f892f7a874d2ac',
      'rules_changed-38d25f4922939a3ef16e6e12b8056736',
    ]);
  });

  it('keys differ by run, site and kind, and are safe as job ids', () => {
    const key = alertDedupeKey('run-1', 42, 'rules_changed');
    expect(key).toMatch(/^rules_changed-[0-9a-f]{32}$/);
    expect(key).not.toContain(':');
    expect(alertDedupeKey('run-1', '42', 'rules_changed')).toBe(key);
    expect(alertDedupeKey('run-2', 42, 'rules_changed')).not.toBe(key);
    expect(alertDedupeKey('run-1', 43, 'rules_changed')).not.toBe(key);
    expect(alertDedupeKey('run-1', 42, 'comments_only')).not.toBe(key.replace('rules_changed', 'comments_only'));
    // No ambiguity from separators inside ids.
    expect(alertDedupeKey('a-b', 'c', 'rules_changed')).not.toBe(alertDedupeKey('a', 'b-c', 'rules_changed'));
  });
});

describe('issue 17: an alert lists a bounded diff, whatever the file', () => {
  it('15,000 user-agents over one group: at most MAX_DIFF_LINES_PER_ALERT lines and MAX_AGENTS_PER_ALERT agents, the rest counted', () => {
    const after = new TextDecoder().decode(manyAgentsOneGroup());
    const [alert] = alertsOfNight(bodyChange(BASE, after)).filter((a) => a.kind === 'rules_changed');
    expect(alert?.details.diffLines).toHaveLength(MAX_DIFF_LINES_PER_ALERT + 1);
    expect(alert?.details.diffLines?.at(-1)).toMatch(/^… and \d+ more lines$/);
    expect(alert?.details.agentsAdded).toHaveLength(MAX_AGENTS_PER_ALERT + 1);
    expect(alert?.details.agentsAdded?.at(-1)).toBe(`… and ${15_000 - MAX_AGENTS_PER_ALERT} more user-agents`);
    expect(JSON.stringify(alert).length).toBeLessThan(64 * 1024);
  });
});

describe('issue 26: every alert within its limits, whatever changed', () => {
  const decode = (body: Uint8Array) => new TextDecoder().decode(body);
  /** A list of strings read back: its entries, and the count its last entry gives. */
  const readList = (list: readonly string[] = []) => {
    const m = /^… and (\d+) more .+$/.exec(list.at(-1) ?? '');
    return m ? { listed: list.slice(0, -1), more: Number(m[1]) } : { listed: [...list], more: 0 };
  };
  const counted = (list?: readonly string[]) => {
    const { listed, more } = readList(list);
    return listed.length + more;
  };
  /**
   * Googlebot named 3,000 ways (`Googlebot/1`, ...: one token, T16) over one group. More would do
   * as well, but the diff gathers a token's names in time that grows with their square.
   */
  const googlebotNamedManyWays = (rule: string) =>
    `${Array.from({ length: 3_000 }, (_, i) => `User-agent: Googlebot/${i}`).join('\n')}\n${rule}\n`;

  // Each case: a night, the kinds it must raise, and the counts its alerts must keep.
  it.each([
    {
      name: '500 KiB of sitemaps, all changed',
      before: decode(manySitemaps('v1')),
      after: decode(manySitemaps('v2')),
      kinds: ['sitemaps_changed'],
      counts: (d: RobotsDiff) => ({ sitemaps_changed: { sitemapsAdded: d.sitemapsAdded.length, sitemapsRemoved: d.sitemapsRemoved.length } }),
    },
    {
      name: '500 KiB of Content-Signal values, all changed',
      before: decode(manyRecords('Content-Signal', 'a')),
      after: decode(manyRecords('Content-Signal', 'b')),
      kinds: ['records_changed'],
      counts: () => ({ records_changed: { diffLines: 1 } }),
    },
    {
      name: '500 KiB of Clean-param values, all changed',
      before: decode(manyRecords('Clean-param', 'a')),
      after: decode(manyRecords('Clean-param', 'b')),
      kinds: ['records_changed'],
      counts: () => ({ records_changed: { diffLines: 1 } }),
    },
    {
      name: '11,000 groups of one agent, each with a Crawl-delay, all renamed',
      before: decode(manyAgentGroups('x')),
      after: decode(manyAgentGroups('y')),
      kinds: ['rules_changed', 'records_changed'],
      counts: (d: RobotsDiff) => ({
        rules_changed: { agentsAdded: d.agentsAdded.length, agentsRemoved: d.agentsRemoved.length },
        records_changed: { diffLines: d.records.length },
      }),
    },
    {
      name: '14,000 agents over one group, all renamed',
      before: decode(manyAgentsOneGroup(14_000, 27_000, 'x')),
      after: decode(manyAgentsOneGroup(14_000, 27_000, 'y')),
      kinds: ['rules_changed'],
      counts: (d: RobotsDiff) => ({ rules_changed: { agentsAdded: d.agentsAdded.length, agentsRemoved: d.agentsRemoved.length } }),
    },
    {
      name: 'Disallow: / for Googlebot named 3,000 ways',
      before: googlebotNamedManyWays('Disallow: /private/'),
      after: googlebotNamedManyWays('Disallow: /'),
      kinds: ['disallow_all_added', 'rules_changed'],
      counts: () => ({ disallow_all_added: { agents: 3_000 } }),
    },
  ])('$name: the details and the title within their limits, every count exact', ({ before, after, kinds, counts }) => {
    const input = bodyChange(before, after);
    const alerts = alertsOfNight(input);
    expect(alerts.map((a) => a.kind)).toEqual(kinds);
    for (const alert of alerts) {
      expect(jsonbTextBytes(alert.details)).toBeLessThanOrEqual(MAX_ALERT_DETAILS_BYTES);
      expect(alert.title.length).toBeLessThanOrEqual(MAX_ALERT_TITLE_CHARS);
      for (const line of alert.details.diffLines ?? []) expect(line.length).toBeLessThanOrEqual(MAX_DIFF_LINE_CHARS);
    }
    const expected = counts(input.change.rulesDiff!) as Partial<Record<AlertKind, Record<string, number>>>;
    for (const [kind, lists] of Object.entries(expected)) {
      const alert = alerts.find((a) => a.kind === kind)!;
      for (const [key, total] of Object.entries(lists)) expect(counted(alert.details[key as keyof AlertDetails] as string[]), `${kind} ${key}`).toBe(total);
    }
  });

  it('500 KiB of sitemaps: the first 100 of each listed, in order, the rest counted', () => {
    const input = bodyChange(decode(manySitemaps('v1')), decode(manySitemaps('v2')));
    const [alert] = alertsOfNight(input);
    const diff = input.change.rulesDiff!;
    expect(alert!.title).toBe(`${diff.sitemapsAdded.length + diff.sitemapsRemoved.length} sitemaps changed on ${ORIGIN}`);
    expect(alert!.details.sitemapsAdded).toEqual([...diff.sitemapsAdded.slice(0, MAX_SITEMAPS_PER_ALERT), `… and ${diff.sitemapsAdded.length - MAX_SITEMAPS_PER_ALERT} more sitemaps`]);
    expect(alert!.details.sitemapsRemoved?.at(-1)).toBe(`… and ${diff.sitemapsRemoved.length - MAX_SITEMAPS_PER_ALERT} more sitemaps`);
  });

  it('a record line names its first values and counts the rest; a title names each key once', () => {
    const [records] = alertsOfNight(bodyChange(decode(manyRecords('Clean-param', 'a')), decode(manyRecords('Clean-param', 'b')))).filter((a) => a.kind === 'records_changed');
    expect(records!.details.diffLines![0]).toMatch(/^~ clean-param \[\*\]: (a\d+&sid \/catalog\/, ){10}… and \d+ more values -> b0&sid/);
    const [perAgent] = alertsOfNight(bodyChange(decode(manyAgentGroups('x')), decode(manyAgentGroups('y')))).filter((a) => a.kind === 'records_changed');
    expect(perAgent!.title).toBe(`robots.txt directives changed on ${ORIGIN}: crawl-delay`);
  });

  it(`Disallow: / for Googlebot named 3,000 ways: the title names ${MAX_TITLE_NAMES} and counts the rest`, () => {
    const [alert] = alertsOfNight(bodyChange(googlebotNamedManyWays('Disallow: /private/'), googlebotNamedManyWays('Disallow: /')));
    expect(alert!.title).toBe(`Disallow: / added for ${Array.from({ length: MAX_TITLE_NAMES }, (_, i) => `Googlebot/${i}`).join(', ')} and ${3_000 - MAX_TITLE_NAMES} more on ${ORIGIN}`);
    expect(alert!.details.agents).toHaveLength(MAX_AGENTS_PER_ALERT + 1);
  });

  it('14,000 crawlers leaving a * path open: each gap lists 100 of them, the title 10', () => {
    const named = Array.from({ length: 14_000 }, (_, i) => `User-agent: x${letterName(i)}`).join('\n');
    const before = `User-agent: *\nDisallow: /private/\n\n${named}\nDisallow: /\n`;
    const after = `User-agent: *\nDisallow: /private/\n\n${named}\nDisallow: /other/\n`;
    const input = bodyChange(before, after);
    input.change.starGapsOpened = openedStarRuleGaps(parseRobotsTxt(before), parseRobotsTxt(after));
    const gaps = alertsOfNight(input).find((a) => a.kind === 'star_rules_bypassed')!;
    expect(gaps.title).toMatch(new RegExp(`^1 path disallowed for \\* now open to (x[a-z]+, ){9}x[a-z]+ and ${14_000 - MAX_TITLE_NAMES} more on `));
    expect(gaps.details.gaps![0]!.crawlers).toHaveLength(MAX_AGENTS_PER_ALERT + 1);
    expect(counted(gaps.details.gaps![0]!.crawlers)).toBe(14_000);
    expect(gaps.title.length).toBeLessThanOrEqual(MAX_ALERT_TITLE_CHARS);
  });

  it(`${MAX_FLIPS_PER_ALERT} flips of URLs of 2,000 characters: cut further to fit, flipsTotal still all of them, said so`, () => {
    const flips = Array.from({ length: MAX_FLIPS_PER_ALERT + 50 }, (_, i) => googlebotBlocked(`${ORIGIN}/${'p'.repeat(2_000)}/${String(i).padStart(4, '0')}`));
    const [alert] = alertsOfNight(night({}, flips));
    expect(alert!.kind).toBe('search_url_disallowed');
    expect(jsonbTextBytes(alert!.details)).toBeLessThanOrEqual(MAX_ALERT_DETAILS_BYTES);
    expect(alert!.details.truncated).toBe(true);
    expect(alert!.details.flipsTotal).toBe(MAX_FLIPS_PER_ALERT + 50);
    expect(alert!.details.flips!.length).toBeGreaterThan(10);
    expect(alert!.details.flips!.length).toBeLessThan(MAX_FLIPS_PER_ALERT);
    expect(alert!.details.flips![0]!.url).toBe(flips[0]!.url);
  });

  it('an ordinary alert is not touched: no `truncated`, every entry as the rules made it', () => {
    const [alert] = alertsOfNight(bodyChange(BASE, `${BASE}Sitemap: https://shop.example/s.xml\n`));
    expect(alert!.details).toEqual({ sitemapsAdded: ['https://shop.example/s.xml'], sitemapsRemoved: [] });
  });
});
