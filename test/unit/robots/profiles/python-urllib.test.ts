/**
 * Profile `python-urllib`: the behaviours of CPython 3.11's urllib.robotparser that differ from
 * Google's parser, each as a case (read from Lib/urllib/robotparser.py, confirmed by the oracle
 * test, test/integration/robots/profiles/python-urllib.oracle.int.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { profileVerdict } from '../../../../src/robots/profiles/index.js';

const body = (text: string) => new TextEncoder().encode(text);

describe('python-urllib', () => {
  it.each([
    // [why, robots.txt, url, token, allowed]
    ['no wildcards: /*.pdf$ is a literal prefix', 'User-agent: *\nDisallow: /*.pdf$\n', 'https://e.com/files/a.pdf', 'GPTBot', true],
    ['first matching rule wins, not the longest', 'User-agent: *\nDisallow: /\nAllow: /public\n', 'https://e.com/public/x', 'GPTBot', false],
    ['the first group naming the agent wins', 'User-agent: GPTBot\nDisallow: /a\n\nUser-agent: GPTBot\nDisallow: /b\n', 'https://e.com/b', 'GPTBot', true],
    ['an empty line ends a group: the rules after it are lost', 'User-agent: GPTBot\n\nDisallow: /\n', 'https://e.com/x', 'GPTBot', true],
    ['agents match as substrings of the token', 'User-agent: bot\nDisallow: /\n', 'https://e.com/x', 'GPTBot', false],
    ['the token is cut at "/"', 'User-agent: GPTBot\nDisallow: /\n', 'https://e.com/x', 'GPTBot/1.1', false],
    ['a BOM makes the first line unreadable', '\ufeffUser-agent: *\nDisallow: /\n', 'https://e.com/x', 'GPTBot', true],
    ['rules before any user-agent are dropped', 'Disallow: /\nUser-agent: *\nDisallow: /a\n', 'https://e.com/x', 'GPTBot', true],
    ['percent-encoding compares decoded and re-quoted', 'User-agent: *\nDisallow: /caf%C3%A9\n', 'https://e.com/café', 'GPTBot', false],
    ['the * group is consulted last, whatever its place', 'User-agent: *\nDisallow: /\n\nUser-agent: GPTBot\nDisallow: /a\n', 'https://e.com/x', 'GPTBot', true],
  ])('%s', (_why, text, url, token, allowed) => {
    expect(profileVerdict('python-urllib', body(text), url, token)).toEqual({ allowed });
  });

  it('throws where the library raises (a bracketed rule that is not an IP address)', () => {
    expect(() => profileVerdict('python-urllib', body('User-agent: *\nDisallow: //[x]/a\n'), 'https://e.com/', 'GPTBot')).toThrow(/IPv4 or IPv6/);
  });
});
