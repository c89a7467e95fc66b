/**
 * Profile `scrapy-protego-0.7`: Protego 0.7.0 as Scrapy 2.14 calls it, each behaviour as a case,
 * most of them what 0.7.0 changed from 0.2.1 (`scrapy-protego`). Every answer was read from the
 * library itself (Debian sid's python3-protego 0.7.0+dfsg-1, run by
 * test/fixtures/parser-oracle/oracle.py); the oracle test holds the profile to it on 74,000 cases.
 */
import { describe, expect, it } from 'vitest';
import { PythonLibraryError, profileVerdict } from '../../../../src/robots/profiles/index.js';

const body = (text: string) => new TextEncoder().encode(text);

describe('scrapy-protego-0.7', () => {
  it.each([
    // [why, robots.txt, url, token, allowed]
    ["a group applies at a token boundary only: bot is not mybot", "User-agent: bot\nDisallow: /\n", "https://e.com/x", "mybot", true],
    ["bot applies to my-bot? no: - is part of the token", "User-agent: bot\nDisallow: /\n", "https://e.com/x", "my-bot", true],
    ["a token inside a User-Agent header still matches", "User-agent: foobot\nDisallow: /\n", "https://e.com/x", "Mozilla/5.0 (compatible; FooBot/1.0)", false],
    ["/robots.txt is always allowed", "User-agent: *\nDisallow: /\n", "https://e.com/robots.txt", "GPTBot", true],
    ["/robots.txt;x is /robots.txt to urlparse", "User-agent: *\nDisallow: /\n", "https://e.com/robots.txt;x", "GPTBot", true],
    ["the longest rule wins", "User-agent: *\nDisallow: /\nAllow: /public\n", "https://e.com/public/x", "GPTBot", true],
    ["Allow wins a tie", "User-agent: *\nDisallow: /a\nAllow: /a\n", "https://e.com/a", "GPTBot", true],
    ["wildcards and $", "User-agent: *\nDisallow: /*.pdf$\n", "https://e.com/f/a.pdf", "GPTBot", false],
    ["$ anchors the end", "User-agent: *\nDisallow: /*.pdf$\n", "https://e.com/f/a.pdf?x", "GPTBot", true],
    ["the query is normalised too", "User-agent: *\nDisallow: /a?b=\u30c4\n", "https://e.com/a?b=%E3%83%84", "GPTBot", false],
    ["the fragment is left out", "User-agent: *\nDisallow: /p$\n", "https://e.com/p#frag", "GPTBot", false],
    ["= in a path matches a rule with =", "User-agent: *\nDisallow: /a=b\n", "https://e.com/a%3Db", "GPTBot", false],
    ["a line without a colon is read", "User-agent: *\nDisallow /private\n", "https://e.com/private/x", "GPTBot", false],
    ["User agent in two words", "User agent GPTBot\nDisallow: /\n", "https://e.com/x", "GPTBot", false],
    ["an unknown field with a colon is not a directive", "User-agent: *\nFoo:/x\nDisallow: /y\n", "https://e.com/y", "GPTBot", false],
    ["Sitemap does not split a group", "User-agent: a\nSitemap: https://e.com/s.xml\nUser-agent: GPTBot\nDisallow: /\n", "https://e.com/x", "GPTBot", false],
    ["a user-agent line without a value ends the group", "User-agent: GPTBot\nAllow: /x\nUser-agent:\nDisallow: /\n", "https://e.com/y", "GPTBot", true],
    ["a BOM is dropped (Scrapy 2.14)", "\ufeffUser-agent: GPTBot\nDisallow: /\n", "https://e.com/x", "GPTBot", false],
    ["allowing /d/index.html allows /d/", "User-agent: *\nDisallow: /d/\nAllow: /d/index.html\n", "https://e.com/d/", "GPTBot", true],
    ["but not /d/$x", "User-agent: *\nDisallow: /d/\nAllow: /d/index.html\n", "https://e.com/d/$x", "GPTBot", false],
    ["a rule written as an absolute URL", "User-agent: *\nDisallow: https://e.com/a\n", "https://e.com/https://e.com/a", "GPTBot", false],
    ["a path starting // keeps its slashes", "User-agent: *\nDisallow: //a\n", "https://e.com//a", "GPTBot", false],
    ["an agent with * also names it without", "User-agent: GPT*\nDisallow: /\n", "https://e.com/x", "GPTBot", false],
  ])('%s', (_why, text, url, token, allowed) => {
    expect(profileVerdict('scrapy-protego-0.7', body(text), url, token)).toEqual({ allowed });
  });

  it('drops the bytes that are not UTF-8, not the whole file (Scrapy 2.14)', () => {
    const bytes = Uint8Array.from([...body('User-agent: GPTBot\nDisallow: /caf'), 0xe9, 0xff, ...body('/x\n')]);
    expect(profileVerdict('scrapy-protego-0.7', bytes, 'https://e.com/caf/x', 'GPTBot')).toEqual({ allowed: false });
    expect(profileVerdict('scrapy-protego', bytes, 'https://e.com/caf/x', 'GPTBot')).toEqual({ allowed: true });
  });

  it('raises where urlsplit refuses the URL, and takes a URL of plain characters as it is', () => {
    const robots = body('User-agent: *\nDisallow: /\n');
    expect(() => profileVerdict('scrapy-protego-0.7', robots, 'http://[::1/a b', 'GPTBot')).toThrow(PythonLibraryError);
    expect(profileVerdict('scrapy-protego-0.7', robots, 'http://[::1/a', 'GPTBot')).toEqual({ allowed: false });
    expect(profileVerdict('scrapy-protego-0.7', robots, 'http://[V1.x]/a b', 'GPTBot')).toEqual({ allowed: false });
  });
});
