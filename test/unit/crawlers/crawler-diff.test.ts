/**
 * diffCrawlerRules: per crawler, the rules of the group it follows in each version (R-40..R-43,
 * R-42), compared as sets of (kind, normalised pattern) (T49, R-50).
 */
import { describe, expect, it } from 'vitest';
import { crawlersToCompare, diffCrawlerRules, MAX_CRAWLER_RULES_LISTED, MAX_CRAWLERS_COMPARED, namedCrawlers } from '../../../src/crawlers/crawler-diff.js';
import type { CrawlerRuleChange } from '../../../src/crawlers/crawler-diff.js';
import { parseRobotsTxt } from '../../../src/robots/index.js';
import { manyAgentsOneGroup } from '../../helpers/hostile-bodies.js';

const STAR = 'User-agent: *\nDisallow: /private/\n';

/** `+Disallow: /x` / `-Allow: /y` for each rule gained / lost, and the groups followed. */
function summary(change: CrawlerRuleChange) {
  const rule = (sign: string) => (r: { kind: string; value: string }) => `${sign}${r.kind === 'allow' ? 'Allow' : 'Disallow'}: ${r.value}`;
  return {
    groups: `${change.before.token ?? 'none'} -> ${change.after.token ?? 'none'}`,
    rules: [...change.gained.map(rule('+')), ...change.lost.map(rule('-'))],
    changed: change.changed,
  };
}

function diffOne(before: string | null, after: string | null, crawler: string) {
  const [change] = diffCrawlerRules(before === null ? null : parseRobotsTxt(before), after === null ? null : parseRobotsTxt(after), [crawler]);
  return summary(change!);
}

describe('diffCrawlerRules: what each crawler gains and loses', () => {
  it.each<[string, string | null, string | null, string, ReturnType<typeof summary>]>([
    ['a * rule added reaches a crawler without a group (R-43: it follows *)', STAR, `${STAR}Disallow: /tmp/\n`, 'GPTBot', { groups: '* -> *', rules: ['+Disallow: /tmp/'], changed: true }],
    ['the * group itself', STAR, `${STAR}Disallow: /tmp/\n`, '*', { groups: '* -> *', rules: ['+Disallow: /tmp/'], changed: true }],
    [
      'a group of its own appears: its rules are gained, the * rules it followed are lost (R-40)',
      STAR,
      `${STAR}\nUser-agent: GPTBot\nDisallow: /\n`,
      'GPTBot',
      { groups: '* -> gptbot', rules: ['+Disallow: /', '-Disallow: /private/'], changed: true },
    ],
    [
      'its group goes: back to the * rules',
      `${STAR}\nUser-agent: GPTBot\nDisallow: /\n`,
      STAR,
      'gptbot',
      { groups: 'gptbot -> *', rules: ['+Disallow: /private/', '-Disallow: /'], changed: true },
    ],
    [
      'R-42: Googlebot-Image follows a new googlebot group',
      STAR,
      `${STAR}\nUser-agent: Googlebot\nDisallow: /search\n`,
      'Googlebot-Image',
      { groups: '* -> googlebot', rules: ['+Disallow: /search', '-Disallow: /private/'], changed: true },
    ],
    [
      'R-42: a crawler not listed with further tokens keeps following *',
      STAR,
      `${STAR}\nUser-agent: Googlebot\nDisallow: /search\n`,
      'Otherbot-News',
      { groups: '* -> *', rules: [], changed: false },
    ],
    ['a rule moved to another line is no change', 'User-agent: *\nAllow: /a\nDisallow: /b\n', 'User-agent: *\nDisallow: /b\nAllow: /a\n', 'Bingbot', { groups: '* -> *', rules: [], changed: false }],
    ['T49: the same pattern percent-encoded is no change', 'User-agent: *\nDisallow: /café\n', 'User-agent: *\nDisallow: /caf%C3%A9\n', 'Bingbot', { groups: '* -> *', rules: [], changed: false }],
    ['allow and disallow of one path are different rules', 'User-agent: *\nAllow: /a\n', 'User-agent: *\nDisallow: /a\n', 'Bingbot', { groups: '* -> *', rules: ['+Disallow: /a', '-Allow: /a'], changed: true }],
    [
      'R-50: an empty Disallow adds no rule, but the crawler now follows its own group',
      STAR,
      `${STAR}\nUser-agent: CCBot\nDisallow:\n`,
      'CCBot',
      { groups: '* -> ccbot', rules: ['-Disallow: /private/'], changed: true },
    ],
    ["special-case crawlers ignore *: AdsBot-Google follows no group, so a * rule is nothing to it", STAR, `${STAR}Disallow: /tmp/\n`, 'AdsBot-Google', { groups: 'none -> none', rules: [], changed: false }],
    [
      'special-case crawlers: a group naming AdsBot-Google is gained whole',
      STAR,
      `${STAR}\nUser-agent: AdsBot-Google\nDisallow: /ads/\n`,
      'AdsBot-Google',
      { groups: 'none -> adsbot-google', rules: ['+Disallow: /ads/'], changed: true },
    ],
    [
      'Applebot follows a new Googlebot group',
      STAR,
      `${STAR}\nUser-agent: Googlebot\nDisallow: /search\n`,
      'Applebot',
      { groups: '* -> googlebot', rules: ['+Disallow: /search', '-Disallow: /private/'], changed: true },
    ],
    ['R-43: no * group and none of its own: no group before or after', 'User-agent: a\nDisallow: /\n', 'User-agent: b\nDisallow: /\n', 'Bingbot', { groups: 'none -> none', rules: [], changed: false }],
    ['no robots.txt before: every rule is gained', null, STAR, 'Bingbot', { groups: 'none -> *', rules: ['+Disallow: /private/'], changed: true }],
    ['R-34: groups of one agent are merged', 'User-agent: a\nDisallow: /x\n', 'User-agent: a\nDisallow: /x\n\nUser-agent: a\nDisallow: /y\n', 'A', { groups: 'a -> a', rules: ['+Disallow: /y'], changed: true }],
  ])('%s', (_name, before, after, crawler, expected) => {
    expect(diffOne(before, after, crawler)).toEqual(expected);
  });

  it('keeps the order given and a name repeated in another case once', () => {
    const changes = diffCrawlerRules(parseRobotsTxt(STAR), parseRobotsTxt(STAR), ['*', 'GPTBot', 'gptbot', 'Bingbot']);
    expect(changes.map((c) => c.crawler)).toEqual(['*', 'GPTBot', 'Bingbot']);
  });

  it('names the user-agent lines of the group followed, as written, and the lines of the rules', () => {
    const [change] = diffCrawlerRules(parseRobotsTxt(STAR), parseRobotsTxt(`${STAR}\nUser-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n`), ['GPTBot']);
    expect(change).toEqual({
      crawler: 'GPTBot',
      before: { kind: 'global', token: '*', userAgents: ['*'] },
      after: { kind: 'named', token: 'gptbot', userAgents: ['GPTBot'] },
      gained: [{ kind: 'disallow', pattern: '/', value: '/', line: 6 }],
      lost: [{ kind: 'disallow', pattern: '/private/', value: '/private/', line: 2 }],
      gainedTotal: 1,
      lostTotal: 1,
      changed: true,
    });
  });

  it('issue 26: 15,000 agents of one group over 27,000 rules cost one comparison, lists kept to MAX_CRAWLER_RULES_LISTED', () => {
    const before = parseRobotsTxt(manyAgentsOneGroup());
    const after = parseRobotsTxt(STAR);
    const names = namedCrawlers(before);
    expect(names).toHaveLength(15_000);
    const changes = diffCrawlerRules(before, after, names);
    expect(changes).toHaveLength(15_000);
    // The named group held 2,592 distinct rules (27,000 lines: 1,296 paths, each allowed and disallowed): all lost, 200 listed.
    expect(changes[0]).toMatchObject({ lostTotal: 2_592, gainedTotal: 1 });
    expect(changes[0]!.lost).toHaveLength(MAX_CRAWLER_RULES_LISTED);
    // Shared, not copied: the same list for every crawler of the group.
    expect(changes[14_999]!.lost).toBe(changes[0]!.lost);
  });
});

describe('crawlersToCompare: at most MAX_CRAWLERS_COMPARED, the asked-for ones kept', () => {
  it('a small file: *, the files\' own, then those asked for, each once', () => {
    const a = parseRobotsTxt('User-agent: GPTBot\nDisallow: /\n');
    expect(crawlersToCompare(null, a, ['Googlebot', 'gptbot'])).toEqual({ crawlers: ['*', 'GPTBot', 'Googlebot'], notCompared: 0 });
  });

  it('15,000 named agents: * and the asked-for ones first, the files\' own fill the rest, the others counted', () => {
    const a = parseRobotsTxt(manyAgentsOneGroup());
    const { crawlers, notCompared } = crawlersToCompare(null, a, ['Googlebot', 'GPTBot']);
    expect(crawlers).toHaveLength(MAX_CRAWLERS_COMPARED);
    expect(crawlers).toEqual(expect.arrayContaining(['*', 'Googlebot', 'GPTBot']));
    expect(notCompared).toBe(15_000 + 3 - MAX_CRAWLERS_COMPARED);
  });
});

describe('namedCrawlers: the crawlers a file names', () => {
  it.each<[string, string, string[]]>([
    ['one name per token, as first written', 'User-agent: Googlebot/2.1\nUser-agent: googlebot\nDisallow: /a\n\nUser-agent: GPTBot\nDisallow: /\n', ['Googlebot', 'GPTBot']],
    ['* and the empty token left out (C9, C11)', 'User-agent: *\nUser-agent: 2bot\nDisallow: /\n', []],
    ['in order of first appearance', 'User-agent: b\nDisallow: /\n\nUser-agent: a\nDisallow: /\n\nUser-agent: B\nAllow: /\n', ['b', 'a']],
  ])('%s', (_name, text, expected) => {
    expect(namedCrawlers(parseRobotsTxt(text))).toEqual(expected);
  });

  it('no file: no names', () => {
    expect(namedCrawlers(null)).toEqual([]);
  });
});
