/**
 * Wildcard matching (T31-T42, C5, C6, C7): agreement with an independent dynamic-programming
 * matcher on random patterns, and bounded time on pathological patterns (no backtracking).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  INDEXOF_MAX_WORK,
  KMP_MIN_LITERAL,
  Literal,
  PrefixIndex,
  RULE_INDEX_MIN_RULES,
  compilePattern,
  compileRules,
  decide,
  indexHtmlPattern,
  matchCompiled,
  ruleMatcher,
  sortForDecision,
} from '../../../src/robots/match.js';
import type { Rule } from '../../../src/robots/index.js';
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
  it('on long literals, searched with indexOf on short paths', () => {
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
  it('on long literals and long paths (the KMP path)', () => {
    const lit = fc.string({ unit: fc.constantFrom('a', 'b'), minLength: KMP_MIN_LITERAL, maxLength: 24 });
    // Long enough that path length × literal length passes INDEXOF_MAX_WORK.
    const filler = 'ab'.repeat(Math.ceil(INDEXOF_MAX_WORK / KMP_MIN_LITERAL / 2));
    fc.assert(
      fc.property(lit, lit, fc.boolean(), fc.string({ unit: fc.constantFrom('a', 'b'), maxLength: 60 }), (x, y, anchored, rest) => {
        const pattern = `/*${x}*${y}${anchored ? '$' : ''}`;
        const path = '/' + filler + rest;
        expect(matchesPattern(path, pattern)).toBe(referenceMatch(path, pattern));
      }),
      { numRuns: 150 },
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
  it('for long literals in long strings (the KMP search)', () => {
    const ab = fc.constantFrom('a', 'b');
    const long = INDEXOF_MAX_WORK / KMP_MIN_LITERAL + 1;
    const haystack = fc.string({ unit: ab, minLength: long, maxLength: long + 200 });
    fc.assert(
      fc.property(fc.string({ unit: ab, minLength: KMP_MIN_LITERAL, maxLength: 30 }), haystack, fc.nat(long), fc.boolean(), fc.nat(40), (t, hay, at, plant, from) => {
        // Half the time the literal is planted, so that found positions are checked too.
        const s = plant ? hay.slice(0, at) + t + hay.slice(at) : hay;
        expect(new Literal(t).indexIn(s, from)).toBe(s.indexOf(t, from));
      }),
      { numRuns: 1000 },
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

describe('D-2, C3, C4, C8, T23: the prefix index decides as the ordered scan does', () => {
  // Few characters, so that heads share prefixes, patterns tie in length and index.html occurs.
  const patternUnit = fc.constantFrom('/', 'a', 'b', '*', '$', 'i', 'n', 'd', 'e', 'x', '.', 'h', 't', 'm', 'l');
  const rulePattern = fc.oneof(
    fc.string({ unit: patternUnit, maxLength: 9 }).map((p) => '/' + p),
    fc.string({ unit: patternUnit, maxLength: 4 }),
    fc.constantFrom('/index.html', '/a/index.htm', '/*/index.html', '', '*', '/', '/$', '/*$', '/a*', '/a$'),
  );
  const rules = fc
    .array(fc.tuple(fc.constantFrom<Rule['kind']>('allow', 'disallow'), rulePattern), { minLength: 1, maxLength: 40 })
    .map((list) => list.map(([kind, pattern], i): Rule => ({ kind, pattern, value: pattern, line: i + 1 })));
  const path = fc.string({ unit: fc.constantFrom('/', 'a', 'b', 'i', 'n', 'd', 'e', 'x', '.', 'h', 't', 'm', 'l', '$', '*'), maxLength: 14 }).map((p) => '/' + p);

  it('on random rule sets and paths: the same rule (or none) decides', () => {
    fc.assert(
      fc.property(rules, fc.array(path, { minLength: 1, maxLength: 8 }), (list, paths) => {
        const compiled = compileRules(list);
        const index = new PrefixIndex(compiled);
        const ordered = sortForDecision([...compiled]);
        for (const p of paths) expect(index.decide(p)).toBe(decide(ordered, p));
      }),
      { numRuns: 3000 },
    );
  });
  it(`is used from ${RULE_INDEX_MIN_RULES} compiled rules on`, () => {
    const many = Array.from({ length: RULE_INDEX_MIN_RULES }, (_, i): Rule => ({ kind: 'disallow', pattern: `/p${i}`, value: `/p${i}`, line: i + 1 }));
    expect(ruleMatcher(many)).toBeInstanceOf(PrefixIndex);
    expect(ruleMatcher(many.slice(1))).not.toBeInstanceOf(PrefixIndex);
    expect(ruleMatcher(many).decide('/p12/x')?.rule.line).toBe(13);
    expect(ruleMatcher(many).decide('/q')).toBeNull();
  });
  it.each([
    ['the longest match wins', ['disallow /a', 'allow /ab'], '/abc', 2],
    ['an allow wins a tie', ['disallow /a*', 'allow /ab'], '/abc', 2],
    ['the first of equal disallows', ['disallow /ab', 'disallow /a*'], '/abc', 1],
    ['a wildcard with a short head beats a longer literal', ['disallow /abc', 'allow /*bcd'], '/abcd', 2],
    ['the index.html directory pattern (C8)', ['disallow /d/', 'allow /d/index.html'], '/d/', 2],
    ['an empty pattern matches with priority 0 (T23)', ['disallow '], '/x', 1],
    ['none matches', ['disallow /a'], '/b', null],
  ])('%s', (_name, written, p, line) => {
    const list = written.map((w, i): Rule => {
      const [kind, pattern = ''] = w.split(' ') as [Rule['kind'], string?];
      return { kind, pattern, value: pattern, line: i + 1 };
    });
    expect(new PrefixIndex(compileRules(list)).decide(p)?.rule.line ?? null).toBe(line);
    expect(decide(sortForDecision(compileRules(list)), p)?.rule.line ?? null).toBe(line);
  });
});
