/**
 * explain(): which group was chosen (R-40..R-43, T18, T19, T26) and which rule decided (D-2,
 * T23, C8), in data and in a sentence.
 */
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt } from '../../../src/robots/index.js';

const ROBOTS = parseRobotsTxt(
  [
    'User-agent: *', // 1
    'Disallow: /private/', // 2
    'Allow: /private/ok', // 3
    '', // 4
    'User-agent: FooBot', // 5
    'User-agent: BarBot', // 6
    'Disallow: /', // 7
    'Allow: /docs/index.html', // 8
    'User-agent: foobot', // 9
    'Disallow:', // 10
  ].join('\n'),
);

describe('explain: the group', () => {
  it.each([
    ['FooBot', 'named', [5, 9], [1, 2]],
    ['barbot', 'named', [6], [1]],
    ['OtherBot', 'global', [1], [0]],
  ])('%s -> %s group, user-agent lines %j', (ua, kind, lines, indexes) => {
    const e = ROBOTS.explain('https://example.com/x', ua);
    expect(e.group.kind).toBe(kind);
    expect(e.group.userAgents.map((u) => u.line)).toEqual(lines);
    expect(e.group.groupIndexes).toEqual(indexes);
    expect(e.userAgent).toBe(ua);
  });
  it('none: no named group and no * group (R-43, T19)', () => {
    const e = parseRobotsTxt('User-agent: a\nDisallow: /\n').explain('https://example.com/x', 'b');
    expect(e).toMatchObject({ allowed: true, line: null, rule: null, group: { kind: 'none', userAgents: [], groupIndexes: [] } });
    expect(e.reason).toMatch(/no group names "b"/);
  });
});

describe('explain: the rule', () => {
  it('the longest matching rule, with its line (D-2)', () => {
    const e = ROBOTS.explain('https://example.com/private/x?y#frag', 'OtherBot');
    expect(e).toMatchObject({ allowed: false, line: 2, path: '/private/x?y' });
    expect(e.rule).toEqual({ kind: 'disallow', pattern: '/private/', value: '/private/', line: 2, viaIndexHtml: false });
    expect(e.reason).toBe('Disallowed by "Disallow: /private/" (line 2) of the "*" group (user-agent line 1), the longest matching rule.');
  });
  it('an allow that wins', () => {
    const e = ROBOTS.explain('https://example.com/private/ok', 'OtherBot');
    expect(e.rule?.line).toBe(3);
    expect(e.reason).toMatch(/^Allowed by "Allow: \/private\/ok" \(line 3\)/);
  });
  it('no rule matched', () => {
    const e = ROBOTS.explain('https://example.com/public', 'OtherBot');
    expect(e).toMatchObject({ allowed: true, line: null, rule: null });
    expect(e.reason).toBe('Allowed: no rule of the "*" group (user-agent line 1) matches /public.');
  });
  it('the index.html rule (C8) names the synthesised pattern', () => {
    const e = ROBOTS.explain('https://example.com/docs/', 'FooBot');
    expect(e.allowed).toBe(true);
    expect(e.rule).toEqual({ kind: 'allow', pattern: '/docs/$', value: '/docs/index.html', line: 8, viaIndexHtml: true });
    expect(e.reason).toMatch(/index\.html/);
  });
  it('an empty disallow matches but disallows nothing (T23)', () => {
    const e = parseRobotsTxt('User-agent: a\nDisallow:\n').explain('https://example.com/x', 'a');
    expect(e).toMatchObject({ allowed: true, line: 2 });
    expect(e.rule).toMatchObject({ kind: 'disallow', pattern: '' });
    expect(e.reason).toMatch(/empty rule/);
  });
  it('several caller names (C29)', () => {
    const e = ROBOTS.explain('https://example.com/x', ['FooBot', 'BarBot']);
    expect(e.userAgent).toBe('FooBot, BarBot');
    expect(e.group.groupIndexes).toEqual([1, 2]);
    expect(e.group.userAgents.map((u) => u.line)).toEqual([5, 6, 9]);
    expect(e.reason).toMatch(/group for foobot \+ barbot/);
  });
});
