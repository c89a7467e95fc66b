/**
 * starRuleGaps: the paths `*` disallows that a named group leaves open, because a crawler obeys
 * only the group that names it (R-40, T26). Case tables by rule, then the gaps against a plain
 * reference that asks the engine's check for every probe, on random files and on the corpus.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GLOBAL_AGENT, parseRobotsTxt } from '../../../src/robots/index.js';
import type { RobotsTxt } from '../../../src/robots/index.js';
import { probePath, starRuleGaps } from '../../../src/robots/star-rule-gaps.js';
import { loadRobotsSample } from '../../helpers/corpus.js';

/** Each gap as `starLine path -> tokens @ groupLine`. */
const gapsOf = (body: string) => starRuleGaps(parseRobotsTxt(body)).gaps.map((g) => `${g.starLine} ${g.path} -> ${g.tokens.join('+')} @${g.groupLine}`);
const file = (...lines: string[]) => lines.join('\n') + '\n';
const STAR_PRIVATE = ['User-agent: *', 'Disallow: /private/'];

describe('probePath: the literal form of a `*` Disallow pattern (… stands for text no rule names)', () => {
  it.each<[string, string | null]>([
    ['/private/', '/private/\u0100'],
    ['/', '/\u0100'],
    ['/private/$', '/private/'],
    ['/*.pdf$', '/\u0100.pdf'],
    ['/*.pdf', '/\u0100.pdf\u0100'],
    ['/fish*', '/fish\u0100\u0100'],
    ['*.gif', '/\u0100.gif\u0100'],
    ['*', '/\u0100\u0100'],
    ['/a$b', '/a$b\u0100'],
    ['/a$$', '/a$'],
    ['private/', null],
    ['$', null],
  ])('%j -> %j', (pattern, probe) => {
    expect(probePath(pattern)).toBe(probe);
  });
});

describe('T26, R-40: a named group replaces `*`, nothing is inherited', () => {
  it('the fixture of T26: FooBot gets /x/', () => {
    expect(gapsOf('User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n')).toEqual(['2 /x/ -> foobot @3']);
  });
  it('gives the fields as data', () => {
    expect(starRuleGaps(parseRobotsTxt('User-agent: *\nDisallow: /caf\u00e9\nUser-agent: GPTBot\nAllow: /\n'))).toEqual({
      gaps: [{ tokens: ['gptbot'], path: '/caf\u00e9', pattern: '/caf%C3%A9', starLine: 2, groupLine: 3 }],
      complete: true,
      // GPTBot's one rule, weighed by its matcher; `*` settled by a lookup (its own Disallow, no Allow).
      work: 1,
    });
  });
});

describe('what "repeated" means: the named group\'s own verdict on the path, not the same text', () => {
  it.each<[string, string[], string[]]>([
    ['the same rule', ['Disallow: /private/'], []],
    ['R-52: a shorter prefix', ['Disallow: /priv'], []],
    ['R-54: the whole site', ['Disallow: /'], []],
    ['R-54: /* is the whole site', ['Disallow: /*'], []],
    ['C6: * is the whole site', ['Disallow: *'], []],
    ['T23: the whole site, and an empty Allow that never wins', ['Disallow: /', 'Allow:'], []],
    ['R-54: a wildcard that covers it', ['Disallow: /*/'], []],
    ['a path below it only', ['Disallow: /private/secret'], ['2 /private/ -> gptbot @4']],
    ['T32: the directory itself only', ['Disallow: /private/$'], ['2 /private/ -> gptbot @4']],
    ['T20: another case', ['Disallow: /PRIVATE/'], ['2 /private/ -> gptbot @4']],
    ['T22: repeated, but an Allow of the same length wins', ['Disallow: /private/', 'Allow: /private/'], ['2 /private/ -> gptbot @4']],
    ['T21: the whole site, but a longer Allow reopens it', ['Disallow: /', 'Allow: /private/'], ['2 /private/ -> gptbot @4']],
    ['T21: the whole site with an Allow for one page below: a choice, not a gap', ['Disallow: /', 'Allow: /private/press'], []],
    ['C8: an index.html Allow opens only the directory itself', ['Disallow: /', 'Allow: /private/index.html'], []],
  ])('%s', (_case, rules, expected) => {
    expect(gapsOf(file(...STAR_PRIVATE, '', 'User-agent: GPTBot', ...rules))).toEqual(expected);
  });
});

describe('C13: an empty named group, or one that allows everything, gets every path', () => {
  it.each<[string, string[]]>([
    ['no rules at the end of the file', []],
    ['only a crawl-delay (R6)', ['Crawl-delay: 5']],
    ['Allow: /', ['Allow: /']],
    ['T23: an empty Disallow', ['Disallow:']],
  ])('%s', (_case, lines) => {
    expect(gapsOf(file(...STAR_PRIVATE, 'Disallow: /tmp/', '', 'User-agent: GPTBot', ...lines))).toEqual(['2 /private/ -> gptbot @5', '3 /tmp/ -> gptbot @5']);
  });
});

describe('which `*` rules count', () => {
  it.each<[string, string[], string[]]>([
    ['T23: an empty Disallow disallows nothing', ['Disallow:'], []],
    ['C6: a pattern not starting with / or * never matches', ['Disallow: private/'], []],
    ['C7: Disallow: $ never matches', ['Disallow: $'], []],
    ['T22: an Allow of the same pattern wins', ['Disallow: /shop', 'Allow: /shop'], []],
    ['D-2: a longer Allow reopens the whole path', ['Disallow: /shop', 'Allow: /shop*'], []],
    ['D-2: a shorter Allow does not', ['Disallow: /shop/cart', 'Allow: /shop'], ['3 /shop/cart -> gptbot @6']],
    ['T21: an Allow below the path leaves the rest disallowed', ['Disallow: /shop', 'Allow: /shop/public'], ['3 /shop -> gptbot @6']],
    ['a pattern repeated in `*` is reported once, on its first line', ['Disallow: /a', 'Disallow: /a'], ['3 /a -> gptbot @6']],
    ['C15: the rules of every `*` group count', ['Disallow: /a', 'User-agent: *', 'Disallow: /b'], ['3 /a -> gptbot @7', '5 /b -> gptbot @7']],
  ])('%s', (_case, starRules, expected) => {
    expect(gapsOf(file('# x', 'User-agent: *', ...starRules, '', 'User-agent: GPTBot', 'Disallow: /other'))).toEqual(expected);
  });
});

describe('R-54, R-55: wildcard `*` patterns are judged by their literal form', () => {
  const STAR_PDF = ['User-agent: *', 'Disallow: /*.pdf$', '', 'User-agent: GPTBot'];
  it.each<[string, string[], string[]]>([
    ['the same pattern', ['Disallow: /*.pdf$'], []],
    ['without $: every path with .pdf in it', ['Disallow: /*.pdf'], []],
    ['a deeper wildcard pattern', ['Disallow: /*/*.pdf$'], ['2 /*.pdf$ -> gptbot @4']],
    ['one file only', ['Disallow: /.pdf$'], ['2 /*.pdf$ -> gptbot @4']],
    ['the whole site', ['Disallow: /'], []],
    ['the whole site but PDFs', ['Disallow: /', 'Allow: /*.pdf$'], ['2 /*.pdf$ -> gptbot @4']],
  ])('%s', (_case, rules, expected) => {
    expect(gapsOf(file(...STAR_PDF, ...rules))).toEqual(expected);
  });
  it('C6: a leading * stands for the first /', () => {
    expect(gapsOf(file('User-agent: *', 'Disallow: *.gif', 'User-agent: a', 'Disallow: /', 'User-agent: b', 'Disallow: /img/'))).toEqual(['2 *.gif -> b @5']);
  });
  it('C5: a $ that is not last is a literal', () => {
    expect(gapsOf(file('User-agent: *', 'Disallow: /a$b', 'User-agent: a', 'Disallow: /a$b', 'User-agent: b', 'Disallow: /a$'))).toEqual(['2 /a$b -> b @5']);
  });
  it('C8: a directory rule against an index.html Allow of the same length: the Allow wins', () => {
    expect(gapsOf(file('User-agent: *', 'Disallow: /dir/$', 'User-agent: a', 'Disallow: /dir/$', 'Allow: /dir/index.html'))).toEqual(['2 /dir/$ -> a @3']);
  });
});

describe('which named groups count', () => {
  it('R-31: the crawlers of one group form one gap', () => {
    expect(gapsOf(file(...STAR_PRIVATE, 'User-agent: GPTBot', 'User-agent: CCBot', 'Disallow: /tmp/'))).toEqual(['2 /private/ -> gptbot+ccbot @3']);
  });
  it('T9, R-34: groups naming the same crawler are merged, and its first line is given', () => {
    const body = file('User-agent: *', 'Disallow: /a', 'Disallow: /b', 'Disallow: /c', 'User-agent: GPTBot', 'Disallow: /a', 'User-agent: x', 'Disallow: /', 'User-agent: GPTBot', 'Disallow: /b');
    expect(gapsOf(body)).toEqual(['4 /c -> gptbot @5']);
  });
  it('T15: names compare case-insensitively', () => {
    expect(gapsOf(file(...STAR_PRIVATE, 'User-agent: GPTBot', 'Disallow: /x', 'User-agent: gptbot', 'Disallow: /private/'))).toEqual([]);
  });
  it('a crawler that is also in another group is reported apart from its group mates', () => {
    const body = file(...STAR_PRIVATE, 'User-agent: a', 'User-agent: b', 'Disallow: /x', 'User-agent: b', 'Disallow: /private/');
    expect(gapsOf(body)).toEqual(['2 /private/ -> a @3']);
  });
  it('C14: a group naming `*` and a crawler together gives the crawler its rules', () => {
    const body = file('User-agent: foo', 'User-agent: *', 'Disallow: /a', '', 'User-agent: *', 'Disallow: /b');
    expect(gapsOf(body)).toEqual(['6 /b -> foo @1']);
  });
  it('T16, C10: a cut name counts as the crawler Google reads', () => {
    expect(gapsOf(file(...STAR_PRIVATE, 'User-agent: Googlebot/2.1', 'Disallow: /x'))).toEqual(['2 /private/ -> googlebot @3']);
  });
  it('C9, C11: groups with an empty name apply to no real crawler', () => {
    expect(gapsOf(file(...STAR_PRIVATE, 'User-agent: *foo', 'Disallow: /x', 'User-agent:', 'Disallow: /y', 'User-agent: 2bot', 'Disallow: /z'))).toEqual([]);
  });
  it('R-43: no `*` group, no gap', () => {
    expect(gapsOf(file('User-agent: a', 'Disallow: /private/', 'User-agent: b', 'Disallow:'))).toEqual([]);
  });
  it('groups with the same rules are each reported, in line order', () => {
    const body = file('User-agent: *', 'Disallow: /a', 'Disallow: /b', 'User-agent: x', 'Allow: /', 'User-agent: y', 'Disallow: /c', 'User-agent: z', 'Allow: /');
    expect(gapsOf(body)).toEqual(['2 /a -> x @4', '2 /a -> y @6', '2 /a -> z @8', '3 /b -> x @4', '3 /b -> y @6', '3 /b -> z @8']);
  });
});

describe('limits: a crafted file cannot make the check slow or large', () => {
  // Two named rule sets: x and y (Allow: /), z (Disallow: /a). Gaps: /a for x and y; /b for x, y and z.
  const body = file('User-agent: *', 'Disallow: /a', 'Disallow: /b', 'User-agent: x', 'Allow: /', 'User-agent: y', 'Allow: /', 'User-agent: z', 'Disallow: /a');
  const ALL = ['2 x', '2 y', '3 x', '3 y', '3 z'];
  it.each<[string, { maxGaps?: number; maxVerdicts?: number; maxWork?: number }, number, boolean]>([
    ['the defaults: all of them', {}, 5, true],
    ['maxGaps 5: all of them', { maxGaps: 5 }, 5, true],
    ['maxGaps 4: the first four, incomplete', { maxGaps: 4 }, 4, false],
    ['maxGaps 0: none, incomplete', { maxGaps: 0 }, 0, false],
    // A probe costs one verdict per named rule set (2) and one for `*`.
    ['maxVerdicts 6: both probes', { maxVerdicts: 6 }, 5, true],
    ['maxVerdicts 5: the first probe only, incomplete', { maxVerdicts: 5 }, 2, false],
    ['maxVerdicts 2: nothing, incomplete', { maxVerdicts: 2 }, 0, false],
    // The first probe weighs one rule (x and y's Allow: /, through their matcher); z and `*` hold its Disallow and no Allow.
    ['maxWork 1: both probes', { maxWork: 1 }, 5, true],
    ['maxWork 0: the first probe only, incomplete (the bound is checked before each probe)', { maxWork: 0 }, 2, false],
  ])('%s', (_case, limits, count, complete) => {
    const got = starRuleGaps(parseRobotsTxt(body), limits);
    expect(got.gaps.map((g) => `${g.starLine} ${g.tokens.join('+')}`)).toEqual(ALL.slice(0, count));
    expect(got.complete).toBe(complete);
  });
});

/**
 * The reference: for every named crawler and every distinct `*` Disallow pattern, ask the
 * engine's own check for the probe path, for `*` and for the crawler (R-40: its group only).
 */
function referenceGaps(robots: RobotsTxt): string[] {
  const tokens = robots.agents().filter((t) => t !== GLOBAL_AGENT && t !== '');
  const out: string[] = [];
  const seen = new Set<string>();
  for (const rule of robots.rulesFor(GLOBAL_AGENT)) {
    if (rule.kind !== 'disallow' || rule.pattern === '' || seen.has(rule.pattern)) continue;
    seen.add(rule.pattern);
    const probe = probePath(rule.pattern);
    if (probe === null || robots.checkPath(probe, GLOBAL_AGENT).allowed) continue;
    for (const token of tokens) if (robots.checkPath(probe, token).allowed) out.push(`${rule.line} ${token}`);
  }
  return out.sort();
}
const flatGaps = (robots: RobotsTxt) => starRuleGaps(robots).gaps.flatMap((g) => g.tokens.map((t) => `${g.starLine} ${t}`)).sort();

describe('the gaps are what the engine decides, probe by probe', () => {
  const unit = fc.constantFrom('/', 'a', 'b', '*', '$', '.', 'index.html', '%');
  const pattern = fc.oneof(fc.string({ unit, maxLength: 5 }).map((s) => '/' + s), fc.string({ unit, maxLength: 3 }), fc.constantFrom('/', '/*', '*', '/$', '/a/index.html'));
  const line = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom('User-agent: *', 'User-agent: a', 'User-agent: A', 'User-agent: b', 'User-agent: b/1', 'User-agent: *x', 'User-agent:') },
    { weight: 5, arbitrary: fc.tuple(fc.constantFrom('Allow', 'Disallow', 'Disallow'), pattern).map(([k, p]) => `${k}: ${p}`) },
    { weight: 1, arbitrary: fc.constantFrom('', 'Crawl-delay: 1', '# c') },
  );
  it('on random files', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 16 }), (lines) => {
        const robots = parseRobotsTxt(lines.join('\n'));
        expect(flatGaps(robots)).toEqual(referenceGaps(robots));
      }),
      { numRuns: 3000 },
    );
  });
  it('on every corpus file with a `*` group and named groups', () => {
    const differ: string[] = [];
    let gaps = 0;
    for (const f of loadRobotsSample()) {
      const robots = parseRobotsTxt(f.body);
      if (robots.rulesFor(GLOBAL_AGENT).length === 0 || robots.agents().length < 2) continue;
      const got = flatGaps(robots);
      gaps += got.length;
      if (JSON.stringify(got) !== JSON.stringify(referenceGaps(robots))) differ.push(f.host);
    }
    expect(differ).toEqual([]);
    expect(gaps).toBeGreaterThan(30_000);
  });
});
