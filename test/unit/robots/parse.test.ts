/**
 * The parsed structure: groups as written, rules with lines and normalised
 * patterns (T28, T49, C17), user-agent tokens (T16, C9-C12), sitemaps (T47, R-58), other
 * records (R-28, R6), merged rules per agent (R-34, C14, C15) and the checking API.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MAX_CACHED_AGENTS, RobotsTxtBuilder, parseRobotsTxt, scanRobotsTxt } from '../../../src/robots/index.js';
import type { RobotsTxt } from '../../../src/robots/index.js';
import { loadRobotsSample } from '../../helpers/corpus.js';
import { bytes } from './verdict.js';

const FILE = [
  'Sitemap: https://example.com/a.xml', // 1
  'Disallow: /orphan', // 2
  'User-agent: Googlebot/2.1', // 3
  'Crawl-delay: 10', // 4
  'User-agent: *', // 5
  'Disallow: /private/', // 6
  'Allow: /private/ok é', // 7
  'Host: example.com', // 8
  'User-agent: Foo Bar', // 9
  'user-agent: *foo', // 10
  'Disallow: /%aa%zz', // 11
  'Unicorns: yes', // 12
  'User-agent: googlebot', // 13
  'Disallow: /g', // 14
].join('\n');

describe('groups as written (R-30, R-31, R-32, C26)', () => {
  const robots = parseRobotsTxt(FILE);
  it('forms three groups', () => {
    expect(robots.groups.map((g) => g.userAgents.map((u) => u.line))).toEqual([[3, 5], [9, 10], [13]]);
    expect(robots.groups.map((g) => g.rules.map((r) => r.line))).toEqual([[6, 7], [11], [14]]);
  });
  it('reads user-agent tokens as Google does', () => {
    expect(robots.groups.flatMap((g) => g.userAgents.map((u) => [u.value, u.token]))).toEqual([
      ['Googlebot/2.1', 'googlebot'],
      ['*', '*'],
      ['Foo Bar', 'foo'],
      ['*foo', ''],
      ['googlebot', 'googlebot'],
    ]);
  });
  it('normalises patterns and keeps the value as written', () => {
    expect(robots.groups[0]?.rules).toEqual([
      { kind: 'disallow', pattern: '/private/', value: '/private/', line: 6 },
      { kind: 'allow', pattern: '/private/ok %C3%A9', value: '/private/ok é', line: 7 },
    ]);
    expect(robots.groups[1]?.rules[0]).toEqual({ kind: 'disallow', pattern: '/%AA%zz', value: '/%aa%zz', line: 11 });
  });
  it('keeps rules before any user-agent apart (T6)', () => {
    expect(robots.rulesOutsideGroups).toEqual([{ kind: 'disallow', pattern: '/orphan', value: '/orphan', line: 2 }]);
  });
  it('keeps other records with their line and group', () => {
    expect(robots.records).toEqual([
      { key: 'crawl-delay', value: '10', line: 4, knownUnsupported: true, groupIndex: 0 },
      { key: 'host', value: 'example.com', line: 8, knownUnsupported: true, groupIndex: 0 },
      { key: 'unicorns', value: 'yes', line: 12, knownUnsupported: false, groupIndex: 1 },
    ]);
  });
  it('keeps sitemaps and the line count', () => {
    expect(robots.sitemaps).toEqual([{ url: 'https://example.com/a.xml', line: 1 }]);
    expect(robots.lineCount).toBe(14);
  });
  it('records before the first user-agent have no group', () => {
    expect(parseRobotsTxt('Crawl-delay: 1\nUser-agent: a\n').records[0]?.groupIndex).toBeNull();
  });
});

describe('merged rules per agent (R-34, T9, C14, C15)', () => {
  const robots = parseRobotsTxt(FILE);
  it('lists the agents with groups, in order of appearance', () => {
    expect(robots.agents()).toEqual(['googlebot', '*', 'foo', '']);
  });
  it('merges every group of an agent, in file order', () => {
    expect(robots.rulesFor('googlebot').map((r) => r.line)).toEqual([6, 7, 14]);
    expect(robots.rulesFor('GoogleBot').map((r) => r.line)).toEqual([6, 7, 14]);
    expect(robots.rulesFor('*').map((r) => r.line)).toEqual([6, 7]);
    expect(robots.rulesFor('foo').map((r) => r.line)).toEqual([11]);
    expect(robots.rulesFor('').map((r) => r.line)).toEqual([11]);
    expect(robots.rulesFor('nobody')).toEqual([]);
  });
  it('adds the rules of a group once even when it names the agent twice', () => {
    const r = parseRobotsTxt('User-agent: a\nUser-agent: A\nDisallow: /x\n');
    expect(r.rulesFor('a')).toHaveLength(1);
    expect(r.select('a')?.userAgents.map((u) => u.line)).toEqual([1, 2]);
  });
  it('selects named, global or no group', () => {
    expect(robots.select('Googlebot')?.kind).toBe('named');
    expect(robots.select('Googlebot')?.groupIndexes).toEqual([0, 2]);
    expect(robots.select('Bingbot')?.kind).toBe('global');
    expect(parseRobotsTxt('User-agent: a\nDisallow: /\n').select('b')).toBeNull();
    expect(robots.hasNamedGroup('GOOGLEBOT')).toBe(true);
    expect(robots.hasNamedGroup('bingbot')).toBe(false);
  });
});

describe('the checking API', () => {
  const robots = parseRobotsTxt('User-agent: *\nDisallow: /private/\nAllow: /private/ok\n\nUser-agent: FooBot\nDisallow: /\n');
  it('check gives the verdict and the deciding line', () => {
    expect(robots.check('https://example.com/private/x', 'bar')).toEqual({ allowed: false, line: 2 });
    expect(robots.check('https://example.com/private/ok', 'bar')).toEqual({ allowed: true, line: 3 });
    expect(robots.check('https://example.com/public', 'bar')).toEqual({ allowed: true, line: null });
    expect(robots.check('https://example.com/public', 'foobot')).toEqual({ allowed: false, line: 6 });
  });
  it('checkPath takes a path', () => {
    expect(robots.checkPath('/private/x', 'bar')).toEqual({ allowed: false, line: 2 });
  });
  it('checkMany agrees with isAllowed', () => {
    const urls = ['http://x/private/a', 'http://x/private/ok', 'http://x/', 'x'];
    expect(robots.checkMany(urls, 'bar')).toEqual(urls.map((u) => robots.isAllowed(u, 'bar')));
    expect(robots.checkMany(urls, 'foobot')).toEqual([false, false, false, false]);
    expect(parseRobotsTxt('').checkMany(urls, 'bar')).toEqual([true, true, true, true]);
  });
  it('answers the same after the agent cache is flushed', () => {
    for (let i = 0; i <= MAX_CACHED_AGENTS + 5; i++) robots.isAllowed('http://x/', `bot${i}`);
    expect(robots.check('https://example.com/private/x', 'bar')).toEqual({ allowed: false, line: 2 });
    expect(robots.isAllowed('http://x/a', 'FooBot')).toBe(false);
  });
  it('parses bytes and strings alike', () => {
    const text = 'User-agent: *\nDisallow: /ü\n';
    expect(parseRobotsTxt(bytes(text)).groups).toEqual(parseRobotsTxt(text).groups);
  });
});

describe('the fast path builds what the scanner events build', () => {
  /** What a parse holds, as data. */
  const parts = (r: RobotsTxt) => ({
    groups: r.groups,
    sitemaps: r.sitemaps,
    records: r.records,
    rulesOutsideGroups: r.rulesOutsideGroups,
    lineCount: r.lineCount,
    byteLength: r.byteLength,
    bomBytes: r.bomBytes,
    agents: r.agents(),
  });
  const viaEvents = (body: string | Uint8Array) => {
    const builder = new RobotsTxtBuilder();
    return builder.build(scanRobotsTxt(body, builder));
  };
  it('on every file of the corpus', () => {
    const differ = loadRobotsSample()
      .filter((f) => !isDeepStrictEqual(parts(parseRobotsTxt(f.body)), parts(viaEvents(f.body))))
      .map((f) => f.host);
    expect(differ).toEqual([]);
  });
  it.each([
    ['typos, missing colons, records and a BOM', bytes([0xef, 0xbb, 0xbf], 'useragent foo\nDisalow /a\nCrawl-Delay: 5\nUnicorns: x\nsite-map: s\n')],
    ['%-escapes and non-ASCII values (T28, T49)', bytes('User-agent: *\nDisallow: /%aa%zz\nAllow: /caf', [0xe9], '\nAllow: /ツ\n')],
    ['a line longer than Google keeps (C28)', `User-agent: *\nDisallow: /${'a'.repeat(20_000)}\nAllow: /b\n`],
    ['NULs and comments (C20, T33)', bytes('User-agent: *\nDisallow: /a', [0], 'b\nAllow: /c#d\n')],
  ])('%s', (_name, body) => {
    expect(parts(parseRobotsTxt(body))).toEqual(parts(viaEvents(body)));
  });
});
