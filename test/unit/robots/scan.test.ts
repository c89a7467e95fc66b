/**
 * The scanner's per-line report (google-behaviors.md B: R1-R10, as in Google's
 * reporting_robots_test.cc) and its byte-level handling (C20, C21, C25, C28, T45, T46).
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES, scanLines, scanRobotsTxt } from '../../../src/robots/index.js';
import { LineCursor, TEXT_WINDOW_BYTES } from '../../../src/robots/scan.js';
import { loadRobotsSample } from '../../helpers/corpus.js';
import type { ScannedLine } from '../../../src/robots/index.js';
import { bytes } from './verdict.js';

/** The flags Google's LineMetadata carries, plus the tag name of its reporter. */
function report(l: ScannedLine) {
  const tag = l.type !== 'directive' ? 'none' : l.key;
  return {
    tag,
    typo: l.typo !== null,
    empty: l.type === 'empty',
    hasComment: l.hasComment,
    isComment: l.type === 'comment',
    directive: l.type === 'directive',
    tooLong: l.lineTooLong,
    missingColon: l.missingColon,
  };
}
const flags = (tag: string, set: Partial<ReturnType<typeof report>> = {}) => ({
  tag,
  typo: false,
  empty: false,
  hasComment: false,
  isComment: false,
  directive: tag !== 'none',
  tooLong: false,
  missingColon: false,
  ...set,
});

const SIMPLE_FILE =
  'User-Agent: foo\n' + // 1
  'Allow: /some/path\n' + // 2
  'User-Agent bar # no\n' + // 3
  'absolutely random line\n' + // 4
  '#so comment, much wow\n' + // 5
  '\n' + // 6
  'unicorns: /extinct\n' + // 7
  'noarchive: /some\n' + // 8
  'Disallow: /\n' + // 9
  'Error #and comment\n' + // 10
  'useragent: baz\n' + // 11
  'disallaw: /some\n' + // 12
  'site-map: https://e/s.xml #comment\n' + // 13
  'sitemap: https://e/t.xml\n' + // 14
  'Noarchive: /someCapital\n'; // 15, and 16 from the final \n

describe('R1-R10: the per-line parse report of a simple file', () => {
  const { lines, summary } = scanLines(SIMPLE_FILE);
  it('R1: 16 lines: the final \\n starts one more', () => {
    expect(summary.lineCount).toBe(16);
    expect(lines.map((l) => l.line)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
  });
  it.each([
    [1, flags('user-agent'), 'a plain directive'],
    [2, flags('allow'), 'a plain directive'],
    [3, flags('user-agent', { hasComment: true, missingColon: true }), 'R2: no colon and a trailing comment'],
    [4, flags('none'), 'R3: three tokens and no colon'],
    [5, flags('none', { hasComment: true, isComment: true }), 'R4: a comment line'],
    [6, flags('none', { empty: true }), 'R4: an empty line'],
    [7, flags('unknown'), 'R5: an unknown key'],
    [8, flags('known-unsupported'), 'R6: a known but unused key'],
    [9, flags('disallow'), 'a plain directive'],
    [10, flags('none', { hasComment: true }), 'R7: one token left once the comment is cut'],
    [11, flags('user-agent', { typo: true }), 'R8: useragent'],
    [12, flags('disallow', { typo: true }), 'R8: disallaw'],
    [13, flags('sitemap', { typo: true, hasComment: true }), 'R8: site-map'],
    [14, flags('sitemap'), 'a plain directive'],
    [15, flags('known-unsupported'), 'R6: compared case-insensitively'],
    [16, flags('none', { empty: true }), 'R1: the line after the final EOL'],
  ])('line %i', (line, expected, _why) => {
    expect(report(lines[line - 1] as ScannedLine)).toEqual(expected);
  });
  it('R2: the value of a no-colon line is the second token, comment cut', () => {
    expect(lines[2]?.value).toBe('bar');
  });
  it('R8: the typo names the accepted misspelling', () => {
    expect([lines[10]?.typo, lines[11]?.typo, lines[12]?.typo]).toEqual(['useragent', 'disallaw', 'site-map']);
  });
  it('R9: 8 valid directives (user-agent, allow, disallow, sitemap only)', () => {
    const valid = lines.filter((l) => l.type === 'directive' && ['user-agent', 'allow', 'disallow', 'sitemap'].includes(l.key as string));
    expect(valid).toHaveLength(8);
  });
});

describe('R1: CRLF and CR files', () => {
  it.each([
    ['CRLF', 'User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n'],
    ['CR', 'User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r'],
  ])('%s: 7 lines, 4 directives', (_name, body) => {
    const { lines, summary } = scanLines(body);
    expect(summary.lineCount).toBe(7);
    expect(lines.filter((l) => l.type === 'directive')).toHaveLength(4);
    expect(lines[5]?.line).toBe(6);
    expect(lines[5]?.key).toBe('disallow');
    // The line after the final EOL is empty and starts at the end of the body.
    expect(lines[6]).toMatchObject({ type: 'empty', byteLength: 0, offset: new TextEncoder().encode(body).length });
  });
  it('an empty body is one empty line', () => {
    const { lines, summary } = scanLines('');
    expect(summary.lineCount).toBe(1);
    expect(lines[0]?.type).toBe('empty');
  });
});

describe('R10: a line over the limit is flagged and still parsed', () => {
  const longline = '/x/' + 'a'.repeat(2084 * 8);
  const { lines, summary } = scanLines(`user-agent: foo\ndisallow: ${longline}\nallow: /\n`);
  it('flags line 2 only', () => {
    expect(summary.lineCount).toBe(4);
    expect(lines.map((l) => l.lineTooLong)).toEqual([false, true, false, false]);
    expect(lines[1]?.key).toBe('disallow');
  });
  it(`keeps ${MAX_LINE_BYTES} bytes of it (C28)`, () => {
    expect(MAX_LINE_BYTES).toBe(16663);
    expect('disallow: '.length + (lines[1] as ScannedLine).value.length).toBe(MAX_LINE_BYTES);
    expect(lines[1]?.byteLength).toBe('disallow: '.length + longline.length);
  });
});

describe('key recognition (C1, C2)', () => {
  it.each([
    ['User-agent: x', 'user-agent', null, false],
    ['USER-AGENT: x', 'user-agent', null, false],
    ['User-agents: x', 'user-agent', null, true],
    ['useragent: x', 'user-agent', 'useragent', false],
    ['User Agent: x', 'user-agent', 'user agent', false],
    ['Allow: /', 'allow', null, false],
    ['Allowance: /', 'allow', null, true],
    ['Alow: /', 'unknown', null, false],
    ['Disallowed: /', 'disallow', null, true],
    ['dissallow: /', 'disallow', 'dissallow', false],
    ['dissalow: /', 'disallow', 'dissalow', false],
    ['disalow: /', 'disallow', 'disalow', false],
    ['diasllow: /', 'disallow', 'diasllow', false],
    ['disallaw: /', 'disallow', 'disallaw', false],
    ['disalllow: /', 'unknown', null, false],
    ['Sitemap: x', 'sitemap', null, false],
    ['Site-map: x', 'sitemap', 'site-map', false],
    ['Sitemaps: x', 'sitemap', null, true],
    ['user_agent: x', 'unknown', null, false],
    ['Crawl-delay: 5', 'known-unsupported', null, false],
    ['CRAWL-DELAY: 5', 'known-unsupported', null, false],
    ['Crawl-delays: 5', 'unknown', null, false],
    ['Host: x', 'known-unsupported', null, false],
    ['Clean-param: x', 'known-unsupported', null, false],
    ['Content-Signal: x', 'known-unsupported', null, false],
    ['Dis allow: /a', 'unknown', null, false],
  ])('%j -> %s (typo %j, prefix %j)', (line, key, typo, prefix) => {
    const l = scanLines(line).lines[0] as ScannedLine;
    expect([l.key, l.typo, l.keyPrefix]).toEqual([key, typo, prefix]);
  });
  it.each(['clean-param', 'content-signal', 'content-usage', 'crawl-delay', 'domain', 'host', 'noarchive', 'nofollow', 'noindex', 'request-rate', 'revisit-after', 'visit-time'])(
    'R6: %s is known but unsupported, in any case',
    (key) => {
      const mixed = key.charAt(0).toUpperCase() + key.slice(1);
      expect(scanLines(`${mixed}: x`).lines[0]?.key).toBe('known-unsupported');
      expect(scanLines(`${key}x: x`).lines[0]?.key).toBe('unknown');
    },
  );
  it('a colon inside the value of a no-colon line makes the key end at the colon', () => {
    // Google looks for ':' first: `Disallow /a:b` is the key "Disallow /a", read as disallow.
    const l = scanLines('Disallow /a:b').lines[0] as ScannedLine;
    expect([l.key, l.rawKey, l.value, l.missingColon, l.keyPrefix]).toEqual(['disallow', 'Disallow /a', 'b', false, true]);
  });
});

describe('separators and values (C21, C22, C23)', () => {
  it.each([
    ['Disallow: /a b', 'directive', '/a b', false],
    ['Disallow /a b', 'not-a-directive', '', false],
    ['Disallow\t/a', 'directive', '/a', true],
    ['Disallow\u000b/a', 'not-a-directive', '', false],
    ['   Disallow  :   /a   ', 'directive', '/a', false],
    ['Disallow:/a', 'directive', '/a', false],
    [': /a', 'not-a-directive', '', false],
    ['Disallow:', 'directive', '', false],
    ['Disallow: #/a', 'directive', '', false],
    ['Disallow: /a#b', 'directive', '/a', false],
    ['Disallow: /a\u00a0', 'directive', '/a\u00a0', false],
    ['\u000c Disallow: /a \u000b', 'directive', '/a', false],
    ['justoneword', 'not-a-directive', '', false],
  ])('%j -> %s %j', (line, type, value, missingColon) => {
    const l = scanLines(line).lines[0] as ScannedLine;
    expect([l.type, l.value, l.missingColon]).toEqual([type, value, missingColon]);
  });
});

describe('bytes: NUL, BOM and encoding (C20, C25, T45, T46, R-27)', () => {
  it('C20: a NUL ends the content of its line', () => {
    const { lines, summary } = scanLines('Disallow: /a\u0000b # c\n\u0000Disallow: /x\n');
    expect([lines[0]?.value, lines[0]?.hasNul, lines[0]?.hasComment]).toEqual(['/a', true, false]);
    expect([lines[1]?.type, lines[1]?.hasNul]).toEqual(['empty', true]);
    expect(summary.nul).toBe(true);
  });
  it.each([
    ['full', [0xef, 0xbb, 0xbf], 3],
    ['two bytes', [0xef, 0xbb], 2],
    ['one byte', [0xef], 1],
    ['broken', [0xef, 0x11, 0xbf], 1],
    ['none', [], 0],
  ])('T45: %s BOM: %j skips %i bytes', (_name, prefix, skipped) => {
    const { lines, summary } = scanLines(bytes(prefix, 'User-Agent: foo\n'));
    expect(summary.bomBytes).toBe(skipped);
    expect(lines[0]?.offset).toBe(skipped);
  });
  it('T46: a broken BOM leaves garbage in line 1', () => {
    const l = scanLines(bytes([0xef, 0x11, 0xbf], 'User-Agent: foo\n')).lines[0] as ScannedLine;
    expect(l.key).toBe('unknown');
    expect(l.invalidUtf8).toBe(true);
  });
  it('C25: a second BOM is kept and flagged', () => {
    const { lines } = scanLines(bytes([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], 'User-Agent: foo\n'));
    expect([lines[0]?.key, lines[0]?.innerBom, lines[0]?.invalidUtf8]).toEqual(['unknown', true, false]);
  });
  it('R-27: invalid UTF-8 is flagged per line', () => {
    const { lines, summary } = scanLines(bytes('Disallow: /caf', [0xe9], '\nDisallow: /café\n'));
    expect(lines.map((l) => l.invalidUtf8)).toEqual([true, false, false]);
    expect(summary.invalidUtf8).toBe(true);
    expect(lines[0]?.value).toBe('/caf\uFFFD');
  });
  it.each([
    ['overlong', [0xc0, 0xaf]],
    ['surrogate', [0xed, 0xa0, 0x80]],
    ['truncated', [0xe3, 0x83]],
    ['above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['lone continuation', [0x80]],
  ])('invalid UTF-8: %s', (_name, seq) => {
    expect(scanLines(bytes('Disallow: /', seq)).lines[0]?.invalidUtf8).toBe(true);
  });
  it('strings are scanned as their UTF-8 bytes', () => {
    const l = scanLines('Disallow: /ツ').lines[0] as ScannedLine;
    expect([l.value, l.valueEnd - l.valueStart, l.invalidUtf8]).toEqual(['/ツ', 4, false]);
  });
});

describe('the handler seam', () => {
  it('sends every line, then the summary', () => {
    const seen: string[] = [];
    const summary = scanRobotsTxt('User-agent: a\nDisallow: /\n', {
      onLine: (l) => seen.push(`${l.line}:${l.type}`),
      onEnd: (s) => seen.push(`end:${s.lineCount}`),
    });
    expect(seen).toEqual(['1:directive', '2:directive', '3:empty', 'end:3']);
    expect(summary.byteLength).toBe(26);
  });
});

describe('the text window: lines read through small windows are read the same', () => {
  /** Every line as the cursor reads it, with positions as byte offsets in the body. */
  function readAll(body: Uint8Array, windowBytes: number) {
    const c = new LineCursor(body, windowBytes);
    const out: unknown[] = [];
    while (c.advance()) {
      const at = (i: number) => (i < 0 ? -1 : c.base + i);
      const directive = c.type === 'directive';
      out.push([
        c.line,
        c.type,
        at(c.start),
        at(c.end),
        at(c.commentAt),
        at(c.nulAt),
        directive ? [c.string(c.keyStart, c.keyEnd), c.string(c.valueStart, c.valueEnd), c.spelling?.spelling ?? null, c.missingColon] : null,
      ]);
    }
    return out;
  }
  it.each([
    ['CRLF split by every window size', bytes('User-agent: a\r\nDisallow: /x\r\n\r\nAllow: /y\r\r\nSitemap: s\r\n')],
    ['lone CRs and LFs', bytes('a: 1\rb: 2\n\rc: 3\r\n\nd: 4\r')],
    ['lines longer than the window', bytes(`Disallow: /${'a'.repeat(300)}\n#${'b'.repeat(200)}\nAllow: /c\n`)],
    ['high bytes, NULs and a BOM', bytes([0xef, 0xbb, 0xbf], 'Disallow: /caf', [0xe9], '\nAllow: /', [0xc3, 0xa9, 0], 'x\nfoo: b', [0xe3, 0x83, 0x84], '\n')],
  ])('%s', (_name, body) => {
    const whole = readAll(body, TEXT_WINDOW_BYTES);
    for (let w = 1; w <= 24; w++) expect(readAll(body, w)).toEqual(whole);
  });
  it('on every file of the corpus, through 61-byte and 4 KiB windows', () => {
    const differ = loadRobotsSample()
      .filter((f) => {
        const whole = readAll(f.body, Number.MAX_SAFE_INTEGER);
        return !isDeepStrictEqual(readAll(f.body, 61), whole) || !isDeepStrictEqual(readAll(f.body, 4096), whole);
      })
      .map((f) => f.host);
    expect(differ).toEqual([]);
  });
});

describe('skip mode, the fast path of the parser, reads every line that may hold one of the four directives', () => {
  /** The lines a skipping cursor reads fully (same shape as readAll), and whether it skipped text. */
  function readSkipping(body: Uint8Array, windowBytes: number) {
    const c = new LineCursor(body, windowBytes);
    c.skipUnspelled = true;
    const read = new Map<number, unknown>();
    while (c.advance()) {
      if ((c.type as string) === 'skipped') throw new Error('advance returned a skipped line');
      const directive = c.type === 'directive';
      read.set(c.line, [c.type, directive ? [c.string(c.keyStart, c.keyEnd), c.string(c.valueStart, c.valueEnd), c.spelling?.spelling ?? null, c.missingColon] : null]);
    }
    return { read, lineCount: c.line, skippedText: c.skippedText };
  }
  /** What a full reading says of every line. */
  function readFully(body: Uint8Array) {
    const c = new LineCursor(body, Number.MAX_SAFE_INTEGER);
    const lines: { line: number; type: string; spelled: boolean; entry: unknown }[] = [];
    while (c.advance()) {
      const directive = c.type === 'directive';
      const entry = [c.type, directive ? [c.string(c.keyStart, c.keyEnd), c.string(c.valueStart, c.valueEnd), c.spelling?.spelling ?? null, c.missingColon] : null];
      lines.push({ line: c.line, type: c.type, spelled: directive && c.spelling !== null, entry });
    }
    return { lines, lineCount: c.line };
  }
  /** Differences from the full reading: a spelled directive skipped or read differently, a read line read differently, records not flagged. */
  function problems(body: Uint8Array, windowBytes: number): string[] {
    const full = readFully(body);
    const skipping = readSkipping(body, windowBytes);
    const out: string[] = [];
    if (skipping.lineCount !== full.lineCount) out.push(`line count ${skipping.lineCount} != ${full.lineCount}`);
    let records = false;
    for (const l of full.lines) {
      const got = skipping.read.get(l.line);
      if (l.spelled && got === undefined) out.push(`line ${l.line} skipped`);
      if (got !== undefined && !isDeepStrictEqual(got, l.entry)) out.push(`line ${l.line} read as ${JSON.stringify(got)}`);
      const record = l.type === 'directive' && !l.spelled;
      if (record && got === undefined) records = true;
    }
    // A skipped record must leave the flag up (the parser then reads the records later).
    if (records && !skipping.skippedText) out.push('skipped records not flagged');
    return out;
  }
  it.each([
    ['directives, records, comments and HTML', bytes('<html>\n  <p>user-agent: x</p>\nUser-agent: a\n\t\tDisallow: /x\nCrawl-delay: 4\n# c\nAllow: /y\r\n  sitemap: s\n')],
    ['indentation of every length, mixed and with \\v \\f', bytes('    Disallow: /a\n\t\t\t\tAllow: /b\n \t \t \vUser-agent: c\n\f\f\f\f\fSitemap: d\n        \n\t\t\t\t\n   x: y\n')],
    ['keys cut by a comment or a NUL, or only prefixed', bytes('Disal#low: /x\nUser-agen', [0], 't: y\nDisallowed: /z\nsite-map: m\nAlow: /q\nuseragent foo\nuser agent: bar\nuser agent bar\n')],
    ['a spelled key past the kept part of a line (C28)', bytes(' '.repeat(16_660), 'Disallow: /late\n', ' '.repeat(16_670), 'Allow: /later\nAllow: /kept\n')],
    ['lone CRs, CRLFs and a last line without EOL', bytes('a: 1\rDisallow: /b\r\n\rUser-agent: c\n\r\nAllow: /d')],
  ])('%s, through every window size', (_name, body) => {
    for (const w of [1, 2, 3, 5, 8, 13, 24, 61, TEXT_WINDOW_BYTES]) expect(problems(body, w)).toEqual([]);
  });
  it('on every file of the corpus, through 61-byte, 4 KiB and whole-body windows', () => {
    const differ = loadRobotsSample()
      .filter((f) => [61, 4096, Number.MAX_SAFE_INTEGER].some((w) => problems(f.body, w).length > 0))
      .map((f) => f.host);
    expect(differ).toEqual([]);
  });
});
