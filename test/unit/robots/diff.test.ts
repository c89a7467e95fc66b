import { readFileSync } from 'node:fs';
import { formatPatch, structuredPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TEXT_DIFF_MAX_LINES,
  describeRobotsDiff,
  diffRobotsTxt,
  hasSemanticChange,
  isMatchEverythingPattern,
  unifiedTextDiff,
} from '../../../src/robots/diff.js';
import type { RobotsChangeKind, RobotsDiff } from '../../../src/robots/diff.js';
import { parseRobotsTxt } from '../../../src/robots/index.js';

const bytes = (text: string) => new TextEncoder().encode(text);

/** Parses both texts and diffs them with their bytes. */
function diffTexts(before: string | null, after: string | null): RobotsDiff {
  const b = before === null ? null : bytes(before);
  const a = after === null ? null : bytes(after);
  return diffRobotsTxt(b && parseRobotsTxt(b), a && parseRobotsTxt(a), { before: b, after: a });
}

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../../fixtures/history/${name}`, import.meta.url)));

function diffFixtures(host: string): { diff: RobotsDiff; before: Uint8Array; after: Uint8Array } {
  const before = fixture(`${host}.before.txt`);
  const after = fixture(`${host}.after.txt`);
  return { diff: diffRobotsTxt(parseRobotsTxt(before), parseRobotsTxt(after), { before, after }), before, after };
}

const BASE = ['User-agent: *', 'Disallow: /private', 'Allow: /private/open', '', 'User-agent: Googlebot', 'Disallow: /search', ''].join('\n');

describe('classification: identical and comments_only (R-23, R-24, R-35)', () => {
  it.each<[string, string, string, RobotsChangeKind]>([
    ['same bytes', BASE, BASE, 'identical'],
    ['comment added', BASE, `# maintained by ops\n${BASE}`, 'comments_only'],
    ['comment changed at end of a rule line', BASE, BASE.replace('Disallow: /search', 'Disallow: /search # no SERPs'), 'comments_only'],
    ['blank lines added', BASE, BASE.replace(/\n/g, '\n\n'), 'comments_only'],
    ['CRLF line endings (R-20)', BASE, BASE.replace(/\n/g, '\r\n'), 'comments_only'],
    ['CR-only line endings (R-20)', BASE, BASE.replace(/\n/g, '\r'), 'comments_only'],
    ['spaces around values (R-23)', BASE, BASE.replace('Disallow: /private', '   Disallow   :    /private   '), 'comments_only'],
    ['key case: DISALLOW vs Disallow (R-24)', BASE, BASE.replace('Disallow: /private', 'DISALLOW: /private'), 'comments_only'],
    ['user-agent value case (R-41)', BASE, BASE.replace('Googlebot', 'GOOGLEBOT'), 'comments_only'],
    ['rules reordered inside a group', BASE, BASE.replace('Disallow: /private\nAllow: /private/open', 'Allow: /private/open\nDisallow: /private'), 'comments_only'],
    [
      'groups reordered (R-35)',
      BASE,
      ['User-agent: Googlebot', 'Disallow: /search', '', 'User-agent: *', 'Disallow: /private', 'Allow: /private/open', ''].join('\n'),
      'comments_only',
    ],
    [
      'a merged group split into two same-agent groups (R-34)',
      BASE,
      ['User-agent: *', 'Disallow: /private', '', 'User-agent: Googlebot', 'Disallow: /search', '', 'User-agent: *', 'Allow: /private/open', ''].join('\n'),
      'comments_only',
    ],
    [
      'two user-agent lines sharing rules vs two groups with the same rules (R-31)',
      'User-agent: a\nUser-agent: b\nDisallow: /x\n',
      'User-agent: b\nDisallow: /x\n\nUser-agent: a\nDisallow: /x\n',
      'comments_only',
    ],
    ['a duplicated rule', BASE, BASE.replace('Disallow: /search', 'Disallow: /search\nDisallow: /search'), 'comments_only'],
    ['an empty Disallow added (R-50)', BASE, BASE.replace('Disallow: /search', 'Disallow: /search\nDisallow:'), 'comments_only'],
    ['an unknown key added', BASE, `${BASE}unicorns: /extinct\n`, 'comments_only'],
    ['a rule before any group, ignored by Google (R-32)', BASE, `Disallow: /early\n${BASE}`, 'comments_only'],
  ])('%s -> %s', (_name, before, after, kind) => {
    const diff = diffTexts(before, after);
    expect(diff.kinds).toEqual([kind]);
    expect(diff.agents).toEqual([]);
    expect(hasSemanticChange(diff)).toBe(false);
  });

  it('without raw bytes, the same parsed lines count as identical and a moved comment does not', () => {
    const p = parseRobotsTxt(BASE);
    expect(diffRobotsTxt(p, parseRobotsTxt(BASE)).kinds).toEqual(['identical']);
    expect(diffRobotsTxt(p, parseRobotsTxt(`# hello\n${BASE}`)).kinds).toEqual(['comments_only']);
  });

  it('no body on both sides is identical', () => {
    expect(diffRobotsTxt(null, null, { before: null, after: null }).kinds).toEqual(['identical']);
  });
});

describe('rules: allow/disallow sets per agent token (R-34, T49)', () => {
  it('a rule added to an existing group', () => {
    const diff = diffTexts(BASE, BASE.replace('Disallow: /search', 'Disallow: /search\nDisallow: /cart'));
    expect(diff.kinds).toEqual(['rules']);
    expect(diff.agents).toHaveLength(1);
    expect(diff.agents[0]).toMatchObject({
      token: 'googlebot',
      userAgents: ['Googlebot'],
      change: 'changed',
      rulesAdded: [{ kind: 'disallow', pattern: '/cart', value: '/cart', line: 7 }],
      rulesRemoved: [],
      disallowAllAdded: false,
      disallowAllRemoved: false,
    });
  });

  it('a rule removed', () => {
    const diff = diffTexts(BASE, BASE.replace('Allow: /private/open\n', ''));
    expect(diff.kinds).toEqual(['rules']);
    expect(diff.agents[0]).toMatchObject({ token: '*', rulesAdded: [], rulesRemoved: [{ kind: 'allow', pattern: '/private/open', line: 3 }] });
  });

  it('the kind of a rule flipped (Allow -> Disallow) is one removal and one addition', () => {
    const diff = diffTexts(BASE, BASE.replace('Allow: /private/open', 'Disallow: /private/open'));
    expect(diff.agents[0]!.rulesRemoved.map((r) => r.kind)).toEqual(['allow']);
    expect(diff.agents[0]!.rulesAdded.map((r) => r.kind)).toEqual(['disallow']);
  });

  it('paths are case-sensitive (R-51): /Private is another rule', () => {
    const diff = diffTexts(BASE, BASE.replace('Disallow: /private\n', 'Disallow: /Private\n'));
    expect(diff.kinds).toEqual(['rules']);
    expect(diff.agents[0]!.rulesAdded.map((r) => r.pattern)).toEqual(['/Private']);
  });

  it('T49: a non-ASCII pattern and its percent-encoded form are the same rule', () => {
    const diff = diffTexts('User-agent: *\nDisallow: /ツ\n', 'User-agent: *\nDisallow: /%E3%83%84\n');
    expect(diff.kinds).toEqual(['comments_only']);
  });

  it('a group added (GPTBot) reports the agent, its rules and a new disallow-all', () => {
    const diff = diffTexts(BASE, `${BASE}\nUser-agent: GPTBot\nDisallow: /\n`);
    expect(diff.kinds).toEqual(['rules']);
    expect(diff.agentsAdded).toEqual(['gptbot']);
    expect(diff.agentsRemoved).toEqual([]);
    expect(diff.agents).toEqual([
      {
        token: 'gptbot',
        userAgents: ['GPTBot'],
        change: 'added',
        rulesAdded: [{ kind: 'disallow', pattern: '/', value: '/', line: 9 }],
        rulesRemoved: [],
        disallowAllAdded: true,
        disallowAllRemoved: false,
      },
    ]);
  });

  it('an empty group added still changes which group applies (R-30)', () => {
    const diff = diffTexts(BASE, `${BASE}\nUser-agent: CCBot\n`);
    expect(diff.kinds).toEqual(['rules']);
    expect(diff.agents[0]).toMatchObject({ token: 'ccbot', change: 'added', rulesAdded: [] });
  });

  it('a group removed', () => {
    const diff = diffTexts(BASE, BASE.replace('User-agent: Googlebot\nDisallow: /search\n', ''));
    expect(diff.agentsRemoved).toEqual(['googlebot']);
    expect(diff.agents[0]).toMatchObject({ token: 'googlebot', userAgents: ['Googlebot'], change: 'removed', rulesRemoved: [{ pattern: '/search' }] });
  });

  it('agents are compared by the token Google reads (T16): Googlebot/2.1 is googlebot', () => {
    const diff = diffTexts(BASE, BASE.replace('User-agent: Googlebot', 'User-agent: Googlebot/2.1'));
    expect(diff.kinds).toEqual(['comments_only']);
  });

  it('an agent named in a second group gains that group\'s rules (R-31, R-34)', () => {
    const diff = diffTexts(BASE, BASE.replace('User-agent: *', 'User-agent: *\nUser-agent: Googlebot'));
    expect(diff.agents).toHaveLength(1);
    expect(diff.agents[0]!.token).toBe('googlebot');
    expect(diff.agents[0]!.rulesAdded.map((r) => r.pattern)).toEqual(['/private', '/private/open']);
    expect(diff.agents[0]!.userAgents).toEqual(['Googlebot']);
  });

  it('agents come out with * first, then by token', () => {
    const diff = diffTexts(BASE, `User-agent: zbot\nDisallow: /z\n\nUser-agent: abot\nDisallow: /a\n\n${BASE.replace('/private\n', '/private2\n')}`);
    expect(diff.agents.map((a) => a.token)).toEqual(['*', 'abot', 'zbot']);
  });
});

describe('disallowAllAdded / disallowAllRemoved (R-54, C6)', () => {
  it.each([
    ['/', true],
    ['/*', true],
    ['/**', true],
    ['*', true],
    ['/a', false],
    ['/$', false],
    ['*.php', false],
    ['', false],
  ])('isMatchEverythingPattern(%j) -> %s', (pattern, expected) => {
    expect(isMatchEverythingPattern(pattern)).toBe(expected);
  });

  it.each([
    ['Disallow: /', true],
    ['Disallow: /*', true],
    ['Disallow: *', true],
    ['Allow: /', false],
    ['Disallow: /a', false],
  ])('adding "%s" to the * group -> disallowAllAdded %s', (line, expected) => {
    const diff = diffTexts(BASE, BASE.replace('Disallow: /private\n', `Disallow: /private\n${line}\n`));
    const star = diff.agents.find((a) => a.token === '*')!;
    expect(star.disallowAllAdded).toBe(expected);
    expect(star.disallowAllRemoved).toBe(false);
  });

  it('removing Disallow: / sets disallowAllRemoved', () => {
    const diff = diffTexts('User-agent: bingbot\nDisallow: /\nDisallow: /x\n', 'User-agent: bingbot\nDisallow: /x\n');
    expect(diff.agents[0]).toMatchObject({ token: 'bingbot', disallowAllAdded: false, disallowAllRemoved: true });
  });

  it('Disallow: / rewritten as Disallow: /* is neither added nor removed', () => {
    const diff = diffTexts('User-agent: *\nDisallow: /\n', 'User-agent: *\nDisallow: /*\n');
    expect(diff.kinds).toEqual(['rules']);
    expect(diff.agents[0]).toMatchObject({ disallowAllAdded: false, disallowAllRemoved: false });
  });

  it('a group removed with its Disallow: / sets disallowAllRemoved', () => {
    const diff = diffTexts(`${BASE}\nUser-agent: GPTBot\nDisallow: /\n`, BASE);
    expect(diff.agents[0]).toMatchObject({ token: 'gptbot', change: 'removed', disallowAllRemoved: true });
  });
});

describe('sitemaps (R-58) and other records (R-28, R6)', () => {
  it('a sitemap added, wherever it stands (R-33)', () => {
    const diff = diffTexts(BASE, BASE.replace('Disallow: /search', 'Sitemap: https://example.com/sitemap.xml\nDisallow: /search'));
    expect(diff.kinds).toEqual(['sitemaps']);
    expect(diff.sitemapsAdded).toEqual(['https://example.com/sitemap.xml']);
    expect(diff.sitemapsRemoved).toEqual([]);
  });

  it('a sitemap moved to the end of the file is no change', () => {
    const diff = diffTexts(`Sitemap: https://example.com/s.xml\n${BASE}`, `${BASE}\nsitemap: https://example.com/s.xml\n`);
    expect(diff.kinds).toEqual(['comments_only']);
  });

  it('crawl-delay changed in a group', () => {
    const diff = diffTexts(`${BASE}Crawl-delay: 5\n`, `${BASE}Crawl-delay: 10\n`);
    expect(diff.kinds).toEqual(['records']);
    expect(diff.records).toEqual([{ agent: 'googlebot', key: 'crawl-delay', change: 'changed', before: ['5'], after: ['10'] }]);
  });

  it('a record before any group is global (agent null); added and removed are told apart', () => {
    const diff = diffTexts(`Host: example.com\n${BASE}`, `${BASE.replace('Disallow: /private\n', 'Disallow: /private\nClean-param: ref /\n')}`);
    expect(diff.kinds).toEqual(['records']);
    expect(diff.records).toEqual([
      { agent: null, key: 'host', change: 'removed', before: ['example.com'], after: [] },
      { agent: '*', key: 'clean-param', change: 'added', before: [], after: ['ref /'] },
    ]);
  });

  it('CRAWL-DELAY and Crawl-delay are the same key', () => {
    expect(diffTexts(`${BASE}Crawl-delay: 5\n`, `${BASE}CRAWL-DELAY: 5\n`).kinds).toEqual(['comments_only']);
  });

  it('a diff can carry several kinds at once', () => {
    const diff = diffTexts(BASE, `${BASE}Disallow: /x\nCrawl-delay: 1\nSitemap: https://example.com/s.xml\n`);
    expect(diff.kinds).toEqual(['rules', 'sitemaps', 'records']);
  });
});

describe('first snapshot and vanished body', () => {
  it('before null: everything in the file is added', () => {
    const diff = diffTexts(null, `${BASE}Sitemap: https://example.com/s.xml\n`);
    expect(diff.beforeMissing).toBe(true);
    expect(diff.afterMissing).toBe(false);
    expect(diff.kinds).toEqual(['rules', 'sitemaps']);
    expect(diff.agentsAdded).toEqual(['*', 'googlebot']);
    expect(diff.sitemapsAdded).toEqual(['https://example.com/s.xml']);
  });

  it('before null and an empty-of-rules file: comments_only (the bytes differ)', () => {
    const diff = diffTexts(null, '# nothing here\n');
    expect(diff.kinds).toEqual(['comments_only']);
    expect(diff.beforeMissing).toBe(true);
  });

  it('after null: everything is removed', () => {
    const diff = diffTexts(BASE, null);
    expect(diff.afterMissing).toBe(true);
    expect(diff.agentsRemoved).toEqual(['*', 'googlebot']);
  });
});

describe('real consecutive versions (avuim/RobotsTXTCrawler, ISC; test/fixtures/history)', () => {
  it('www.weltfussball.de: a timestamp comment changed -> comments_only', () => {
    const { diff, before, after } = diffFixtures('www.weltfussball.de');
    expect(diff.kinds).toEqual(['comments_only']);
    const text = unifiedTextDiff(before, after);
    expect(text).toContain('-# generated 2025-07-29 13:51:26 for www.weltfussball.de');
    expect(text).toContain('+# generated 2025-07-31 17:58:48 for www.weltfussball.de');
    expect(text.split('\n').filter((l) => /^[+-][^+-]/.test(l))).toHaveLength(2);
  });

  it('www.goslarsche.de: CRLF became LF -> comments_only, and the text diff says so in one line', () => {
    const { diff, before, after } = diffFixtures('www.goslarsche.de');
    expect(diff.kinds).toEqual(['comments_only']);
    expect(unifiedTextDiff(before, after)).toBe('# line endings: CRLF -> LF');
  });

  it('www.southpark.de: * rules added and removed, every sitemap replaced', () => {
    const { diff } = diffFixtures('www.southpark.de');
    expect(diff.kinds).toEqual(['rules', 'sitemaps']);
    expect(diff.agents).toHaveLength(1);
    const star = diff.agents[0]!;
    expect(star.token).toBe('*');
    expect(star.rulesAdded.map((r) => r.value)).toEqual(['/wiki/', '/forum/']);
    expect(star.rulesRemoved.map((r) => r.value)).toEqual(['/creditos-de-la-red', '/creditos-da-web']);
    expect(diff.sitemapsAdded).toHaveLength(6);
    expect(diff.sitemapsRemoved).toHaveLength(6);
    expect(diff.sitemapsAdded.every((u) => u.startsWith('https://www.southpark.de/'))).toBe(true);
    // PetalBot keeps its Disallow: / : no flag.
    expect(diff.agents.some((a) => a.disallowAllAdded || a.disallowAllRemoved)).toBe(false);
  });
});

describe('describeRobotsDiff', () => {
  it('lists groups, rules, sitemaps and records for people', () => {
    const before = `${BASE}Crawl-delay: 5\nSitemap: https://example.com/old.xml\n`;
    const after = `${BASE.replace('Allow: /private/open\n', '')}Crawl-delay: 10\nSitemap: https://example.com/new.xml\n\nUser-agent: GPTBot\nDisallow: /\n`;
    expect(describeRobotsDiff(diffTexts(before, after))).toEqual([
      '~ group *',
      '    - Allow: /private/open',
      '+ group GPTBot',
      '    + Disallow: /',
      '- Sitemap: https://example.com/old.xml',
      '+ Sitemap: https://example.com/new.xml',
      '~ crawl-delay [googlebot]: 5 -> 10',
    ]);
  });

  it('can be limited to some parts', () => {
    const diff = diffTexts(BASE, `${BASE}Crawl-delay: 1\nSitemap: https://example.com/s.xml\n`);
    expect(describeRobotsDiff(diff, ['sitemaps'])).toEqual(['+ Sitemap: https://example.com/s.xml']);
    expect(describeRobotsDiff(diff, ['records'])).toEqual(['+ crawl-delay [googlebot]: (none) -> 1']);
  });
});

describe('unifiedTextDiff', () => {
  it('same bytes -> empty string', () => {
    expect(unifiedTextDiff(bytes(BASE), bytes(BASE))).toBe('');
    expect(unifiedTextDiff(null, null)).toBe('');
  });

  it('a unified diff with file headers and context', () => {
    const text = unifiedTextDiff(bytes(BASE), bytes(BASE.replace('Disallow: /search', 'Disallow: /find')), { context: 1 });
    expect(text.split('\n')).toEqual([
      '--- robots.txt (before)',
      '+++ robots.txt (after)',
      '@@ -5,2 +5,2 @@',
      ' User-agent: Googlebot',
      '-Disallow: /search',
      '+Disallow: /find',
    ]);
  });

  it('first snapshot diffs against /dev/null', () => {
    const text = unifiedTextDiff(null, bytes('User-agent: *\nDisallow: /\n'));
    expect(text.split('\n').slice(0, 3)).toEqual(['--- /dev/null', '+++ robots.txt (after)', '@@ -0,0 +1,2 @@']);
  });

  it('decodes invalid UTF-8 with replacement characters and keeps a BOM visible', () => {
    const latin1 = Uint8Array.from([...bytes('Disallow: /caf'), 0xe9, 0x0a]);
    expect(unifiedTextDiff(bytes('Disallow: /cafe\n'), latin1)).toContain('+Disallow: /caf\uFFFD');
    const withBom = Uint8Array.from([0xef, 0xbb, 0xbf, ...bytes('User-agent: *\n')]);
    expect(unifiedTextDiff(bytes('User-agent: *\n'), withBom)).toContain('+\uFEFFUser-agent: *');
  });

  it('a CR-only file is read line by line (R-20)', () => {
    const text = unifiedTextDiff(bytes('a\rb\rc\r'), bytes('a\rB\rc\r'), { context: 0 });
    expect(text).toContain('-b');
    expect(text).toContain('+B');
    expect(text).not.toContain('-a');
  });

  it(`caps the output at maxLines (default ${DEFAULT_TEXT_DIFF_MAX_LINES}) with a "… N more lines" tail`, () => {
    const many = Array.from({ length: 1000 }, (_, i) => `Disallow: /p${i}\n`).join('');
    const lines = unifiedTextDiff(null, bytes(many)).split('\n');
    expect(lines).toHaveLength(DEFAULT_TEXT_DIFF_MAX_LINES + 1);
    // 3 header lines + 1000 added lines, 400 kept.
    expect(lines.at(-1)).toBe(`… ${1003 - DEFAULT_TEXT_DIFF_MAX_LINES} more lines`);
    const small = unifiedTextDiff(null, bytes(many), { maxLines: 10 }).split('\n');
    expect(small).toHaveLength(11);
  });

  it('clips very long lines', () => {
    const text = unifiedTextDiff(null, bytes(`<html>${'x'.repeat(5000)}</html>`), { maxLineChars: 100 });
    const long = text.split('\n').find((l) => l.startsWith('+<html>'))!;
    expect(long.length).toBeLessThan(150);
    expect(long).toMatch(/more characters\)$/);
  });

  it('too many changed lines: says so instead of diffing', () => {
    const a = Array.from({ length: 50 }, (_, i) => `a${i}`).join('\n');
    const b = Array.from({ length: 50 }, (_, i) => `b${i}`).join('\n');
    expect(unifiedTextDiff(bytes(a), bytes(b), { maxEditLength: 10 })).toBe('# too many changed lines to diff: 50 lines before, 50 lines after');
    // Same lines in reverse order: no line is new, yet the alignment needs many edits.
    const reversed = a.split('\n').reverse().join('\n');
    expect(unifiedTextDiff(bytes(a), bytes(reversed), { maxEditLength: 10 })).toBe('# too many changed lines to diff: 50 lines before, 50 lines after');
    expect(unifiedTextDiff(bytes(a), bytes(reversed), { maxEditLength: 1000 })).toContain('@@ -1,50 +1,50 @@');
  });
});

describe('unifiedTextDiff diffs only the changed part, with the hunks of the whole (issue 26)', () => {
  // Files of similar lines (a pattern repeating every 7 lines, as hostile files repeat theirs), each
  // edited in 1-4 places by deletions, insertions or replacements, with and without a final newline.
  const base = Array.from({ length: 60 }, (_, i) => `Disallow: /p${i % 7}`);
  const cases = Array.from({ length: 300 }, (_, t) => {
    const after = [...base];
    for (let k = 0; k < 1 + (t % 4); k++) {
      const i = (t * 13 + k * 17) % after.length;
      if (t % 3 === 0) after.splice(i, 1);
      else if (t % 3 === 1) after.splice(i, 0, `Allow: /n${t}`);
      else after[i] = `Disallow: /c${t}`;
    }
    return [base.join('\n') + (t % 5 === 0 ? '' : '\n'), after.join('\n') + (t % 7 === 0 ? '' : '\n')] as const;
  });
  it('gives what jsdiff gives on the whole texts, case by case', () => {
    const bytes = (t: string) => new TextEncoder().encode(t);
    for (const [before, after] of cases) {
      const whole = structuredPatch('robots.txt (before)', 'robots.txt (after)', before, after, undefined, undefined, { context: 3 });
      const expected = formatPatch(whole, { includeIndex: false, includeUnderline: false, includeFileHeaders: true }).replace(/\n$/, '');
      expect(unifiedTextDiff(bytes(before), bytes(after))).toBe(expected);
    }
  });
});
