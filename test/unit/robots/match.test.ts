/**
 * Wildcard matching (T31-T42, C5, C6, C7): agreement with an independent dynamic-programming
 * matcher on random patterns, and bounded time on pathological patterns (no backtracking).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KMP_MIN_LITERAL, Literal, compilePattern, indexHtmlPattern, matchCompiled } from '../../../src/robots/match.js';
import { matchesPattern, parseRobotsTxt } from '../../../src/robots/index.js';
import { referenceMatch } from './reference.js';

const unit = fc.constantFrom('*', '$', '/', '%', 'a', 'b');
const pathUnit = fc.constantFrom('$', '/', '%', 'a', 'b', '*');

describe('the matcher agrees with a reference dynamic-programming matcher', () => {
  it('on random patterns and paths over {*, $, /, %, a, b}', () => {
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 10 }), fc.string({ unit: pathUnit, maxLength: 14 }), (pattern, rest) => {
        const path = '/' + rest;
        expect(matchesPattern(path, pattern)).toBe(referenceMatch(path, pattern));
      }),
      { numRuns: 5000 },
    );
  });
  it('on long literals (the KMP path) too', () => {
    const lit = fc.string({ unit: fc.constantFrom('a', 'b'), minLength: KMP_MIN_LITERAL, maxLength: 24 });
    fc.assert(
      fc.property(lit, lit, fc.boolean(), fc.string({ unit: fc.constantFrom('a', 'b'), maxLength: 80 }), (x, y, anchored, rest) => {
        const pattern = `/*${x}*${y}${anchored ? '$' : ''}`;
        const path = '/' + rest;
        expect(matchesPattern(path, pattern)).toBe(referenceMatch(path, pattern));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('Literal.indexIn is indexOf', () => {
  it('for short and long literals', () => {
    const ab = fc.constantFrom('a', 'b', 'c');
    fc.assert(
      fc.property(fc.string({ unit: ab, minLength: 1, maxLength: 30 }), fc.string({ unit: ab, maxLength: 120 }), fc.nat(40), (t, s, from) => {
        expect(new Literal(t).indexIn(s, from)).toBe(s.indexOf(t, from));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('pattern kinds (T32, T37, C5)', () => {
  it.each([
    ['/fish', 'prefix'],
    ['/fish$', 'exact'],
    ['/a$b', 'prefix'],
    ['/*.php$', 'wildcard'],
    ['*', 'wildcard'],
    ['', 'prefix'],
    ['$', 'exact'],
  ])('%j is %s', (pattern, kind) => {
    expect(compilePattern(pattern).kind).toBe(kind);
  });
  it.each([
    ['', '/', true],
    ['$', '/', false],
    ['*', '/', true],
    ['/a$b', '/a$b', true],
    ['/a$$', '/a$', true],
    ['/a$$', '/a$$', false],
    ['/*$', '/anything', true],
  ])('%j on %j: %s', (pattern, path, expected) => {
    expect(matchCompiled(compilePattern(pattern), path)).toBe(expected);
  });
});

describe('index.html patterns (C8)', () => {
  it.each([
    ['/dir/index.html', '/dir/$'],
    ['/dir/index.htm', '/dir/$'],
    ['/dir/index.htmfoo', '/dir/$'],
    ['/index.html', '/$'],
    ['/*/index.html', '/*/$'],
    ['/dir/Index.html', null],
    ['index.html', null],
    ['/dir/index.ht', null],
    ['/index.html/x', null],
  ])('%j -> %j', (allow, dir) => {
    expect(indexHtmlPattern(allow)).toBe(dir);
  });
});

describe('pathological patterns finish fast (no backtracking)', () => {
  const path = '/' + 'a'.repeat(16 * 1024);
  const MAX_MS = 200;
  it.each([
    ['/*a*a*a*a*a*a*a*a*a*a*a*a*b', false],
    ['/*a*a*a*a*a*a*a*a*a*a*a*a*b$', false],
    ['/*a*a*a*a*a*a*a*a*a*a*a*a*a$', true],
    ['/' + '*'.repeat(5000), true],
    ['/' + '*'.repeat(5000) + 'b', false],
    ['/' + '*a'.repeat(5000) + '*b', false],
    ['/*' + 'a'.repeat(4000) + 'b' + 'a'.repeat(4000), false],
    ['/*' + 'a'.repeat(8000) + 'b$', false],
    ['/*b' + 'a'.repeat(8000), false],
  ])('%#: a pattern of %s chars', (pattern, expected) => {
    const robots = parseRobotsTxt(`User-agent: *\nDisallow: ${pattern}\n`);
    const url = `http://example.com${path}`;
    const start = performance.now();
    const result = robots.isAllowed(url, 'bot');
    const elapsed = performance.now() - start;
    expect(result).toBe(!expected);
    expect(elapsed).toBeLessThan(MAX_MS);
  });
  it('many wildcard rules against a long path stay fast', () => {
    const rules = Array.from({ length: 200 }, (_, i) => `Disallow: /*a*a*a*a*a*a*${'a'.repeat(i % 40)}b`).join('\n');
    const robots = parseRobotsTxt(`User-agent: *\n${rules}\n`);
    const start = performance.now();
    expect(robots.isAllowed(`http://example.com${path}`, 'bot')).toBe(true);
    expect(performance.now() - start).toBeLessThan(MAX_MS * 5);
  });
});
