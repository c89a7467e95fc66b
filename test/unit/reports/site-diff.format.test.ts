/** The text of `robots-audit diff`: colour only where asked, crawlers grouped by change. */
import { describe, expect, it } from 'vitest';
import { diffCrawlerRules } from '../../../src/crawlers/crawler-diff.js';
import { diffRobotsTxt, unifiedTextDiff } from '../../../src/robots/diff.js';
import { parseRobotsTxt } from '../../../src/robots/index.js';
import type { SiteDiffReport } from '../../../src/reports/site-diff.js';
import { colorChangeLine, colorTextDiff, crawlerLines, formatSiteDiff, siteDiffJson, useColor } from '../../../src/reports/site-diff.format.js';
import type { SiteVersion } from '../../../src/reports/site-versions.js';

const SITE = { id: 1, origin: 'https://example.com' };
const G = '\u001b[32m';
const R = '\u001b[31m';
const C = '\u001b[36m';
const E = '\u001b[39m';

describe('useColor: --color / --no-color, else a terminal with colours and no NO_COLOR', () => {
  const terminal = (hasColors: boolean) => ({ isTTY: true, hasColors: () => hasColors });
  it.each<[string, boolean | undefined, { isTTY?: boolean; hasColors?: () => boolean }, Record<string, string>, boolean]>([
    ['--color on a pipe', true, {}, {}, true],
    ['--no-color on a terminal', false, terminal(true), {}, false],
    ['a terminal with colours', undefined, terminal(true), {}, true],
    ['a terminal Node says has none (NO_COLOR, TERM=dumb)', undefined, terminal(false), {}, false],
    ['a terminal, NO_COLOR in the caller environment', undefined, terminal(true), { NO_COLOR: '1' }, false],
    ['a pipe', undefined, { isTTY: false }, {}, false],
    ['a stream that is no terminal at all', undefined, {}, {}, false],
  ])('%s', (_name, flag, out, env, expected) => {
    expect(useColor(flag, out, env)).toBe(expected);
  });
});

describe('colour', () => {
  it('a text diff: headers plain, hunks cyan, added green, removed red, context plain', () => {
    const lines = ['--- robots.txt (before)', '+++ robots.txt (after)', '@@ -1,2 +1,2 @@', ' User-agent: *', '-Disallow: /a', '+Disallow: /b', '--- removed line that starts with --'];
    expect(colorTextDiff(lines)).toEqual([
      '--- robots.txt (before)',
      '+++ robots.txt (after)',
      `${C}@@ -1,2 +1,2 @@${E}`,
      ' User-agent: *',
      `${R}-Disallow: /a${E}`,
      `${G}+Disallow: /b${E}`,
      `${R}--- removed line that starts with --${E}`,
    ]);
  });

  it.each([
    ['    + Disallow: /x', `${G}    + Disallow: /x${E}`],
    ['    - Allow: /x', `${R}    - Allow: /x${E}`],
    ['  -bot (the * group)', '  -bot (the * group)'],
    ['  ~ crawl-delay [*]: 1 -> 2', '  ~ crawl-delay [*]: 1 -> 2'],
  ])('change line %j', (line, coloured) => {
    expect(colorChangeLine(line)).toBe(coloured);
  });
});

function report(before: string, after: string, crawlers: string[]): Extract<SiteDiffReport, { kind: 'diff' }> {
  const b = parseRobotsTxt(before);
  const a = parseRobotsTxt(after);
  const enc = (t: string) => new TextEncoder().encode(t);
  return {
    kind: 'diff',
    site: SITE,
    versionCount: 2,
    from: version(1, before.length),
    to: version(2, after.length),
    textDiff: unifiedTextDiff(enc(before), enc(after)),
    semantic: diffRobotsTxt(b, a, { before: enc(before), after: enc(after) }),
    crawlers: diffCrawlerRules(b, a, crawlers),
    crawlersNotCompared: 0,
  };
}

function version(n: number, bytes: number, nights = 1): SiteVersion {
  const day = `2026-03-0${n}`;
  return {
    number: n,
    bodyId: n,
    sha256: `${n}`.repeat(64),
    bytes,
    firstNight: new Date(`${day}T03:00:00Z`),
    firstRunId: n,
    firstRunKey: `nightly-${day}`,
    lastNight: new Date(`${day}T03:00:00Z`),
    lastRunKey: `nightly-${day}`,
    nights,
  };
}

describe('crawlerLines', () => {
  it('crawlers with the same change share an entry; unchanged ones are named on one line', () => {
    const r = report('User-agent: *\nDisallow: /a\n\nUser-agent: Googlebot\nAllow: /\n', 'User-agent: *\nDisallow: /b\n\nUser-agent: Googlebot\nAllow: /\n\nUser-agent: CCBot\nDisallow: /\n', [
      '*',
      'Googlebot',
      'CCBot',
      'Bingbot',
      'GPTBot',
    ]);
    expect(crawlerLines(r.crawlers)).toEqual([
      '*, Bingbot, GPTBot (the * group)',
      '  - Disallow: /a',
      '  + Disallow: /b',
      'CCBot (the * group → the group User-agent: CCBot)',
      '  - Disallow: /a',
      '  + Disallow: /',
      'unchanged: Googlebot',
    ]);
  });

  it('a crawler that moves to a group with the same rules says so', () => {
    const r = report('User-agent: *\nDisallow: /a\n', 'User-agent: *\nUser-agent: CCBot\nDisallow: /a\n', ['CCBot']);
    expect(crawlerLines(r.crawlers)).toEqual(['CCBot (the * group → the group User-agent: CCBot)', '  (the same rules)']);
  });

  it('R-43: no group at all', () => {
    const r = report('User-agent: a\nDisallow: /\n', 'User-agent: *\nDisallow: /x\n', ['Bingbot']);
    expect(crawlerLines(r.crawlers)).toEqual(['Bingbot (no group → the * group)', '  + Disallow: /x']);
  });
});

describe('formatSiteDiff', () => {
  const r = report('User-agent: *\nDisallow: /a\n', 'User-agent: *\nDisallow: /b\nSitemap: https://example.com/s.xml\n', ['*']);

  it('plain: the versions, the text diff, per crawler, then sitemaps', () => {
    expect(formatSiteDiff(r)).toBe(
      [
        'https://example.com: version 1 → version 2 (2 versions stored)',
        `  before: version 1: fetched on 2026-03-01 03:00Z (first run nightly-2026-03-01); 27 bytes, sha256 ${'1'.repeat(12)}`,
        `  after:  version 2: fetched on 2026-03-02 03:00Z (first run nightly-2026-03-02); 62 bytes, sha256 ${'2'.repeat(12)}`,
        '',
        '--- robots.txt (before)',
        '+++ robots.txt (after)',
        '@@ -1,2 +1,3 @@',
        ' User-agent: *',
        '-Disallow: /a',
        '+Disallow: /b',
        '+Sitemap: https://example.com/s.xml',
        '',
        'Per crawler (+ gained, - lost):',
        '  * (the * group)',
        '    - Disallow: /a',
        '    + Disallow: /b',
        '',
        'Sitemaps and other records:',
        '  + Sitemap: https://example.com/s.xml',
        '',
      ].join('\n'),
    );
  });

  it('coloured: the same text with the added lines green and the removed ones red', () => {
    const coloured = formatSiteDiff(r, { color: true });
    expect([G, R, C, E].reduce((text, code) => text.replaceAll(code, ''), coloured)).toBe(formatSiteDiff(r));
    expect(coloured).toContain(`${R}-Disallow: /a${E}\n${G}+Disallow: /b${E}`);
    expect(coloured).toContain(`${R}    - Disallow: /a${E}\n${G}    + Disallow: /b${E}`);
    expect(coloured).toContain(`${G}  + Sitemap: https://example.com/s.xml${E}`);
  });

  it('only comments changed: no per-crawler part', () => {
    const out = formatSiteDiff(report('User-agent: *\nDisallow: /a\n', '# hi\nUser-agent: *\nDisallow: /a\n', ['*']));
    expect(out).toContain('Rules, sitemaps and records: the same (only comments, blank lines, order or spelling differ)\n');
    expect(out).not.toContain('Per crawler');
  });

  it.each<[string, SiteDiffReport, string]>([
    ['no version', { kind: 'too_few_versions', site: SITE, versions: [] }, 'https://example.com: no robots.txt stored yet: nothing to compare\n'],
    [
      'one version',
      { kind: 'too_few_versions', site: SITE, versions: [version(1, 10, 3)] },
      `https://example.com: one version of robots.txt stored (version 1: fetched 2026-03-01 03:00Z .. 2026-03-01 03:00Z, 3 nights (first run nightly-2026-03-01); 10 bytes, sha256 ${'1'.repeat(12)}): nothing to compare\n`,
    ],
    [
      'the same version at both ends',
      { kind: 'same_version', site: SITE, version: version(2, 10), versionCount: 4 },
      `https://example.com: no difference: both ends are version 2 of 4 (version 2: fetched on 2026-03-02 03:00Z (first run nightly-2026-03-02); 10 bytes, sha256 ${'2'.repeat(12)})\n`,
    ],
    [
      'the first version alone',
      { kind: 'first_version', site: SITE, version: version(1, 1), versionCount: 4 },
      `https://example.com: version 1: fetched on 2026-03-01 03:00Z (first run nightly-2026-03-01); 1 byte, sha256 ${'1'.repeat(12)} is the first stored: nothing before it to compare\n`,
    ],
  ])('%s', (_name, rep, text) => {
    expect(formatSiteDiff(rep)).toBe(text);
  });

  it('the JSON names the result and both versions', () => {
    expect(siteDiffJson(r)).toMatchObject({ result: 'diff', versions: 2, from: { number: 1, firstNight: '2026-03-01T03:00:00.000Z' }, to: { number: 2 }, kinds: ['rules', 'sitemaps'] });
    expect(siteDiffJson({ kind: 'first_version', site: SITE, version: version(1, 1), versionCount: 2 })).toMatchObject({ result: 'first_version', from: null, to: { number: 1 } });
  });
});
