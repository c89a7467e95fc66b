/**
 * The group a crawler follows (src/crawlers/followed-group.ts) under its documented crawler rules
 * (src/crawlers/crawler-rules.json): R-42's example, Google's special-case crawlers, Applebot.
 */
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt } from '../../../src/robots/index.js';
import { explainAsCrawler, followedGroup, followedGroupText } from '../../../src/crawlers/index.js';
import type { FollowedGroupRule } from '../../../src/crawlers/index.js';

/** groups googlebot-news (0), * (1), googlebot (2). */
const SPEC_EXAMPLE = ['User-agent: googlebot-news', 'Disallow: /only-news', '', 'User-agent: *', 'Disallow: /only-star', '', 'User-agent: googlebot', 'Disallow: /only-googlebot'].join('\n');
const STAR_DISALLOW_ALL = 'User-agent: *\nDisallow: /\n';
const GOOGLEBOT_ONLY = 'User-agent: Googlebot\nDisallow: /private/\n\nUser-agent: *\nDisallow: /\n';

describe('followedGroup: the group a crawler follows, and the rule that chose it', () => {
  it.each<[string, string, string, FollowedGroupRule, number[]]>([
    ['R-42 Googlebot News: its own group', SPEC_EXAMPLE, 'Googlebot-News', 'own', [0]],
    ['R-42 Googlebot (web): its own group', SPEC_EXAMPLE, 'Googlebot', 'own', [2]],
    ['R-42 Googlebot Images: the googlebot group (no googlebot-image group)', SPEC_EXAMPLE, 'Googlebot-Image', 'further-token', [2]],
    ['R-42 Otherbot: the * group', SPEC_EXAMPLE, 'Otherbot', 'star', [1]],
    ['R-42 Otherbot-News: a related crawler with no group of its own follows *', SPEC_EXAMPLE, 'Otherbot-News', 'star', [1]],
    ['special-case: AdsBot-Google ignores * when no group names it', STAR_DISALLOW_ALL, 'AdsBot-Google', 'ignores-star', []],
    ['special-case: AdsBot-Google-Mobile too', STAR_DISALLOW_ALL, 'AdsBot-Google-Mobile', 'ignores-star', []],
    ['special-case: Mediapartners-Google too', STAR_DISALLOW_ALL, 'Mediapartners-Google', 'ignores-star', []],
    ['special-case: APIs-Google too', STAR_DISALLOW_ALL, 'APIs-Google', 'ignores-star', []],
    ['special-case: a group naming AdsBot-Google applies', 'User-agent: *\nDisallow: /\n\nUser-agent: AdsBot-Google\nDisallow: /ads/\n', 'adsbot-google', 'own', [1]],
    ['special-case: AdsBot-Google does not follow googlebot', GOOGLEBOT_ONLY, 'AdsBot-Google', 'ignores-star', []],
    ['Applebot: the Googlebot group when none names Applebot', GOOGLEBOT_ONLY, 'Applebot', 'further-token', [0]],
    ['Applebot: its own group when one names it', 'User-agent: Applebot\nDisallow: /a\n\n' + GOOGLEBOT_ONLY, 'Applebot', 'own', [0]],
    ['Applebot: * when neither Applebot nor Googlebot is named', STAR_DISALLOW_ALL, 'Applebot', 'star', [0]],
    ['Applebot-Extended is not Applebot: it follows *', GOOGLEBOT_ONLY, 'Applebot-Extended', 'star', [1]],
    ['R-43: no group names it and no * group', 'User-agent: Googlebot\nDisallow: /\n', 'GPTBot', 'no-group', []],
  ])('%s', (_name, body, crawler, rule, groups) => {
    const robots = parseRobotsTxt(body);
    expect(followedGroup(robots, crawler).rule).toBe(rule);
    expect(explainAsCrawler(robots, 'https://example.com/', crawler).group.groupIndexes).toEqual(groups);
  });
});

describe('explainAsCrawler: the verdict as the named crawler decides', () => {
  it.each([
    ['R-42: Googlebot-Image obeys the googlebot group', SPEC_EXAMPLE, 'Googlebot-Image', '/only-googlebot', false],
    ['R-42: Googlebot-Image does not obey the * group', SPEC_EXAMPLE, 'Googlebot-Image', '/only-star', true],
    ['AdsBot-Google under * / Disallow: / is allowed', STAR_DISALLOW_ALL, 'AdsBot-Google', '/', true],
    ['Otherbot under * / Disallow: / is disallowed', STAR_DISALLOW_ALL, 'Otherbot', '/', false],
    ['Applebot obeys the Googlebot group', GOOGLEBOT_ONLY, 'Applebot', '/private/x', false],
    ['Applebot is not held by the * group when a Googlebot group exists', GOOGLEBOT_ONLY, 'Applebot', '/public', true],
  ])('%s', (_name, body, crawler, path, allowed) => {
    expect(explainAsCrawler(parseRobotsTxt(body), `https://example.com${path}`, crawler).allowed).toBe(allowed);
  });
  it('names the rule that applied, with its source', () => {
    const ads = explainAsCrawler(parseRobotsTxt(STAR_DISALLOW_ALL), 'https://example.com/', 'AdsBot-Google');
    expect(followedGroupText('AdsBot-Google', ads.followed)).toBe(
      'AdsBot-Google ignores the * group (https://developers.google.com/crawling/docs/crawlers-fetchers/google-special-case-crawlers)',
    );
    expect(ads).toMatchObject({ rule: null, line: null, group: { kind: 'none' } });
    expect(ads.reason).toMatch(/ignores the "\*" group/);
    const apple = explainAsCrawler(parseRobotsTxt(GOOGLEBOT_ONLY), 'https://example.com/', 'Applebot');
    expect(followedGroupText('Applebot', apple.followed)).toBe('Applebot follows the Googlebot group when none names Applebot (https://support.apple.com/en-us/119829)');
    expect(followedGroupText('Googlebot', explainAsCrawler(parseRobotsTxt(GOOGLEBOT_ONLY), 'https://example.com/', 'Googlebot').followed)).toBeNull();
  });
  it('rules passed in replace the shipped ones (the function is pure)', () => {
    const robots = parseRobotsTxt(STAR_DISALLOW_ALL);
    expect(explainAsCrawler(robots, 'https://example.com/', 'AdsBot-Google', null).allowed).toBe(false);
    const rules = { token: 'Mybot', starGroup: { value: 'ignores' as const, source: 'https://example.org/mybot', read: '2026-11-24' }, parser: { profile: 'unknown' as const, basis: 'unknown' as const, source: null, read: '2026-11-24' } };
    expect(explainAsCrawler(robots, 'https://example.com/', 'Mybot', rules).allowed).toBe(true);
  });
});
