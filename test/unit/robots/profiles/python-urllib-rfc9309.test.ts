/**
 * Profile `python-urllib-rfc9309`: CPython's urllib.robotparser as rewritten for RFC 9309
 * (gh-138907), each behaviour as a case: where it now agrees with Google's parser, where it still
 * differs, and where it differs from the classic module (python-urllib). Read from the module as CPython 3.13.18
 * releases it (Debian sid's libpython3.13-minimal 3.13.18-1), confirmed by the oracle test
 * (test/integration/robots/profiles/python-urllib-rfc9309.oracle.int.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { PythonLibraryError, profileVerdict } from '../../../../src/robots/profiles/index.js';

const body = (text: string) => new TextEncoder().encode(text);

describe('python-urllib-rfc9309', () => {
  it.each([
    // [why, robots.txt, url, token, allowed]
    ['wildcards are read: /*.pdf$', 'User-agent: *\nDisallow: /*.pdf$\n', 'https://e.com/files/a.pdf', 'GPTBot', false],
    ['$ anchors the end', 'User-agent: *\nDisallow: /*.pdf$\n', 'https://e.com/files/a.pdf?x', 'GPTBot', true],
    ['the longest match wins', 'User-agent: *\nDisallow: /\nAllow: /public\n', 'https://e.com/public/x', 'GPTBot', true],
    ['Allow wins a tie', 'User-agent: *\nDisallow: /a\nAllow: /a\n', 'https://e.com/a', 'GPTBot', true],
    ['groups naming the same agent merge', 'User-agent: GPTBot\nDisallow: /a\n\nUser-agent: gptbot\nDisallow: /b\n', 'https://e.com/b', 'GPTBot', false],
    ['an empty line does not end a group', 'User-agent: GPTBot\n\nDisallow: /\n', 'https://e.com/x', 'GPTBot', false],
    ['the group equal to the token comes before one that is part of it', 'User-agent: bot\nDisallow: /\n\nUser-agent: GPTBot\nAllow: /\n', 'https://e.com/x', 'GPTBot', true],
    ['agents still match as substrings of the token', 'User-agent: bot\nDisallow: /\n', 'https://e.com/x', 'GPTBot', false],
    ['the * group is the last resort', 'User-agent: *\nDisallow: /\n\nUser-agent: GPTBot\nDisallow: /a\n', 'https://e.com/x', 'GPTBot', true],
    ['a wildcard rule counts how far it reaches: /*x beats a longer literal rule', 'User-agent: *\nAllow: /*x\nDisallow: /abc\n', 'https://e.com/abcdex', 'GPTBot', true],
    ['a $ before the end drops the rule', 'User-agent: *\nDisallow: /a$b\n', 'https://e.com/a$b', 'GPTBot', true],
    ['/robots.txt is always allowed', 'User-agent: *\nDisallow: /\n', 'https://e.com/robots.txt', 'GPTBot', true],
    ['the fragment is matched, as %23', 'User-agent: *\nDisallow: /p%23f\n', 'https://e.com/p#f', 'GPTBot', false],
    ['= and & stay literal in a rule\'s query', 'User-agent: *\nDisallow: /s?a=1&b\n', 'https://e.com/s?a=1&b=2', 'GPTBot', false],
    ['an empty query is dropped: /a? is not under Disallow: /a?', 'User-agent: *\nDisallow: /a?\n', 'https://e.com/a?', 'GPTBot', true],
    ['a query is kept', 'User-agent: *\nDisallow: /a?\n', 'https://e.com/a?x', 'GPTBot', false],
    ['an empty fragment is dropped', 'User-agent: *\nDisallow: /b$\n', 'https://e.com/b#', 'GPTBot', false],
    ['an IPvFuture host may start with V (3.13)', 'User-agent: *\nDisallow: /b\n', 'http://[V1.x]/b', 'GPTBot', false],
    ['rules before any user-agent are dropped', 'Disallow: /\nUser-agent: *\nDisallow: /a\n', 'https://e.com/x', 'GPTBot', true],
    ['percent-encoding compares decoded and re-quoted', 'User-agent: *\nDisallow: /caf%C3%A9\n', 'https://e.com/café', 'GPTBot', false],
  ])('%s', (_why, text, url, token, allowed) => {
    expect(profileVerdict('python-urllib-rfc9309', body(text), url, token)).toEqual({ allowed });
  });

  it('raises for a URL urlsplit refuses (an unclosed IPv6 bracket), as can_fetch does', () => {
    expect(() => profileVerdict('python-urllib-rfc9309', body('User-agent: *\nDisallow: /\n'), 'http://[::1/a', 'GPTBot')).toThrow(PythonLibraryError);
  });
});
