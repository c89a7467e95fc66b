/**
 * The seeds' own examples (robots-txt.md R-34, R-42, R-54, R-55, R-57, D-2): Google's
 * robots.txt specification, as conformance cases.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt } from '../../../src/robots/index.js';
import { followedAgent } from '../../../src/crawlers/index.js';
import type { RobotsTxt } from '../../../src/robots/index.js';
import { ALLOWED, DISALLOWED, itVerdicts } from './verdict.js';

describe('R-42: choosing the group for a crawler', () => {
  const robots = parseRobotsTxt(
    [
      'User-agent: googlebot-news',
      'Disallow: /only-news',
      '',
      'User-agent: *',
      'Disallow: /only-star',
      '',
      'User-agent: googlebot',
      'Disallow: /only-googlebot',
    ].join('\n'),
  );
  /** The group a crawler follows (src/crawlers/followed-group.ts); the matcher never falls back between names by itself (C10). */
  const groupOf = (r: RobotsTxt, crawler: string) => r.explain('http://example.com/', followedAgent(r, crawler)).group.groupIndexes;
  it.each([
    ['Googlebot News', 'Googlebot-News', [0]],
    ['Googlebot (web)', 'Googlebot', [2]],
    ['Googlebot Images', 'Googlebot-Image', [2]],
    ['Otherbot (web)', 'Otherbot', [1]],
    ['Otherbot (news): a related crawler with no group of its own follows *', 'Otherbot-News', [1]],
  ])('%s -> group %j', (_name, crawler, groups) => {
    expect(groupOf(robots, crawler)).toEqual(groups);
  });
  it("Google's library itself does not fall back between names (C10)", () => {
    expect(robots.explain('http://example.com/', 'Googlebot-Image').group.groupIndexes).toEqual([1]);
  });
  it.each([
    ['Googlebot-Video', 'User-agent: Googlebot\nDisallow: /g\n', 'googlebot'],
    ['googlebot-image', 'User-agent: googlebot-image\nDisallow: /i\nUser-agent: Googlebot\nDisallow: /g\n', 'googlebot-image'],
    ['GoogleOther-Image', 'User-agent: GoogleOther\nDisallow: /o\n', 'googleother'],
    ['GoogleOther-Image', 'User-agent: Googlebot\nDisallow: /g\n', 'GoogleOther-Image'],
    ['Bingbot', 'User-agent: msnbot\nDisallow: /m\n', 'Bingbot'],
  ])('%s in %j follows %s', (crawler, body, token) => {
    expect(followedAgent(parseRobotsTxt(body), crawler)).toBe(token);
  });
  it('all other groups are ignored (R-40)', () => {
    expect(robots.isAllowed('http://example.com/only-star', 'Googlebot')).toBe(ALLOWED);
    expect(robots.isAllowed('http://example.com/only-googlebot', 'Googlebot-News')).toBe(ALLOWED);
    expect(robots.isAllowed('http://example.com/only-news', 'Googlebot-News')).toBe(DISALLOWED);
    expect(robots.isAllowed('http://example.com/only-star', 'Otherbot')).toBe(DISALLOWED);
  });
});

describe('R-34: two googlebot-news groups act as one', () => {
  const robots = 'user-agent: googlebot-news\ndisallow: /fish\n\nuser-agent: *\ndisallow: /carrots\n\nuser-agent: googlebot-news\ndisallow: /shrimp\n';
  itVerdicts([
    [robots, 'googlebot-news', 'http://example.com/fish', DISALLOWED],
    [robots, 'googlebot-news', 'http://example.com/shrimp', DISALLOWED],
    [robots, 'googlebot-news', 'http://example.com/carrots', ALLOWED],
  ]);
});

/** Verdicts of `Disallow: <pattern>` in the * group: DISALLOWED means the pattern matches the URL. */
const matches = (pattern: string, paths: string[]) => paths.map((p) => [`User-agent: *\nDisallow: ${pattern}\n`, 'bot', `http://example.com${p}`, DISALLOWED] as [string, string, string, boolean]);
const misses = (pattern: string, paths: string[]) => paths.map((p) => [`User-agent: *\nDisallow: ${pattern}\n`, 'bot', `http://example.com${p}`, ALLOWED] as [string, string, string, boolean]);

const FISH_YES = ['/fish', '/fish.html', '/fish/salmon.html', '/fishheads', '/fishheads/yummy.html', '/fish.php?id=anything'];
const FISH_NO = ['/Fish.asp', '/catfish', '/?id=fish'];
const ANY = ['/', '/a', '/fish/salmon.html', '/?q=1', '/deep/er/path.php'];

describe('R-55: the path examples of the seeds', () => {
  describe('/', () => itVerdicts(matches('/', ANY)));
  describe('/*', () => itVerdicts(matches('/*', ANY)));
  describe('/fish', () => itVerdicts([...matches('/fish', FISH_YES), ...misses('/fish', FISH_NO)]));
  describe('/fish*', () => itVerdicts([...matches('/fish*', FISH_YES), ...misses('/fish*', FISH_NO)]));
  describe('/fish/', () =>
    itVerdicts([...matches('/fish/', ['/fish/', '/fish/?id=anything', '/fish/salmon.htm']), ...misses('/fish/', ['/fish', '/fish.html', '/Fish/Salmon.asp'])]));
  describe('fish/ (R-51: never matches)', () => itVerdicts(misses('fish/', ['/fish/', '/fish/salmon', '/', '/xfish/'])));
  describe('/*.php', () =>
    itVerdicts([
      ...matches('/*.php', ['/filename.php', '/folder/filename.php', '/folder/filename.php?parameters', '/folder/any.php.file.html', '/filename.php/']),
      ...misses('/*.php', ['/', '/windows.PHP']),
    ]));
  describe('/*.php$', () =>
    itVerdicts([
      ...matches('/*.php$', ['/filename.php', '/folder/filename.php']),
      ...misses('/*.php$', ['/filename.php?parameters', '/filename.php/', '/filename.php5', '/windows.PHP']),
    ]));
  describe('/fish*.php', () => itVerdicts([...matches('/fish*.php', ['/fish.php', '/fishheads/catfish.php?parameters']), ...misses('/fish*.php', ['/Fish.PHP'])]));
});

describe('R-54: a trailing * is ignored for matching (/fish* = /fish, /* = /)', () => {
  const alphabet = fc.constantFrom('/', 'f', 'i', 's', 'h', '.', '?', '=', '*', 'a', '%', '$');
  it('Disallow: P* blocks exactly the paths Disallow: P blocks', () => {
    fc.assert(
      fc.property(fc.string({ unit: alphabet, maxLength: 8 }), fc.string({ unit: alphabet, maxLength: 12 }), (body, rest) => {
        // P must not end in $ (P* would make that $ a literal) and the rule must not be empty.
        const pattern = '/' + body.replace(/\$+$/, '');
        const url = `http://example.com/${rest}`;
        const a = parseRobotsTxt(`User-agent: *\nDisallow: ${pattern}\n`).isAllowed(url, 'bot');
        const b = parseRobotsTxt(`User-agent: *\nDisallow: ${pattern}*\n`).isAllowed(url, 'bot');
        expect(b).toBe(a);
      }),
      { numRuns: 500 },
    );
  });
});

describe('R-57 and D-2: precedence examples', () => {
  const table = (allow: string, disallow: string) => `User-agent: *\nAllow: ${allow}\nDisallow: ${disallow}\n`;
  itVerdicts([
    [table('/p', '/'), 'bot', 'http://example.com/page', ALLOWED],
    [table('/folder', '/folder'), 'bot', 'http://example.com/folder/page', ALLOWED],
    // Undefined by the seeds; D-2: /*.htm (6) is longer than /page (5).
    [table('/page', '/*.htm'), 'bot', 'http://example.com/page.htm', DISALLOWED],
    [table('/$', '/'), 'bot', 'http://example.com/', ALLOWED],
    [table('/$', '/'), 'bot', 'http://example.com/page.htm', DISALLOWED],
  ]);
});
