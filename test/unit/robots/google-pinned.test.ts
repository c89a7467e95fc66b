/**
 * google-behaviors.md section A: the behaviours pinned by google/robotstxt's robots_test.cc
 * (T1-T49), each as a case table with the exact robots.txt, user-agent and URL.
 */
import { describe, expect, it } from 'vitest';
import { escapePattern, getPathParamsQuery, isValidUserAgentToObey, parseRobotsTxt } from '../../../src/robots/index.js';
import { ALLOWED, DISALLOWED, allowed, bytes, itVerdicts } from './verdict.js';

const FOO_DISALLOW_ALL = 'user-agent: FooBot\ndisallow: /\n';

describe('T1: an empty robots.txt allows everything', () => {
  itVerdicts([
    ['', 'FooBot', '', ALLOWED],
    ['', '', '', ALLOWED],
    ['', 'FooBot', 'http://foo.bar/x/y', ALLOWED],
  ]);
});

describe('T2: an empty caller user-agent matches no named group', () => {
  itVerdicts([[FOO_DISALLOW_ALL, '', '', ALLOWED]]);
});

describe('T3: an empty URL or a URL without a path is evaluated as /', () => {
  itVerdicts([
    [FOO_DISALLOW_ALL, 'FooBot', '', DISALLOWED],
    [FOO_DISALLOW_ALL, 'FooBot', 'http://foo.bar', DISALLOWED],
  ]);
});

describe('T4: unknown names are ignored', () => {
  itVerdicts([['foo: FooBot\nbar: /\n', 'FooBot', 'http://foo.bar/x/y', ALLOWED]]);
});

describe('T5: a line without colon is accepted when it is exactly two tokens', () => {
  itVerdicts([['user-agent FooBot\ndisallow /\n', 'FooBot', 'http://foo.bar/x/y', DISALLOWED]]);
});

const GROUPS =
  'allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\nuser-agent: BarBot\ndisallow: /\nallow: /y/\n\n\nallow: /w/\nuser-agent: BazBot\n\nuser-agent: FooBot\nallow: /z/\ndisallow: /\n';

describe('T6: rules before the first user-agent line are ignored', () => {
  itVerdicts([
    [GROUPS, 'FooBot', 'http://foo.bar/foo/bar/', DISALLOWED],
    [GROUPS, 'BarBot', 'http://foo.bar/foo/bar/', DISALLOWED],
    [GROUPS, 'BazBot', 'http://foo.bar/foo/bar/', DISALLOWED],
  ]);
});

describe('T7: a user-agent line after rules starts a new group; rules never leak', () => {
  itVerdicts([
    [GROUPS, 'FooBot', 'http://foo.bar/y/c', DISALLOWED],
    [GROUPS, 'BarBot', 'http://foo.bar/z/d', DISALLOWED],
  ]);
});

describe('T8: blank lines do not end a group', () => {
  itVerdicts([[GROUPS, 'BarBot', 'http://foo.bar/w/a', ALLOWED]]);
});

describe('T9: groups naming the same agent are merged', () => {
  itVerdicts([
    [GROUPS, 'FooBot', 'http://foo.bar/x/b', ALLOWED],
    [GROUPS, 'FooBot', 'http://foo.bar/z/d', ALLOWED],
  ]);
});

describe('T10: consecutive user-agent lines share the rules that follow, across blank lines', () => {
  itVerdicts([
    [GROUPS, 'BazBot', 'http://foo.bar/z/d', ALLOWED],
    [GROUPS, 'BazBot', 'http://foo.bar/q', DISALLOWED],
  ]);
});

describe('T11: a Sitemap line does not end the run of user-agents', () => {
  itVerdicts([['User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n', 'BarBot', 'http://foo.bar/', DISALLOWED]]);
});

describe('T12: an unknown line does not end the run of user-agents', () => {
  itVerdicts([['User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n', 'FooBot', 'http://foo.bar/', DISALLOWED]]);
});

describe('T13: directive names are case-insensitive', () => {
  const robots = 'uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n';
  itVerdicts([
    [robots, 'FooBot', 'http://foo.bar/x/y', ALLOWED],
    [robots, 'FooBot', 'http://foo.bar/a/b', DISALLOWED],
  ]);
});

describe('T14: isValidUserAgentToObey', () => {
  it.each(['Foobot', 'Foobot-Bar', 'Foo_Bar'])('%j is valid', (ua) => {
    expect(isValidUserAgentToObey(ua)).toBe(true);
  });
  it.each(['', 'ツ', 'Foobot*', ' Foobot ', 'Foobot/2.1', 'Foobot Bar'])('%j is invalid', (ua) => {
    expect(isValidUserAgentToObey(ua)).toBe(false);
  });
  it('is not applied to the caller: an invalid caller name still selects the * group', () => {
    expect(allowed('User-agent: *\nDisallow: /\n', 'Foobot/2.1', 'http://foo.bar/')).toBe(DISALLOWED);
  });
});

describe('T15: the user-agent value is matched case-insensitively', () => {
  const robots = 'User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n';
  itVerdicts([
    [robots, 'foo', 'http://foo.bar/x/y', ALLOWED],
    [robots, 'Foo', 'http://foo.bar/a/b', DISALLOWED],
    [robots, 'FOO', 'http://foo.bar/a/b', DISALLOWED],
  ]);
});

const UP_TO_SPACE = 'User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n';

describe('T16: a robots.txt user-agent value is cut at the first character outside [A-Za-z_-]', () => {
  itVerdicts([[UP_TO_SPACE, 'Foo', 'http://foo.bar/x/y', ALLOWED]]);
});

describe('T17: the caller user-agent is compared whole', () => {
  itVerdicts([[UP_TO_SPACE, 'Foo Bar', 'http://foo.bar/x/y', DISALLOWED]]);
});

describe('T18: with no group for the agent, the * group applies', () => {
  const robots = 'user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n';
  itVerdicts([
    [robots, 'BarBot', 'http://foo.bar/x/y', ALLOWED],
    [robots, 'FooBot', 'http://foo.bar/x/y', DISALLOWED],
  ]);
});

describe('T19: with no group for the agent and no * group, everything is allowed', () => {
  const robots = 'user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n';
  itVerdicts([[robots, 'QuxBot', 'http://foo.bar/x/y', ALLOWED]]);
});

describe('T20: path matching is case-sensitive', () => {
  itVerdicts([['user-agent: FooBot\ndisallow: /X/\n', 'FooBot', 'http://foo.bar/x/y', ALLOWED]]);
});

describe('T21: the longest matching pattern wins, whatever the order of lines', () => {
  itVerdicts([
    ['user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n', 'FooBot', 'http://foo.bar/x/page.html', DISALLOWED],
    ['user-agent: FooBot\nallow: /x/\ndisallow: /x/page.html\n', 'FooBot', 'http://foo.bar/x/page.html', DISALLOWED],
    ['user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n', 'FooBot', 'http://foo.bar/x/page.html', ALLOWED],
    ['user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n', 'FooBot', 'http://foo.bar/x/', DISALLOWED],
  ]);
});

describe('T22: equal length: allow wins', () => {
  itVerdicts([
    ['user-agent: FooBot\ndisallow: /\nallow: /\n', 'FooBot', 'http://foo.bar/', ALLOWED],
    ['user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n', 'FooBot', 'http://foo.bar/x/page.html', ALLOWED],
  ]);
});

describe('T23: an empty disallow with an empty allow allows (priority 0 never disallows)', () => {
  itVerdicts([
    ['user-agent: FooBot\ndisallow: \nallow: \n', 'FooBot', 'http://foo.bar/x/page.html', ALLOWED],
    ['user-agent: FooBot\ndisallow:\n', 'FooBot', 'http://foo.bar/', ALLOWED],
  ]);
});

describe('T24: a trailing slash matters', () => {
  const robots = 'user-agent: FooBot\ndisallow: /x\nallow: /x/\n';
  itVerdicts([
    [robots, 'FooBot', 'http://foo.bar/x', DISALLOWED],
    [robots, 'FooBot', 'http://foo.bar/x/', ALLOWED],
  ]);
});

describe('T25: "longest" is the length of the pattern, counting *', () => {
  const a = 'user-agent: FooBot\nallow: /page\ndisallow: /*.html\n';
  const b = 'user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n';
  itVerdicts([
    [a, 'FooBot', 'http://foo.bar/page.html', DISALLOWED],
    [a, 'FooBot', 'http://foo.bar/page', ALLOWED],
    [b, 'FooBot', 'http://foo.bar/x/page.html', ALLOWED],
    [b, 'FooBot', 'http://foo.bar/x/y.html', DISALLOWED],
  ]);
});

describe('T26: a matching named group replaces the * group entirely', () => {
  const robots = 'User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n';
  itVerdicts([
    [robots, 'FooBot', 'http://foo.bar/x/page', ALLOWED],
    [robots, 'FooBot', 'http://foo.bar/y/page', DISALLOWED],
  ]);
});

describe('T27: reserved characters are compared literally', () => {
  itVerdicts([
    [
      'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n',
      'FooBot',
      'http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par',
      ALLOWED,
    ],
  ]);
});

describe('T28: non-ASCII bytes in a rule are percent-encoded before matching', () => {
  itVerdicts([['User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n', 'FooBot', 'http://foo.bar/foo/bar/%E3%83%84', ALLOWED]]);
});

describe('T29: the URL is not encoded or normalised', () => {
  itVerdicts([
    ['User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n', 'FooBot', 'http://foo.bar/foo/bar/ツ', DISALLOWED],
    ['User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n', 'FooBot', 'http://foo.bar/foo/bar/%E3%83%84', ALLOWED],
    ['User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n', 'FooBot', 'http://foo.bar/foo/bar/ツ', DISALLOWED],
  ]);
});

describe('T30: percent-encoded unreserved characters are not decoded on either side', () => {
  const robots = 'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n';
  itVerdicts([
    [robots, 'FooBot', 'http://foo.bar/foo/bar/baz', DISALLOWED],
    [robots, 'FooBot', 'http://foo.bar/foo/bar/%62%61%7A', ALLOWED],
  ]);
});

describe('T31: a URL that matches no rule is allowed; a non-matching wildcard rule has no effect', () => {
  const robots = 'User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n';
  itVerdicts([
    [robots, 'FooBot', 'http://foo.bar/foo/bar/quz', DISALLOWED],
    [robots, 'FooBot', 'http://foo.bar/foo/quz', ALLOWED],
    [robots, 'FooBot', 'http://foo.bar/foo//quz', ALLOWED],
    [robots, 'FooBot', 'http://foo.bar/foo/bax/quz', ALLOWED],
  ]);
});

describe('T32: $ at the end anchors the pattern to the end of path+query', () => {
  const robots = 'User-agent: FooBot\nDisallow: /foo/bar$\n';
  itVerdicts([
    [robots, 'FooBot', 'http://foo.bar/foo/bar', DISALLOWED],
    [robots, 'FooBot', 'http://foo.bar/foo/bar/', ALLOWED],
    [robots, 'FooBot', 'http://foo.bar/foo/bar/baz', ALLOWED],
  ]);
});

describe('T33: # starts a comment anywhere on a line', () => {
  const robots = 'User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n';
  itVerdicts([
    [robots, 'FooBot', 'http://foo.bar/foo/quz', DISALLOWED],
    [robots, 'FooBot', 'http://foo.bar/foo/bar', ALLOWED],
  ]);
});

describe('T34: Allow: <dir>/index.html also allows exactly <dir>/', () => {
  const robots = 'User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n';
  itVerdicts([
    [robots, 'foobot', 'http://foo.com/allowed-slash/', ALLOWED],
    [robots, 'foobot', 'http://foo.com/allowed-slash/index.htm', DISALLOWED],
    [robots, 'foobot', 'http://foo.com/allowed-slash/index.html', ALLOWED],
    [robots, 'foobot', 'http://foo.com/anyother-url', DISALLOWED],
  ]);
});

// T35/T36 build their lines as robots_test.cc does: the line buffer is 2083 * 8 bytes.
const MAX_LINE_LEN = 2083 * 8;
const EOL_LEN = 1;

describe('T35: bytes beyond the line limit are dropped; the cut rule still applies as a prefix', () => {
  let longline = '/x/';
  const maxLength = MAX_LINE_LEN - longline.length - 'disallow: '.length + EOL_LEN;
  while (longline.length < maxLength) longline += 'a';
  const robots = `user-agent: FooBot\ndisallow: ${longline}/qux\n`;
  itVerdicts([
    [robots, 'FooBot', 'http://foo.bar/fux', ALLOWED],
    [robots, 'FooBot', `http://foo.bar${longline}/fux`, DISALLOWED],
  ]);
});

describe('T36: two long allow lines that differ only after the cut both shrink to their prefixes', () => {
  let a = '/x/';
  let b = '/x/';
  const maxLength = MAX_LINE_LEN - a.length - 'allow: '.length + EOL_LEN;
  while (a.length < maxLength) {
    a += 'a';
    b += 'b';
  }
  const robots = `user-agent: FooBot\ndisallow: /\nallow: ${a}/qux\nallow: ${b}/qux\n`;
  itVerdicts([
    [robots, 'FooBot', 'http://foo.bar/', DISALLOWED],
    [robots, 'FooBot', `http://foo.bar${a}/qux`, ALLOWED],
    [robots, 'FooBot', `http://foo.bar${b}/fux`, ALLOWED],
  ]);
});

const pathRule = (rule: string) => `User-agent: FooBot\nDisallow: /\nAllow: ${rule}\n`;
const pathCases = (rule: string, yes: string[], no: string[]) => [
  ...yes.map((p) => [pathRule(rule), 'FooBot', `http://foo.bar${p}`, ALLOWED] as const),
  ...no.map((p) => [pathRule(rule), 'FooBot', `http://foo.bar${p}`, DISALLOWED] as const),
];

describe('T37: patterns are prefix matches anchored at the start of the path', () => {
  itVerdicts(
    pathCases(
      '/fish',
      ['/fish', '/fish.html', '/fish/salmon.html', '/fishheads', '/fishheads/yummy.html', '/fish.html?id=anything'],
      ['/Fish.asp', '/catfish', '/?id=fish'],
    ).map((c) => [...c]),
  );
});

describe('T38: a trailing * matches exactly the set the pattern without it matches', () => {
  const paths = ['/fish', '/fish.html', '/fish/salmon.html', '/fishheads', '/fishheads/yummy.html', '/fish.html?id=anything', '/Fish.asp', '/catfish', '/?id=fish', '/'];
  it.each(paths)('%s: /fish* and /fish agree', (p) => {
    expect(allowed(pathRule('/fish*'), 'FooBot', `http://foo.bar${p}`)).toBe(allowed(pathRule('/fish'), 'FooBot', `http://foo.bar${p}`));
  });
  it('but it makes the pattern longer for precedence (C3)', () => {
    expect(allowed('User-agent: FooBot\nDisallow: /fish*\nAllow: /fishy\n', 'FooBot', 'http://foo.bar/fishy')).toBe(ALLOWED);
    expect(allowed('User-agent: FooBot\nDisallow: /fish**\nAllow: /fishy\n', 'FooBot', 'http://foo.bar/fishy')).toBe(DISALLOWED);
  });
});

describe('T39: allow: /fish/', () => {
  itVerdicts(
    pathCases('/fish/', ['/fish/', '/fish/salmon', '/fish/?salmon', '/fish/salmon.html', '/fish/?id=anything'], ['/fish', '/fish.html', '/Fish/Salmon.html']).map(
      (c) => [...c],
    ),
  );
});

describe('T40: allow: /*.php; the * can reach into the query', () => {
  itVerdicts(
    pathCases(
      '/*.php',
      ['/filename.php', '/folder/filename.php', '/folder/filename.php?parameters', '//folder/any.php.file.html', '/filename.php/', '/index?f=filename.php/'],
      ['/php/', '/index?php', '/windows.PHP'],
    ).map((c) => [...c]),
  );
});

describe('T41: allow: /*.php$', () => {
  itVerdicts(
    pathCases(
      '/*.php$',
      ['/filename.php', '/folder/filename.php'],
      ['/filename.php?parameters', '/filename.php/', '/filename.php5', '/php/', '/filename?php', '/aaaphpaaa', '//windows.PHP'],
    ).map((c) => [...c]),
  );
});

describe('T42: allow: /fish*.php', () => {
  itVerdicts(pathCases('/fish*.php', ['/fish.php', '/fishheads/catfish.php?parameters'], ['/Fish.PHP']).map((c) => [...c]));
});

describe("T43: Google's documented precedence examples", () => {
  itVerdicts([
    ['user-agent: FooBot\nallow: /p\ndisallow: /\n', 'FooBot', 'http://example.com/page', ALLOWED],
    ['user-agent: FooBot\nallow: /folder\ndisallow: /folder\n', 'FooBot', 'http://example.com/folder/page', ALLOWED],
    ['user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n', 'FooBot', 'http://example.com/page.htm', DISALLOWED],
    ['user-agent: FooBot\nallow: /$\ndisallow: /\n', 'FooBot', 'http://example.com/', ALLOWED],
    ['user-agent: FooBot\nallow: /$\ndisallow: /\n', 'FooBot', 'http://example.com/page.html', DISALLOWED],
  ]);
});

describe('T44: LF, CRLF, CR and mixed line ends parse the same', () => {
  const lines = ['User-Agent: foo', 'Allow: /some/path', 'User-Agent: bar', '', '', 'Disallow: /'];
  const files: Record<string, string> = {
    LF: lines.join('\n') + '\n',
    CRLF: lines.join('\r\n') + '\r\n',
    CR: lines.join('\r') + '\r',
    mixed: 'User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\rDisallow: /',
    'no final EOL': lines.join('\n'),
  };
  describe.each(Object.entries(files))('%s', (_name, robots) => {
    itVerdicts([
      [robots, 'bar', 'http://foo.bar/x', DISALLOWED],
      [robots, 'foo', 'http://foo.bar/x', ALLOWED],
    ]);
  });
  it('CRLF is one line break (R1)', () => {
    expect(parseRobotsTxt(files.CRLF as string).lineCount).toBe(7);
    expect(parseRobotsTxt(files.CR as string).lineCount).toBe(7);
    expect(parseRobotsTxt(files.LF as string).lineCount).toBe(7);
  });
});

describe('T45: a UTF-8 BOM at the start is skipped, also when truncated', () => {
  const rest = 'User-Agent: foo\nDisallow: /AnyValue\n';
  itVerdicts([
    [bytes([0xef, 0xbb, 0xbf], rest), 'foo', 'http://foo.bar/AnyValue', DISALLOWED],
    [bytes([0xef, 0xbb], rest), 'foo', 'http://foo.bar/AnyValue', DISALLOWED],
    [bytes([0xef], rest), 'foo', 'http://foo.bar/AnyValue', DISALLOWED],
  ]);
});

describe('T46: a broken BOM, or a BOM in the middle, turns its line into garbage', () => {
  itVerdicts([
    [bytes([0xef, 0x11, 0xbf], 'User-Agent: foo\nDisallow: /AnyValue\n'), 'foo', 'http://foo.bar/AnyValue', ALLOWED],
    ['User-Agent: foo\n\uFEFFDisallow: /AnyValue\n', 'foo', 'http://foo.bar/AnyValue', ALLOWED],
  ]);
});

describe('T47: Sitemap is recognised anywhere, passed on verbatim, and never affects verdicts', () => {
  const robots = 'Sitemap: http://foo.bar/sitemap.xml\nUser-Agent: foo\nSitemap: https://other.example/ツ.xml\nDisallow: /a\nSitemap: /relative.xml\n';
  itVerdicts([
    [robots, 'foo', 'http://foo.bar/a', DISALLOWED],
    [robots, 'foo', 'http://foo.bar/b', ALLOWED],
  ]);
  it('keeps every sitemap with its line, unescaped', () => {
    expect(parseRobotsTxt(robots).sitemaps).toEqual([
      { url: 'http://foo.bar/sitemap.xml', line: 1 },
      { url: 'https://other.example/ツ.xml', line: 3 },
      { url: '/relative.xml', line: 5 },
    ]);
  });
});

describe('T48: URL -> path+params+query (GetPathParamsQuery)', () => {
  it.each([
    ['', '/'],
    ['http://www.example.com', '/'],
    ['http://www.example.com/', '/'],
    ['http://www.example.com/a', '/a'],
    ['http://www.example.com/a/', '/a/'],
    ['http://www.example.com/a/b?c=http://d.e/', '/a/b?c=http://d.e/'],
    ['http://www.example.com/a/b?c=d&e=f#fragment', '/a/b?c=d&e=f'],
    ['example.com', '/'],
    ['example.com/', '/'],
    ['example.com/a', '/a'],
    ['example.com/a/', '/a/'],
    ['example.com/a/b?c=d&e=f#fragment', '/a/b?c=d&e=f'],
    ['a', '/'],
    ['a/', '/'],
    ['/a', '/a'],
    ['a/b', '/b'],
    ['example.com?a', '/?a'],
    ['example.com/a;b#c', '/a;b'],
    ['//a/b/c', '/b/c'],
  ])('%j -> %j', (url, path) => {
    expect(getPathParamsQuery(url)).toBe(path);
  });
});

describe('T49: how patterns are normalised (MaybeEscapePattern)', () => {
  const esc = (s: string) => {
    const b = new TextEncoder().encode(s);
    return escapePattern(b, 0, b.length);
  };
  it.each([
    ['http://www.example.com', 'http://www.example.com'],
    ['/a/b/c', '/a/b/c'],
    ['á', '%C3%A1'],
    ['%aa', '%AA'],
    // Each hex digit of a valid escape is upper-cased on its own; upper-case escapes stay as written.
    ['/%2f', '/%2F'],
    ['/%Fa', '/%FA'],
    ['/%aF/x', '/%AF/x'],
    ['/%2F%3a%41', '/%2F%3A%41'],
    ['/a%C3%A1á%e2', '/a%C3%A1%C3%A1%E2'],
  ])('%j -> %j', (input, output) => {
    expect(esc(input)).toBe(output);
  });
  itVerdicts([
    ['User-agent: FooBot\ndisallow: /%aa$\n', 'FooBot', 'http://foo.bar/%AA', DISALLOWED],
    ['User-agent: FooBot\ndisallow: /%aa$\n', 'FooBot', 'http://foo.bar/%aa', ALLOWED],
  ]);
});
