/**
 * Profile `crawler-commons` (assumed, not run against the library): each behaviour that
 * crawler-commons documents or that its source shows, as a case. Sources (read 2026-11-24):
 * SimpleRobotRulesParser javadoc and source
 * https://github.com/crawler-commons/crawler-commons/blob/master/src/main/java/crawlercommons/robots/SimpleRobotRulesParser.java,
 * SimpleRobotRules.java (isAllowedPath, ruleMatches, sortRules) and
 * filters/basic/BasicURLNormalizer.java (unescapePath, escapePath) beside it.
 */
import { describe, expect, it } from 'vitest';
import { PARSER_PROFILE_INFO, profileVerdict } from '../../../../src/robots/profiles/index.js';
import { crawlerCommonsRuleMatches, normalisePath } from '../../../../src/robots/profiles/crawler-commons.js';

const text = (s: string) => new TextEncoder().encode(s);
const allowed = (body: string | Uint8Array, path: string, token = 'CCBot') =>
  profileVerdict('crawler-commons', typeof body === 'string' ? text(body) : body, `https://example.com${path}`, token).allowed;

describe('crawler-commons (assumed)', () => {
  it('is labelled assumed', () => {
    expect(PARSER_PROFILE_INFO['crawler-commons'].basis).toBe('assumed');
  });

  it.each([
    // [what the source says, robots.txt, path, allowed]
    ['parseContent: an empty body means no restrictions', '', '/x', true],
    ['parseContent: an HTML page without "user-agent:" is not a robots.txt: allow all', '<html><body>Disallow: /</body></html>', '/x', true],
    ['javadoc: the product token is matched literally (case-insensitive) over the full name', 'User-agent: ccbot-news\nDisallow: /\n', '/x', true],
    ['handleUserAgent: a value that is not a token names the crawler of its leading letters (CCBot/2.0)', 'User-agent: CCBot/2.0\nDisallow: /\n', '/x', false],
    ['handleUserAgent: * applies only while no group names the crawler, wherever it stands', 'User-agent: CCBot\nDisallow: /a\n\nUser-agent: *\nDisallow: /\n', '/b', true],
    ['handleUserAgent: a group naming the crawler clears what * gave it', 'User-agent: *\nDisallow: /\n\nUser-agent: CCBot\nDisallow: /a\n', '/b', true],
    ['javadoc, RFC 9309 2.2.1: every group naming the crawler is merged', 'User-agent: CCBot\nDisallow: /a\n\nUser-agent: CCBot\nDisallow: /b\n', '/b', false],
    ['an empty line does not end a group (lines are tokens; no group state on blanks)', 'User-agent: CCBot\n\nDisallow: /\n', '/x', false],
    ['isAllowedPath: the longest matching rule wins', 'User-agent: *\nDisallow: /\nAllow: /public\n', '/public/x', true],
    ['isAllowedPath: on equal length Allow wins', 'User-agent: *\nDisallow: /page\nAllow: /page\n', '/page', true],
    ['ruleMatches: * matches any run', 'User-agent: *\nDisallow: /*.pdf\n', '/files/a.pdf?x=1', false],
    ['ruleMatches: a final $ anchors the end', 'User-agent: *\nDisallow: /*.pdf$\n', '/files/a.pdf?x=1', true],
    ['isAllowedPath: a rule ending index.html also matches its folder', 'User-agent: *\nDisallow: /dir/\nAllow: /dir/index.html\n', '/dir/', true],
    ['isAllowedPath: /robots.txt is always allowed', 'User-agent: *\nDisallow: /\n', '/robots.txt', true],
    ['parseContent: a Crawl-delay over DEFAULT_MAX_CRAWL_DELAY (300 s) disallows everything', 'User-agent: *\nCrawl-delay: 301\nAllow: /\n', '/x', false],
    ['parseContent: a Crawl-delay of 300 s is kept', 'User-agent: *\nCrawl-delay: 300\nAllow: /\n', '/x', true],
    ['DIRECTIVE_PREFIX: misspellings are read (disalow)', 'User-agent: *\nDisalow: /\n', '/x', false],
    ['tokenize: blanks instead of a colon are accepted', 'User-agent CCBot\nDisallow /\n', '/x', false],
    ['BasicURLNormalizer: escapes of unreserved characters are decoded (%7E is ~)', 'User-agent: *\nDisallow: /%7Euser\n', '/~user/x', false],
    ['BasicURLNormalizer: non-ASCII in rules is UTF-8 percent-encoded', 'User-agent: *\nDisallow: /café\n', '/caf%C3%A9', false],
    ['handleDisallow: an empty Disallow has no effect', 'User-agent: *\nDisallow:\n', '/x', true],
  ])('%s', (_what, body, path, expected) => {
    expect(allowed(body, path)).toBe(expected);
  });

  it('parseContent: a UTF-8 byte-order mark is skipped', () => {
    expect(allowed(Uint8Array.from([0xef, 0xbb, 0xbf, ...text('User-agent: *\nDisallow: /\n')]), '/x')).toBe(false);
  });

  it('parseContent: a UTF-16LE byte-order mark switches the decoding', () => {
    const utf16 = Uint8Array.from([0xff, 0xfe, ...Buffer.from('User-agent: *\nDisallow: /\n', 'utf16le')]);
    expect(allowed(utf16, '/x')).toBe(false);
  });

  it.each([
    ['/a*c', '/abc', 4],
    ['/a*c$', '/abcd', -1],
    ['/a*', '/x', -1],
    ['*', '/anything', 1],
    ['/a$', '/a', 3],
  ])('ruleMatches(%s, %s) = %i (the rule\'s length when it matches)', (pattern, path, length) => {
    expect(crawlerCommonsRuleMatches(path, pattern)).toBe(length);
  });

  it('escapes * and $ of the URL, so they never act as wildcards there', () => {
    expect(normalisePath('/a*b$', true)).toBe('/a%2Ab%24');
    expect(normalisePath('/a*b$', false)).toBe('/a*b$');
  });
});
