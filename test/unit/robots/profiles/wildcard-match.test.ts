import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { wildcardMatches } from '../../../../src/robots/profiles/wildcard-match.js';

/** The answer the libraries' regular expressions give: `^piece.*?piece...($)?`, run by V8. */
function regexMatches(pattern: string, path: string, anchoredEnd: boolean): boolean {
  const escaped = pattern.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*?')}${anchoredEnd ? '$' : ''}`, 's').test(path);
}

describe('wildcardMatches: the answer of a `*` pattern as a regular expression gives it (issue 26)', () => {
  it.each([
    // pattern, path, anchored, expected
    ['/a', '/a/b', false, true],
    ['/a', '/b', false, false],
    ['/a', '/a', true, true],
    ['/a', '/ab', true, false],
    ['/*.pdf', '/x.pdf', true, true],
    ['/*.pdf', '/x.pdf?q', true, false],
    ['/*.pdf', '/x.pdf?q', false, true],
    ['/*aa', '/aaaaa', true, true],
    ['/*a*aa', '/aa', true, false],
    ['/*a*aa', '/aaa', true, true],
    ['/*', '/', true, true],
    ['*', '', true, true],
    ['', '/x', false, true],
    ['', '/x', true, false],
    ['/a**b', '/ab', true, true],
    ['/x*y*', '/xzzy', true, true],
    ['/x*y*z', '/xyzy', true, false],
    ['/ab*ba', '/aba', true, false],
    ['/ab*ba', '/abba', true, true],
  ] as const)('%s on %s (end anchored: %s) -> %s', (pattern, path, anchored, expected) => {
    expect(wildcardMatches(pattern, path, anchored)).toBe(expected);
    expect(regexMatches(pattern, path, anchored)).toBe(expected);
  });

  it('agrees with the regular expression on random patterns and paths over a small alphabet', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '/'), maxLength: 12 });
    const pattern = fc.string({ unit: fc.constantFrom('a', 'b', '/', '*'), maxLength: 8 });
    fc.assert(
      fc.property(pattern, text, fc.boolean(), (p, t, anchored) => wildcardMatches(p, t, anchored) === regexMatches(p, t, anchored)),
      { numRuns: 20_000 },
    );
  });

  it('answers a pattern of 40 stars on a 300-character path that almost matches', () => {
    const pattern = `/${'*a'.repeat(40)}b`;
    const path = `/${'a'.repeat(299)}`;
    expect(wildcardMatches(pattern, path, true)).toBe(false);
    expect(wildcardMatches(pattern, `${path}b`, true)).toBe(true);
  });
});
