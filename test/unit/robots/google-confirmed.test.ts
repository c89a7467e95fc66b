/**
 * google-behaviors.md section C: behaviours of robots.cc that no upstream test pins down, each
 * confirmed by running the library (C1-C32).
 */
import { describe, expect, it } from 'vitest';
import { escapePattern, getPathParamsQuery, parseRobotsTxt } from '../../../src/robots/index.js';
import { ALLOWED, DISALLOWED, allowed, bytes, decidingLine, itVerdicts } from './verdict.js';

const U = 'http://foo.bar';

describe('C1: directive names match by case-insensitive prefix', () => {
  itVerdicts([
    ['User-agent: foo\nDisallowed: /a\n', 'foo', `${U}/a`, DISALLOWED],
    ['User-agent: foo\nDisallow: /\nAllowance: /a\n', 'foo', `${U}/a`, ALLOWED],
    ['User-agents: foo\nDisallow: /a\n', 'foo', `${U}/a`, DISALLOWED],
    ['User-agent-x: foo\nDisallow: /a\n', 'foo', `${U}/a`, DISALLOWED],
    // The order of checks is user-agent, allow, disallow, sitemap: `Allow-disallow` is an allow.
    ['User-agent: foo\nDisallow: /\nAllow-disallow: /a\n', 'foo', `${U}/a`, ALLOWED],
  ]);
});

describe('C2: the complete typo list', () => {
  itVerdicts([
    ['useragent: foo\nDisallow: /a\n', 'foo', `${U}/a`, DISALLOWED],
    ['user agent: foo\nDisallow: /a\n', 'foo', `${U}/a`, DISALLOWED],
    ...['dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw'].map(
      (key) => [`User-agent: foo\n${key}: /a\n`, 'foo', `${U}/a`, DISALLOWED] as [string, string, string, boolean],
    ),
    ['User-agent: foo\nDisallow: /\nAlow: /a\n', 'foo', `${U}/a`, DISALLOWED],
    ['User-agent: foo\ndisalllow: /a\n', 'foo', `${U}/a`, ALLOWED],
    ['user_agent: foo\nDisallow: /a\n', 'foo', `${U}/a`, ALLOWED],
    ['User-agent: foo\nDisalow /a\n', 'foo', `${U}/a`, DISALLOWED],
  ]);
  it('site-map is a sitemap', () => {
    expect(parseRobotsTxt('site-map: https://e/s.xml\n').sitemaps).toEqual([{ url: 'https://e/s.xml', line: 1 }]);
  });
});

describe('C3: priority is the byte length after %-normalisation, counting * and $', () => {
  itVerdicts([
    ['User-agent: foo\nAllow: /é\nDisallow: /%C3\n', 'foo', `${U}/%C3%A9`, ALLOWED],
    ['User-agent: foo\nDisallow: /a**\nAllow: /ab\n', 'foo', `${U}/abc`, DISALLOWED],
  ]);
});

describe('C4: ties go to allow even when the patterns differ', () => {
  itVerdicts([
    ['User-agent: foo\nAllow: /a*\nDisallow: /ab\n', 'foo', `${U}/abc`, ALLOWED],
    ['User-agent: foo\nDisallow: /ab\nAllow: /a*\n', 'foo', `${U}/abc`, ALLOWED],
  ]);
});

describe('C5: $ is special only as the very last character', () => {
  itVerdicts([
    ['User-agent: foo\nDisallow: /a$b\n', 'foo', `${U}/a$b`, DISALLOWED],
    ['User-agent: foo\nDisallow: /a$b\n', 'foo', `${U}/a`, ALLOWED],
    ['User-agent: foo\nDisallow: /a$$\n', 'foo', `${U}/a$`, DISALLOWED],
    ['User-agent: foo\nDisallow: /a$$\n', 'foo', `${U}/a`, ALLOWED],
    ['User-agent: foo\nDisallow: /a$$\n', 'foo', `${U}/a$b`, ALLOWED],
  ]);
});

describe('C6: a pattern that starts with neither / nor * never matches', () => {
  itVerdicts([
    ['User-agent: foo\nDisallow: foo\n', 'foo', `${U}/foo`, ALLOWED],
    ['User-agent: foo\nDisallow: *foo\n', 'foo', `${U}/afoo`, DISALLOWED],
    ['User-agent: foo\nDisallow: *\n', 'foo', `${U}/anything`, DISALLOWED],
    ['User-agent: foo\nDisallow: *\n', 'foo', `${U}/`, DISALLOWED],
  ]);
});

describe('C7: edge patterns', () => {
  itVerdicts([
    ['User-agent: foo\nDisallow: $\n', 'foo', `${U}/`, ALLOWED],
    ['User-agent: foo\nDisallow: /$\n', 'foo', `${U}/`, DISALLOWED],
    ['User-agent: foo\nDisallow: /$\n', 'foo', `${U}/?a`, ALLOWED],
    ['User-agent: foo\nDisallow: /*\nAllow: /\n', 'foo', `${U}/x`, DISALLOWED],
    ['User-agent: foo\nAllow: /*$\nDisallow: /\n', 'foo', `${U}/x`, ALLOWED],
  ]);
});

describe('C8: details of the index.html rule', () => {
  itVerdicts([
    ['User-agent: foo\nDisallow: /\nAllow: /dir/index.htm\n', 'foo', `${U}/dir/`, ALLOWED],
    ['User-agent: foo\nDisallow: /\nAllow: /dir/index.html\n', 'foo', `${U}/dir/`, ALLOWED],
    ['User-agent: foo\nDisallow: /\nAllow: /dir/index.htmfoo\n', 'foo', `${U}/dir/`, ALLOWED],
    // The synthesised /dir/$ (6) beats Disallow: /dir/ (5) on /dir/ only.
    ['User-agent: foo\nDisallow: /dir/\nAllow: /dir/index.html\n', 'foo', `${U}/dir/`, ALLOWED],
    ['User-agent: foo\nDisallow: /dir/\nAllow: /dir/index.html\n', 'foo', `${U}/dir/?q`, DISALLOWED],
    ['User-agent: foo\nDisallow: /dir/\nAllow: /dir/index.html\n', 'foo', `${U}/dir/other`, DISALLOWED],
    // Only Allow triggers it.
    ['User-agent: foo\nDisallow: /dir/index.html\n', 'foo', `${U}/dir/`, ALLOWED],
    ['User-agent: foo\nDisallow: /\nAllow: /index.html\n', 'foo', `${U}/`, ALLOWED],
    ['User-agent: foo\nDisallow: /\nAllow: /*/index.html\n', 'foo', `${U}/a/b/`, ALLOWED],
    ['User-agent: foo\nDisallow: /\nAllow: /dir/Index.html\n', 'foo', `${U}/dir/`, DISALLOWED],
    ['User-agent: foo\nDisallow: /\nAllow: index.html\n', 'foo', `${U}/`, DISALLOWED],
  ]);
  it('reports the line of the index.html allow', () => {
    expect(decidingLine('User-agent: foo\nDisallow: /\nAllow: /dir/index.html\n', 'foo', `${U}/dir/`)).toBe(3);
  });
});

describe('C9: a user-agent value is global only if * is followed by end or whitespace', () => {
  itVerdicts([
    ['User-agent: * foo\nDisallow: /\n', 'bar', `${U}/`, DISALLOWED],
    ['User-agent: *\tfoo\nDisallow: /\n', 'bar', `${U}/`, DISALLOWED],
    ['User-agent: *foo\nDisallow: /\n', 'bar', `${U}/`, ALLOWED],
    ['User-agent: *foo\nDisallow: /\n', 'foo', `${U}/`, ALLOWED],
    ['User-agent: *foo\nDisallow: /\n', '', `${U}/`, DISALLOWED],
  ]);
});

describe('C10: agent names are cut at digits, /, comma and dot; no prefix matching, no fallback', () => {
  itVerdicts([
    ['User-agent: bot2\nDisallow: /\n', 'bot', `${U}/`, DISALLOWED],
    ['User-agent: bot2\nDisallow: /\n', 'bot2', `${U}/`, ALLOWED],
    ['User-agent: Googlebot/2.1\nDisallow: /\n', 'googlebot', `${U}/`, DISALLOWED],
    ['User-agent: Googlebot\nDisallow: /\n', 'Googlebot/2.1', `${U}/`, ALLOWED],
    ['User-agent: Googlebot\nDisallow: /\n', 'Googlebot-Image', `${U}/`, ALLOWED],
    ['User-agent: Googlebot-Image\nDisallow: /\n', 'Googlebot', `${U}/`, ALLOWED],
    ['User-agent: foo, bar\nDisallow: /\n', 'foo', `${U}/`, DISALLOWED],
    ['User-agent: foo, bar\nDisallow: /\n', 'bar', `${U}/`, ALLOWED],
    ['User-agent: foo.bar\nDisallow: /\n', 'foo', `${U}/`, DISALLOWED],
  ]);
});

describe('C11: an empty User-agent value matches only an empty caller', () => {
  itVerdicts([
    ['User-agent:\nDisallow: /\n', '', `${U}/`, DISALLOWED],
    ['User-agent:\nDisallow: /\n', 'foo', `${U}/`, ALLOWED],
  ]);
});

describe('C12: case folding is ASCII-only', () => {
  itVerdicts([
    ['User-agent: FÖO\nDisallow: /\n', 'föo', `${U}/`, ALLOWED],
    ['User-agent: FÖO\nDisallow: /\n', 'f', `${U}/`, DISALLOWED],
    ['User-agent: FÖO\nDisallow: /\n', 'F', `${U}/`, DISALLOWED],
    // U+212A KELVIN SIGN lower-cases to "k" in Unicode, never in ASCII.
    ['User-agent: kbot\nDisallow: /\n', '\u212Abot', `${U}/`, ALLOWED],
  ]);
});

describe('C13: a matching named group decides even with no rules or an empty Disallow', () => {
  itVerdicts([
    ['User-agent: *\nDisallow: /\nUser-agent: foo\nDisallow:\n', 'foo', `${U}/x`, ALLOWED],
    ['User-agent: *\nDisallow: /\nUser-agent: foo\n', 'foo', `${U}/x`, ALLOWED],
    ['User-agent: *\nDisallow: /\nUser-agent: foo\nDisallow:\n', 'bar', `${U}/x`, DISALLOWED],
  ]);
});

describe('C14: a named agent and * listed together share one group', () => {
  const robots = 'User-agent: foo\nUser-agent: *\nDisallow: /a\n';
  itVerdicts([
    [robots, 'bar', `${U}/a`, DISALLOWED],
    [robots, 'foo', `${U}/a`, DISALLOWED],
  ]);
});

describe('C15: several * groups are merged', () => {
  const robots = 'User-agent: *\nDisallow: /a\nUser-agent: foo\nDisallow: /f\nUser-agent: *\nDisallow: /b\n';
  itVerdicts([
    [robots, 'bar', `${U}/a`, DISALLOWED],
    [robots, 'bar', `${U}/b`, DISALLOWED],
    [robots, 'bar', `${U}/f`, ALLOWED],
  ]);
});

describe('C16: the URL is compared byte for byte', () => {
  itVerdicts([
    ['User-agent: foo\nDisallow: /%aa\n', 'foo', `${U}/%aa`, ALLOWED],
    ['User-agent: foo\nDisallow: /a%2Fb\n', 'foo', `${U}/a/b`, ALLOWED],
    ['User-agent: foo\nDisallow: /a/b\n', 'foo', `${U}/a%2Fb`, ALLOWED],
    ['User-agent: foo\nDisallow: /~a\n', 'foo', `${U}/%7Ea`, ALLOWED],
    ['User-agent: foo\nDisallow: /%7Ea\n', 'foo', `${U}/~a`, ALLOWED],
    ['User-agent: foo\nDisallow: /a b\n', 'foo', `${U}/a%20b`, ALLOWED],
  ]);
});

describe('C17: invalid escapes in rules are left alone', () => {
  const esc = (...parts: (string | number[])[]) => {
    const b = bytes(...parts);
    return escapePattern(b, 0, b.length);
  };
  it.each([
    ['%zz', esc('/%zz'), '/%zz'],
    ['lone %a', esc('/%a'), '/%a'],
    ['% then non-ASCII', esc('/%', [0xc3, 0xa9]), '/%%C3%A9'],
    ['% then one hex then non-ASCII', esc('/%a', [0xff]), '/%a%FF'],
  ])('%s', (_name, got, want) => {
    expect(got).toBe(want);
  });
  itVerdicts([['User-agent: foo\nDisallow: /%zz\n', 'foo', `${U}/%zz`, DISALLOWED]]);
});

describe('C18: /robots.txt gets no special treatment', () => {
  itVerdicts([['User-agent: *\nDisallow: /\n', 'foo', `${U}/robots.txt`, DISALLOWED]]);
});

describe('C19: more URL parsing cases', () => {
  it.each([
    ['http://user:pw@x:8080/a', '/a'],
    ['HTTP://X/a', '/a'],
    ['http://x;a;b', '/;a;b'],
    ['http://x#/a', '/'],
    ['http://x?y', '/?y'],
    ['http://x/a#frag', '/a'],
  ])('%j -> %j', (url, path) => {
    expect(getPathParamsQuery(url)).toBe(path);
  });
});

describe('C20: a NUL byte ends the content of its line', () => {
  itVerdicts([
    ['User-agent: foo\n\u0000Disallow: /a\n', 'foo', `${U}/a`, ALLOWED],
    ['User-agent: foo\nDisallow: /a\u0000b\n', 'foo', `${U}/ab`, DISALLOWED],
    ['User-agent: foo\nDisallow: /a\u0000b\n', 'foo', `${U}/a`, DISALLOWED],
  ]);
  it('the rule is /a', () => {
    expect(parseRobotsTxt('User-agent: foo\nDisallow: /a\u0000b\n').rulesFor('foo')[0]?.pattern).toBe('/a');
  });
});

describe('C21: trimming removes ASCII whitespace incl. \\v and \\f; NBSP is kept and escaped', () => {
  itVerdicts([
    ['User-agent: foo\nDisallow: /a\u00a0\n', 'foo', `${U}/a%C2%A0`, DISALLOWED],
    ['User-agent: foo\nDisallow: /a\u00a0\n', 'foo', `${U}/a`, ALLOWED],
    ['\u000b User-agent: foo\nDisallow: /a\n', 'foo', `${U}/a`, DISALLOWED],
    ['User-agent: foo\nDisallow:\u000c/a\u000b\n', 'foo', `${U}/a`, DISALLOWED],
  ]);
  it('the pattern has no trailing \\v', () => {
    expect(parseRobotsTxt('User-agent: foo\nDisallow:\u000c/a\u000b\n').rulesFor('foo')[0]?.pattern).toBe('/a');
  });
});

describe('C22: whitespace inside a value is kept; the separator is flexible', () => {
  itVerdicts([
    ['User-agent: foo\nDisallow: /a b\n', 'foo', `${U}/a b`, DISALLOWED],
    ['User-agent: foo\nDisallow: /a b\n', 'foo', `${U}/a`, ALLOWED],
    ['User-agent: foo\nDisallow /a b\n', 'foo', `${U}/a`, ALLOWED],
    ['User-agent: foo\nDisallow\t/a\n', 'foo', `${U}/a`, DISALLOWED],
    ['User-agent: foo\n   Disallow  :   /a   \n', 'foo', `${U}/a`, DISALLOWED],
    ['User-agent:foo\nDisallow:/a\n', 'foo', `${U}/a`, DISALLOWED],
    ['User-agent: foo\nDis allow: /a\n', 'foo', `${U}/a`, ALLOWED],
    ['User-agent foo # comment\nDisallow: /a\n', 'foo', `${U}/a`, DISALLOWED],
  ]);
});

describe('C23: a # anywhere ends the value', () => {
  itVerdicts([
    ['User-agent: foo\nDisallow: /a#\n', 'foo', `${U}/a`, DISALLOWED],
    ['User-agent: foo\nDisallow: #/a\n', 'foo', `${U}/a`, ALLOWED],
    ['User-agent: foo\nDisallow: /*#\n', 'foo', `${U}/anything`, DISALLOWED],
    ['User-agent: foo\nDisallow: /%23\n', 'foo', `${U}/%23`, DISALLOWED],
    ['User-agent: foo\nDisallow: /%23\n', 'foo', `${U}/#`, ALLOWED],
  ]);
});

describe('C24: \\n\\r counts as two line breaks, \\r\\r\\n as two', () => {
  it.each([
    ['\\n\\r', 'User-agent: foo\n\rDisallow: /a', 3],
    ['\\r\\r\\n', 'User-agent: foo\r\r\nDisallow: /a', 3],
  ])('%s', (_name, robots, lines) => {
    const parsed = parseRobotsTxt(robots);
    expect(parsed.lineCount).toBe(lines);
    expect(parsed.isAllowed(`${U}/a`, 'foo')).toBe(DISALLOWED);
  });
});

describe('C25: only one BOM, at byte 0, is skipped', () => {
  const BOM = [0xef, 0xbb, 0xbf];
  itVerdicts([
    [bytes(BOM, BOM, 'User-agent: foo\nDisallow: /a\n'), 'foo', `${U}/a`, ALLOWED],
    [bytes(' ', BOM, 'User-agent: foo\nDisallow: /a\n'), 'foo', `${U}/a`, ALLOWED],
    [bytes(BOM, '\nUser-agent: foo\nDisallow: /a\n'), 'foo', `${U}/a`, DISALLOWED],
  ]);
});

describe('C26: only allow/disallow ends the run of user-agent lines', () => {
  itVerdicts([
    ['User-agent: foo\nCrawl-delay: 5\nUser-agent: bar\nDisallow: /a\n', 'foo', `${U}/a`, DISALLOWED],
    ['User-agent: foo\nHost: x\nUser-agent: bar\nDisallow: /a\n', 'foo', `${U}/a`, DISALLOWED],
    ['User-agent: foo\nNoindex: /x\nUser-agent: bar\nDisallow: /a\n', 'foo', `${U}/a`, DISALLOWED],
    ['User-agent: foo\nthis is garbage\nUser-agent: bar\nDisallow: /a\n', 'foo', `${U}/a`, DISALLOWED],
    ['User-agent: foo\nDisallow: /b\nUser-agent: bar\nDisallow: /a\n', 'foo', `${U}/a`, ALLOWED],
  ]);
});

describe('C27: merged groups are the union of their rules; only pattern length matters', () => {
  const robots = 'User-agent: foo\nDisallow: /a/b\nUser-agent: bar\nDisallow: /\nUser-agent: foo\nAllow: /a\n';
  itVerdicts([
    [robots, 'foo', `${U}/a/b`, DISALLOWED],
    [robots, 'foo', `${U}/a/c`, ALLOWED],
    ['User-agent: foo\nAllow: /a/b\nUser-agent: foo\nDisallow: /a\n', 'foo', `${U}/a/b`, ALLOWED],
  ]);
});

describe('C28: the first 16663 bytes of every line are kept', () => {
  const KEPT = 16663;
  it('Disallow: / + 16700 a keeps / + 16652 a, and a final $ is lost', () => {
    const robots = `User-agent: foo\nDisallow: /${'a'.repeat(16700)}$\n`;
    const pattern = parseRobotsTxt(robots).rulesFor('foo')[0]?.pattern;
    expect(pattern).toBe('/' + 'a'.repeat(16652));
    expect('Disallow: '.length + (pattern as string).length).toBe(KEPT);
    expect(allowed(robots, 'foo', `${U}/${'a'.repeat(16652)}b`)).toBe(DISALLOWED);
    expect(allowed(robots, 'foo', `${U}/${'a'.repeat(16651)}`)).toBe(ALLOWED);
  });
  it('leading whitespace counts: two spaces cost two bytes of pattern', () => {
    const robots = `User-agent: foo\n  Disallow: /${'a'.repeat(16700)}\n`;
    expect(parseRobotsTxt(robots).rulesFor('foo')[0]?.pattern).toBe('/' + 'a'.repeat(16650));
  });
  it('BOM bytes at the start of the file do not count', () => {
    const robots = bytes([0xef, 0xbb, 0xbf], `Disallow: /${'a'.repeat(16700)}\n`);
    const first = parseRobotsTxt(robots).rulesOutsideGroups[0]?.pattern;
    expect(first).toBe('/' + 'a'.repeat(16652));
  });
  it('a line of exactly 16663 bytes is kept whole', () => {
    const value = '/' + 'a'.repeat(KEPT - 'Disallow: '.length - 1);
    const robots = `User-agent: foo\nDisallow: ${value}\n`;
    expect(parseRobotsTxt(robots).rulesFor('foo')[0]?.pattern).toBe(value);
  });
});

describe('C29: several caller names are one combined set of rules', () => {
  const robots = 'User-agent: a\nDisallow: /x\nUser-agent: b\nAllow: /x/y\nDisallow: /z\n';
  itVerdicts([
    [robots, ['a', 'b'], `${U}/x/q`, DISALLOWED],
    [robots, ['a', 'b'], `${U}/x/y`, ALLOWED],
    [robots, ['a', 'b'], `${U}/z`, DISALLOWED],
    [robots, ['a', 'c'], `${U}/z`, ALLOWED],
    [robots, ['c', 'd'], `${U}/z`, ALLOWED],
  ]);
});

describe("C30: the caller's name is compared as-is, without trimming", () => {
  const robots = 'User-agent: foo\nDisallow: /\n';
  itVerdicts([
    [robots, ' foo', `${U}/`, ALLOWED],
    [robots, 'foo ', `${U}/`, ALLOWED],
    [robots, 'FOO', `${U}/`, DISALLOWED],
  ]);
});

describe('C31: duplicate or contradictory rules of the same length resolve to allow', () => {
  const robots = 'User-agent: foo\nDisallow: /a\nAllow: /a\nDisallow: /a\n';
  itVerdicts([[robots, 'foo', `${U}/a`, ALLOWED]]);
  it('and the allow line is reported', () => {
    expect(decidingLine(robots, 'foo', `${U}/a`)).toBe(3);
  });
});

describe('C32: a raw non-ASCII URL never matches a literal non-ASCII rule; * steps over it', () => {
  itVerdicts([
    ['User-agent: foo\nDisallow: /ツ\n', 'foo', `${U}/ツ`, ALLOWED],
    ['User-agent: foo\nDisallow: /*x\n', 'foo', `${U}/ツx`, DISALLOWED],
  ]);
});

describe('matching_line(): the line of the winning rule; ties report the allow', () => {
  it.each([
    ['longest disallow', 'User-agent: foo\nDisallow: /a\nDisallow: /ab\nAllow: /a\n', '/abc', 3],
    ['tie: the allow', 'User-agent: foo\nDisallow: /ab\nAllow: /a*\n', '/abc', 3],
    ['first of equal allows', 'User-agent: foo\nAllow: /a*\nAllow: /ab\n', '/abc', 2],
    ['first of equal disallows', 'User-agent: foo\nDisallow: /x*\nDisallow: /xy\n', '/xyz', 2],
    ['an empty disallow that matched', 'User-agent: foo\nDisallow:\n', '/abc', 2],
    ['no rule matched', 'User-agent: foo\nDisallow: /x\n', '/abc', null],
    ['no group', 'User-agent: bar\nDisallow: /\n', '/abc', null],
  ])('%s', (_name, robots, path, line) => {
    expect(decidingLine(robots, 'foo', `${U}${path}`)).toBe(line);
  });
});
