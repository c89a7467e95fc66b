/**
 * The judgement of a crawler request against the site's robots.txt versions through time
 * (docs/compliance.md): the version in force decides, under the crawler's own documented rules;
 * the cache window (RFC 9309 section 2.4) and a change between two nights excuse a request an
 * earlier or the next version allowed. The versions are real parses decided by the nightly
 * evaluator, so a case reads like the robots.txt a site served.
 */
import { describe, expect, it } from 'vitest';
import { isRobotsTxtPath, judgeRequest } from '../../../src/compliance/judge-request.js';
import type { VersionVerdict } from '../../../src/compliance/judge-request.js';
import { PolicyTimeline } from '../../../src/compliance/policy-timeline.js';
import { policyEvaluator } from '../../../src/services/policy-evaluator.js';
import type { PolicyEvaluator } from '../../../src/services/policy-evaluator.js';
import type { PolicyKind } from '../../../src/policy/index.js';

const ORIGIN = 'https://example.com';
const HOUR = 3_600_000;

interface Version {
  name: string;
  from: Date;
  seenBefore: Date | null;
  evaluate: PolicyEvaluator;
}

/** A version seen first at `from`, the night before it a day earlier (nightly runs). */
function version(name: string, from: string, policy: PolicyKind, body = '', seenBefore: string | null = null): Version {
  const at = new Date(from);
  return {
    name,
    from: at,
    seenBefore: seenBefore === null ? new Date(at.getTime() - 24 * HOUR) : new Date(seenBefore),
    evaluate: policyEvaluator(policy, policy === 'rules' ? new TextEncoder().encode(body) : null),
  };
}

const verdictOf = (path: string, token: string) => (v: Version): VersionVerdict => {
  const r = v.evaluate(`${ORIGIN}${path}`, token);
  return { allowed: r.allowed, rule: r.rule === null ? null : { line: r.rule.line, kind: r.rule.kind, value: r.rule.value } };
};

// Nightly runs at 02:00 UTC. v1 allows everything; v2 (seen on the 10th) closes /private/ to
// GPTBot; the 12th and 13th answer 5xx (full disallow, R-13); the 14th is back on v2.
const OPEN = 'User-agent: *\nAllow: /\n';
const CLOSED = 'User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /private/\n';
const first = { ...version('v1', '2026-03-01T02:00:00Z', 'rules', OPEN), seenBefore: null };
const v2 = version('v2', '2026-03-10T02:00:00Z', 'rules', CLOSED);
const down = version('5xx', '2026-03-12T02:00:00Z', 'disallow_all');
const back = version('v2 again', '2026-03-14T02:00:00Z', 'rules', CLOSED);
const timeline = new PolicyTimeline([back, first, down, v2]);

const bound = (token: string) => ({ token, boundByRobotsTxt: true });

describe('judgeRequest: the version in force decides, then the cache window and the change between nights excuse', () => {
  it.each([
    // [case, time, path, token, judgement, the version in force, the version that excused it]
    ['before the first night: no version known', '2026-02-28T12:00:00Z', '/private/a', 'GPTBot', 'unjudged', null, null],
    ['robots.txt itself, whatever the rules', '2026-03-12T12:00:00Z', '/robots.txt', 'GPTBot', 'robots_txt', '5xx', null],
    ['robots.txt with a query', '2026-03-05T12:00:00Z', '/robots.txt?x=1', 'GPTBot', 'robots_txt', 'v1', null],
    ['allowed by the version in force', '2026-03-05T12:00:00Z', '/private/a', 'GPTBot', 'allowed', 'v1', null],
    ['another crawler: the Disallow names GPTBot only', '2026-03-11T12:00:00Z', '/private/a', 'ClaudeBot', 'allowed', 'v2', null],
    // The change happened between the night of the 9th (v1) and that of the 10th (v2): a request
    // between them may have met either; v1 in force, v2 allows as well: plain allowed.
    ['rules changed mid-day: before the night that saw the change, v1 in force allows', '2026-03-09T20:00:00Z', '/private/a', 'GPTBot', 'allowed', 'v1', null],
    ['rules changed: 1 h after the night that saw v2, v1 held within 24 h', '2026-03-10T03:00:00Z', '/private/a', 'GPTBot', 'cache_window', 'v2', 'v1'],
    ['cache window edge: 23:59:59 after the change was seen', '2026-03-11T01:59:59Z', '/private/a', 'GPTBot', 'cache_window', 'v2', 'v1'],
    ['cache window edge: exactly 24 h after: violation', '2026-03-11T02:00:00Z', '/private/a', 'GPTBot', 'violation', 'v2', null],
    ['a day after the new Disallow shipped: violation', '2026-03-11T12:00:00Z', '/private/a', 'GPTBot', 'violation', 'v2', null],
    ['a path the new version still allows', '2026-03-11T12:00:00Z', '/public', 'GPTBot', 'allowed', 'v2', null],
    // 5xx nights: full disallow for every crawler, but the version before allowed /public
    // within 24 h, and the next night (v2 again) allows it once the site is back.
    ['5xx night, within 24 h of v2 that allowed the path', '2026-03-12T10:00:00Z', '/public', 'ClaudeBot', 'cache_window', '5xx', 'v2'],
    ['5xx for a day and a half: the next version (seen on the 14th) may already have been served', '2026-03-13T20:00:00Z', '/public', 'ClaudeBot', 'between_versions', '5xx', 'v2 again'],
  ])('%s', (_case, at, path, token, judgement, inForce, excusedBy) => {
    const j = judgeRequest({ at: new Date(at), path, crawler: bound(token), timeline, verdictOf: verdictOf(path, token) });
    expect(j.judgement).toBe(judgement);
    expect(j.inForce?.name ?? null).toBe(inForce);
    expect(j.allowedBy?.name ?? null).toBe(excusedBy);
  });

  it('names the deciding line of the version in force', () => {
    const j = judgeRequest({ at: new Date('2026-03-11T12:00:00Z'), path: '/private/a', crawler: bound('GPTBot'), timeline, verdictOf: verdictOf('/private/a', 'GPTBot') });
    expect(j.rule).toEqual({ line: 5, kind: 'disallow', value: '/private/' });
  });

  it('a 5xx night decides with no line (full disallow)', () => {
    const fiveXxOnly = new PolicyTimeline([{ ...version('5xx', '2026-03-01T02:00:00Z', 'disallow_all'), seenBefore: null }]);
    const j = judgeRequest({ at: new Date('2026-03-05T00:00:00Z'), path: '/', crawler: bound('GPTBot'), timeline: fiveXxOnly, verdictOf: verdictOf('/', 'GPTBot') });
    expect(j).toMatchObject({ judgement: 'violation', rule: null });
  });
});

describe("judgeRequest: under the crawler's own documented rules", () => {
  const t = new PolicyTimeline([{ ...version('v', '2026-03-01T02:00:00Z', 'rules', 'User-agent: *\nDisallow: /\n'), seenBefore: null }]);
  const at = new Date('2026-03-05T00:00:00Z');
  it.each([
    ['a crawler robots.txt binds', 'GPTBot', true, 'violation'],
    ['a user-triggered fetcher its operator says robots.txt does not bind', 'Perplexity-User', false, 'not_bound'],
  ])('%s', (_case, token, boundByRobotsTxt, judgement) => {
    expect(judgeRequest({ at, path: '/a', crawler: { token, boundByRobotsTxt }, timeline: t, verdictOf: verdictOf('/a', token) }).judgement).toBe(judgement);
  });

  it('a crawler that ignores the * group (Google special-case crawlers) is allowed where * is closed', () => {
    const j = judgeRequest({ at, path: '/a', crawler: bound('AdsBot-Google'), timeline: t, verdictOf: verdictOf('/a', 'AdsBot-Google') });
    expect(j.judgement).toBe('allowed');
  });

  it('Googlebot-Image follows the Googlebot group when none names it (its further product token)', () => {
    const g = new PolicyTimeline([{ ...version('v', '2026-03-01T02:00:00Z', 'rules', 'User-agent: Googlebot\nDisallow: /img/\n'), seenBefore: null }]);
    const j = judgeRequest({ at, path: '/img/a.png', crawler: bound('Googlebot-Image'), timeline: g, verdictOf: verdictOf('/img/a.png', 'Googlebot-Image') });
    expect(j).toMatchObject({ judgement: 'violation', rule: { line: 2, value: '/img/' } });
  });
});

describe('judgeRequest: the cache window is an option', () => {
  it('0 hours: a request the version in force disallows is a violation whatever came before', () => {
    const j = judgeRequest({ at: new Date('2026-03-10T03:00:00Z'), path: '/private/a', crawler: bound('GPTBot'), timeline, verdictOf: verdictOf('/private/a', 'GPTBot'), cacheHours: 0 });
    expect(j.judgement).toBe('violation');
  });
});

describe('the 30-day fallback (D-3): a version whose policy is the last good rules judges like them', () => {
  // After 30 days of 5xx the nights apply the last good copy again: the version is `rules` with
  // the old body (site_rule_nights gives its rules_body_id); a request is judged by it.
  const outage = { ...version('5xx', '2026-04-01T02:00:00Z', 'disallow_all'), seenBefore: new Date('2026-03-31T02:00:00Z') };
  const fallback = version('fallback to v2', '2026-05-01T02:00:00Z', 'rules', CLOSED);
  const t = new PolicyTimeline([{ ...version('v2', '2026-03-01T02:00:00Z', 'rules', CLOSED), seenBefore: null }, outage, fallback]);
  it.each([
    ['during the outage: full disallow', '2026-04-15T12:00:00Z', '/public', 'violation'],
    ['under the fallback: the last good rules allow /public', '2026-05-05T12:00:00Z', '/public', 'allowed'],
    ['under the fallback: the last good rules disallow /private/', '2026-05-05T12:00:00Z', '/private/a', 'violation'],
  ])('%s', (_case, at, path, judgement) => {
    expect(judgeRequest({ at: new Date(at), path, crawler: bound('GPTBot'), timeline: t, verdictOf: verdictOf(path, 'GPTBot') }).judgement).toBe(judgement);
  });
});

describe('isRobotsTxtPath', () => {
  it.each([
    ['/robots.txt', true],
    ['/robots.txt?v=2', true],
    ['/robots.txt#x', true],
    ['/robots.txt/', false],
    ['/ROBOTS.TXT', false],
    ['/a/robots.txt', false],
  ])('%s -> %s', (path, expected) => expect(isRobotsTxtPath(path)).toBe(expected));
});

describe('PolicyTimeline', () => {
  const t = new PolicyTimeline([v2, first]);
  it.each([
    ['before the first', '2026-02-01T00:00:00Z', null],
    ['at the first exactly', '2026-03-01T02:00:00Z', 'v1'],
    ['between', '2026-03-09T00:00:00Z', 'v1'],
    ['at the second exactly', '2026-03-10T02:00:00Z', 'v2'],
    ['after the last', '2027-01-01T00:00:00Z', 'v2'],
  ])('inForceAt: %s', (_case, at, name) => expect(t.inForceAt(new Date(at))?.name ?? null).toBe(name));

  it('inForceBetween: the one in force at the start and those after it', () => {
    expect(t.inForceBetween(new Date('2026-03-09T00:00:00Z'), new Date('2026-03-11T00:00:00Z')).map((v) => v.name)).toEqual(['v1', 'v2']);
    expect(t.inForceBetween(new Date('2026-03-10T03:00:00Z'), new Date('2026-03-11T00:00:00Z')).map((v) => v.name)).toEqual(['v2']);
  });

  it('possiblyLiveAfter: the next version when the night before it was before the moment', () => {
    expect(t.possiblyLiveAfter(new Date('2026-03-09T03:00:00Z'))?.name).toBe('v2');
    expect(t.possiblyLiveAfter(new Date('2026-03-09T01:00:00Z'))).toBeNull();
    expect(t.possiblyLiveAfter(new Date('2026-03-11T00:00:00Z'))).toBeNull();
  });
});
