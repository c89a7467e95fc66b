/**
 * Property tests: random robots.txt files agree with a line-at-a-time reference evaluator
 * (reference.ts), and no input, however broken, makes parse, check, explain or lint throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RobotsTxtBuilder, lintRobotsTxt, parseRobotsTxt, scanLines, scanRobotsTxt } from '../../../src/robots/index.js';
import type { RobotsTxt } from '../../../src/robots/index.js';
import { RULE_INDEX_MIN_RULES, compileRules, decide, decideOnce, sortForDecision } from '../../../src/robots/match.js';
import type { CompiledRule } from '../../../src/robots/match.js';
import type { Rule } from '../../../src/robots/index.js';
import { agentToken, agentTokenOfBytes } from '../../../src/robots/user-agent.js';
import { referenceVerdict } from './reference.js';

const patternUnit = fc.constantFrom('/', 'a', 'b', '*', '$', '%', 'e', '1', '.', '?', 'i', 'n', 'd', 'x', 'h', 't', 'm', 'l');
const pattern = fc.oneof(
  fc.string({ unit: patternUnit, maxLength: 8 }).map((s) => '/' + s),
  fc.string({ unit: patternUnit, maxLength: 6 }),
  fc.constantFrom('/index.html', '/a/index.htm', '/*/index.html', '/%aa', '/%2f', '', '*', '/', '/$', '/*$'),
);
const agentValue = fc.constantFrom('foo', 'FOO', 'Foo Bar', 'foo/1.0', 'bar', '*', '* x', '*foo', '', 'foo_bar', 'foo-bar', 'fóo');
const line = fc.oneof(
  { weight: 3, arbitrary: agentValue.map((v) => `User-agent: ${v}`) },
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom('Allow', 'allow', 'Disallow', 'DISALLOW'), pattern).map(([k, p]) => `${k}: ${p}`) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('', '# comment', 'Sitemap: http://x/s.xml', 'Crawl-delay: 1', 'unknown: x', 'garbage line here', 'Disallow: /c # comment', 'Allow: /a#b'),
  },
);
/** Indentation of the lengths and mixes that the scanner skips in steps (eight, then four at a time, then one by one). */
const indent = fc.constantFrom(
  '', '', '', ' ', '\t', '   ', '    ', '\t\t\t\t', '     ', '  \t  \t ', '        ', '\t\t\t\t\t\t\t\t\t',
  ' '.repeat(12), ' '.repeat(16) + '\t', '\t'.repeat(8) + '    ', '       \t', '    \t\t\t\t',
);
const indentedLine = fc.tuple(indent, line).map(([i, l]) => i + l);
const body = fc.tuple(fc.array(indentedLine, { maxLength: 14 }), fc.constantFrom('\n', '\r\n', '\r')).map(([lines, eol]) => lines.join(eol));
const caller = fc.constantFrom('foo', 'FOO', 'bar', 'baz', '', 'foo bar', 'foo_bar', 'foo-bar', 'x');
const path = fc.string({ unit: fc.constantFrom('/', 'a', 'b', 'e', '1', '.', '?', '%', 'A', 'i', 'n', 'd', 'x', 'h', 't', 'm', 'l', '$'), maxLength: 12 }).map((s) => '/' + s);

describe('random files agree with the reference evaluator', () => {
  it('verdict and deciding line', () => {
    fc.assert(
      fc.property(body, caller, path, (robots, ua, p) => {
        const got = parseRobotsTxt(robots).check(`http://example.com${p}`, ua);
        expect(got).toEqual(referenceVerdict(robots, ua, p));
      }),
      { numRuns: 4000 },
    );
  });
  it('explain agrees with check', () => {
    fc.assert(
      fc.property(body, caller, path, (robots, ua, p) => {
        const parsed = parseRobotsTxt(robots);
        const url = `http://example.com${p}`;
        const e = parsed.explain(url, ua);
        expect({ allowed: e.allowed, line: e.line }).toEqual(parsed.check(url, ua));
        expect(e.rule?.line ?? null).toBe(e.line);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('large random files (matched through the prefix index) agree with the reference evaluator', () => {
  // Enough rules per group that the matcher indexes them (RULE_INDEX_MIN_RULES).
  const manyRules = fc.array(
    fc.tuple(fc.constantFrom('Allow', 'Disallow'), pattern).map(([k, p]) => `${k}: ${p}`),
    { minLength: RULE_INDEX_MIN_RULES, maxLength: RULE_INDEX_MIN_RULES + 40 },
  );
  const bigBody = fc
    .tuple(agentValue, manyRules, agentValue, manyRules, fc.constantFrom('\n', '\r\n'))
    .map(([a, rulesA, b, rulesB, eol]) => [`User-agent: ${a}`, ...rulesA, `User-agent: ${b}`, ...rulesB].join(eol));
  it('verdict and deciding line', () => {
    fc.assert(
      fc.property(bigBody, caller, fc.array(path, { minLength: 1, maxLength: 10 }), (robots, ua, paths) => {
        const parsed = parseRobotsTxt(robots);
        for (const p of paths) expect(parsed.check(`http://example.com${p}`, ua)).toEqual(referenceVerdict(robots, ua, p));
      }),
      { numRuns: 300 },
    );
  });
});

/** Byte soup with the characters that matter to the scanner. */
const interesting = fc.constantFrom(
  [0x00],
  [0x0a],
  [0x0d],
  [0x0d, 0x0a],
  [0xef, 0xbb, 0xbf],
  [0xef, 0xbb],
  [0xff, 0xfe],
  [0xc3, 0xa9],
  [0xe3, 0x83],
  [0x80],
  [0x23],
  [0x3a],
  [0x20],
  [0x09],
  [0x0b],
  [0x24],
  [0x2a],
  [0x25],
  [0x3c],
  [...new TextEncoder().encode('User-agent: ')],
  [...new TextEncoder().encode('Disallow: /')],
  [...new TextEncoder().encode('Allow: /index.html')],
  [...new TextEncoder().encode('Sitemap: ')],
  [...new TextEncoder().encode('Crawl-delay: 5')],
);
const soup = fc
  .array(fc.oneof(interesting, fc.uint8Array({ maxLength: 6 }).map((a) => [...a])), { maxLength: 40 })
  .map((chunks) => Uint8Array.from(chunks.flat()));

describe('the scanner splits any body into lines exactly', () => {
  it('lines hold no EOL bytes, EOLs between them are LF, CR or CRLF, and the last line ends the body', () => {
    fc.assert(
      fc.property(soup, (body) => {
        const { lines, summary } = scanLines(body);
        expect(lines).toHaveLength(summary.lineCount);
        expect(lines[0]?.offset).toBe(summary.bomBytes);
        lines.forEach((l, i) => {
          expect(l.byteLength).toBeGreaterThanOrEqual(0);
          const own = body.subarray(l.offset, l.offset + l.byteLength);
          expect(own.includes(0x0a) || own.includes(0x0d)).toBe(false);
          const next = lines[i + 1];
          if (next === undefined) {
            expect(l.offset + l.byteLength).toBe(body.length);
          } else {
            const eol = [...body.subarray(l.offset + l.byteLength, next.offset)];
            expect([[0x0a], [0x0d], [0x0d, 0x0a]]).toContainEqual(eol);
          }
        });
      }),
      { numRuns: 1500 },
    );
  });
});

describe('a single check without compiling (decideOnce) reports what the compiled rules report', () => {
  const rule = fc.tuple(fc.constantFrom<'allow' | 'disallow'>('allow', 'disallow'), pattern);
  const summary = (r: CompiledRule | null) => r && { line: r.rule.line, allow: r.allow, priority: r.priority, viaIndexHtml: r.viaIndexHtml, pattern: r.pattern.source };
  it('on random rule lists, index.html allows and ties included', () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 12 }), path, (specs, p) => {
        const rules: Rule[] = specs.map(([kind, pat], i) => ({ kind, pattern: pat, value: pat, line: i + 1 }));
        expect(summary(decideOnce(rules, p))).toEqual(summary(decide(sortForDecision(compileRules(rules)), p)));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('the fast parse (lines that cannot hold a directive skipped, records read later) builds what the scanner events build', () => {
  const parts = (r: RobotsTxt) => ({ groups: r.groups, sitemaps: r.sitemaps, records: r.records, outside: r.rulesOutsideGroups, lines: r.lineCount, bom: r.bomBytes });
  const viaEvents = (b: string | Uint8Array) => {
    const builder = new RobotsTxtBuilder();
    return builder.build(scanRobotsTxt(b, builder));
  };
  it('on byte soup', () => {
    fc.assert(
      fc.property(soup, (bytes) => {
        expect(parts(parseRobotsTxt(bytes))).toEqual(parts(viaEvents(bytes)));
      }),
      { numRuns: 1500 },
    );
  });
  it('on indented robots.txt files', () => {
    fc.assert(
      fc.property(body, (text) => {
        expect(parts(parseRobotsTxt(text))).toEqual(parts(viaEvents(text)));
      }),
      { numRuns: 500 },
    );
  });
});

describe('the user-agent token read from the bytes (agentTokenOfBytes) is the token read from the value (agentToken)', () => {
  // The parser reads a value's token from its bytes; the value is those bytes decoded as UTF-8.
  const agentByte = fc.constantFrom(0x2a, 0x20, 0x09, 0x0b, 0x2d, 0x5f, 0x41, 0x5a, 0x61, 0x7a, 0x67, 0x47, 0x2f, 0x31, 0xc3, 0xa9, 0xff, 0x00);
  it('on random values, multi-byte characters and stray bytes included', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), fc.array(agentByte, { maxLength: 12 }), (random, picked) => {
        for (const bytes of [random, Uint8Array.from(picked)]) {
          const value = Buffer.from(bytes).toString('utf8');
          expect(agentTokenOfBytes(bytes, 0, bytes.length, value)).toBe(agentToken(value));
        }
      }),
      { numRuns: 3000 },
    );
  });
});

describe('nothing throws', () => {
  it('parse, check, explain and lint accept arbitrary bytes', () => {
    fc.assert(
      fc.property(soup, fc.string({ maxLength: 10 }), fc.string({ maxLength: 20 }), (bytes, ua, url) => {
        const robots = parseRobotsTxt(bytes);
        const verdict = robots.check(url, ua);
        expect(robots.isAllowed(url, ua)).toBe(verdict.allowed);
        expect(robots.explain(url, ua).allowed).toBe(verdict.allowed);
        for (const token of robots.agents()) robots.rulesFor(token);
        const diagnostics = lintRobotsTxt(bytes, { includeTrivia: true, maxBytes: 64 });
        expect(diagnostics.map((d) => d.line)).toEqual([...diagnostics.map((d) => d.line)].sort((a, b) => a - b));
      }),
      { numRuns: 1500 },
    );
  });
  it('parse and check accept arbitrary strings (lone surrogates included)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 10 }), (text, ua) => {
        const robots = parseRobotsTxt(text);
        expect(typeof robots.isAllowed(`http://x/${text}`, ua)).toBe('boolean');
        lintRobotsTxt(text);
      }),
      { numRuns: 1000 },
    );
  });
});
