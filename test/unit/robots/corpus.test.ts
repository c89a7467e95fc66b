/**
 * The engine on 3,000 real robots.txt files (test/fixtures/corpus): every body parses, lints and
 * answers checks without throwing, and what it reports holds together. Bodies are Buffers
 * throughout: BOMs, CR-only ends, UTF-16, NULs and HTML pages reach the engine as served.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { lintRobotsTxt, parseRobotsTxt } from '../../../src/robots/index.js';
import type { Diagnostic, RobotsTxt } from '../../../src/robots/index.js';
import { loadRobotsSample, loadUserAgents } from '../../helpers/corpus.js';
import type { SampleFile } from '../../helpers/corpus.js';

/** Googlebot reads the first 500 KiB. */
const GOOGLE_MAX_BYTES = 500 * 1024;
const AGENTS = ['Googlebot', 'GPTBot', '*'];
const PATHS = ['/', '/robots.txt', `/${'section/'.repeat(120)}page.html`, '/search?q=robots+txt&page=2&sort=desc'];

interface Outcome {
  file: SampleFile;
  robots: RobotsTxt;
  diagnostics: Diagnostic[];
}

let outcomes: Outcome[] = [];
const failures: string[] = [];

/** Line of byte `offset`, counting line breaks as Google does: CRLF, CR and LF each end a line (R-20, R1). */
function lineOfByte(body: Buffer, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < body.length; i++) {
    const c = body[i];
    if (c === 0x0a || (c === 0x0d && body[i + 1] !== 0x0a)) line += 1;
  }
  return line;
}

beforeAll(() => {
  outcomes = [];
  for (const file of loadRobotsSample()) {
    try {
      outcomes.push({ file, robots: parseRobotsTxt(file.body), diagnostics: lintRobotsTxt(file.body) });
    } catch (err) {
      failures.push(`${file.host} (${file.id}): ${err instanceof Error ? err.stack : String(err)}`);
    }
  }
});

describe('corpus: every file parses and lints without throwing', () => {
  it('all 3,000 files', () => {
    expect(failures).toEqual([]);
    expect(outcomes).toHaveLength(3000);
  });

  it('counts lines as Google does: every CR, LF or CRLF ends one (R1)', () => {
    const wrong = outcomes.filter((o) => o.robots.lineCount !== lineOfByte(o.file.body, o.file.body.length)).map((o) => o.file.host);
    expect(wrong).toEqual([]);
  });

  it('every diagnostic has a line inside the file and a known severity', () => {
    const wrong = outcomes.flatMap((o) =>
      o.diagnostics.filter((d) => !(d.line >= 1 && d.line <= o.robots.lineCount) || !['error', 'warning', 'info'].includes(d.severity)).map((d) => `${o.file.host}: ${JSON.stringify(d)}`),
    );
    expect(wrong).toEqual([]);
  });
});

describe('corpus: checks answer, and their explanations agree with them', () => {
  it('for Googlebot, GPTBot and * on /, /robots.txt, a long path and a query', () => {
    const problems: string[] = [];
    for (const { file, robots } of outcomes) {
      const ruleKinds = new Map<number, string>();
      for (const g of robots.groups) for (const r of g.rules) ruleKinds.set(r.line, r.kind);
      for (const ua of AGENTS) {
        for (const p of PATHS) {
          const url = `https://${file.host}${p}`;
          try {
            const verdict = robots.check(url, ua);
            const explanation = robots.explain(url, ua);
            const where = `${file.host} ${ua} ${p}`;
            if (robots.isAllowed(url, ua) !== verdict.allowed) problems.push(`${where}: isAllowed differs from check`);
            if (explanation.allowed !== verdict.allowed || explanation.line !== verdict.line) problems.push(`${where}: explain differs from check`);
            if (verdict.line === null) {
              // Nothing matched: allowed by default (R-43, T19).
              if (!verdict.allowed) problems.push(`${where}: disallowed without a deciding line`);
            } else {
              const kind = ruleKinds.get(verdict.line);
              if (kind === undefined) problems.push(`${where}: line ${verdict.line} is not a rule of any group`);
              // An Allow decides for allowed, a Disallow for disallowed (an empty Disallow only allows, T23).
              else if (kind === 'allow' && !verdict.allowed) problems.push(`${where}: allow line ${verdict.line} disallowed`);
              if (explanation.rule?.line !== verdict.line) problems.push(`${where}: explanation names another rule`);
            }
          } catch (err) {
            problems.push(`${file.host} ${ua} ${p}: ${err instanceof Error ? err.message : String(err)}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('for the 50 most relevant crawler tokens on /', () => {
    const tokens = loadUserAgents().slice(0, 50).map((u) => u.token);
    let disallowed = 0;
    for (const { file, robots } of outcomes) {
      for (const ua of tokens) if (!robots.check(`https://${file.host}/`, ua).allowed) disallowed += 1;
    }
    // Real files do shut some crawlers out of the whole site (GPTBot, CCBot, ...).
    expect(disallowed).toBeGreaterThan(0);
  });
});

describe('corpus: sanity by kind and tag', () => {
  it('empty and comment-only files have no groups and allow everything (T1)', () => {
    const files = outcomes.filter((o) => o.file.kind === 'empty' || o.file.kind === 'comments');
    expect(files.length).toBe(15);
    for (const { file, robots } of files) {
      expect(robots.groups, file.host).toEqual([]);
      expect(robots.check(`https://${file.host}/private/`, 'Googlebot'), file.host).toEqual({ allowed: true, line: null });
    }
  });

  it('a UTF-8 BOM at byte 0 does not break the first line (R-22, T45)', () => {
    const firstLines = outcomes.filter((o) => o.file.tags.includes('bom') && o.file.body.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])));
    let checked = 0;
    for (const { file, robots } of firstLines) {
      const first = file.body.subarray(3, 60).toString('latin1');
      if (/^[ \t]*user-agent[ \t]*:/i.test(first)) {
        expect(robots.groups[0]?.userAgents[0]?.line, file.host).toBe(1);
        expect(robots.groups[0]?.userAgents[0]?.value, file.host).not.toMatch(/\uFEFF|ï»¿/);
        checked += 1;
      } else if (/^[ \t]*sitemap[ \t]*:/i.test(first)) {
        expect(robots.sitemaps[0]?.line, file.host).toBe(1);
        expect(robots.sitemaps[0]?.url, file.host).toMatch(/^https?:\/\//);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('files over 500 KiB get a beyond-size-limit diagnostic on the line of the cut (R-18)', () => {
    const big = outcomes.filter((o) => o.file.tags.includes('largest-over-500KiB'));
    expect(big.map((o) => o.file.host).sort()).toEqual(['docs.oracle.com', 'www.efahrer.com', 'www.hermes.com', 'www.szon.de', 'www.tv14.de']);
    for (const { file, diagnostics } of big) {
      const cut = diagnostics.filter((d) => d.code === 'beyond-size-limit');
      expect(cut.map((d) => d.line), file.host).toEqual([lineOfByte(file.body, GOOGLE_MAX_BYTES)]);
    }
    const underLimit = outcomes.filter((o) => o.file.bytes <= GOOGLE_MAX_BYTES && o.diagnostics.some((d) => d.code === 'beyond-size-limit'));
    expect(underLimit.map((o) => o.file.host)).toEqual([]);
  });

  it('docs.oracle.com (852,930 bytes) keeps its rules past the cut: the parser reads what it is given (D-6)', () => {
    const oracle = outcomes.find((o) => o.file.host === 'docs.oracle.com')!;
    const cutLine = lineOfByte(oracle.file.body, GOOGLE_MAX_BYTES);
    const lastRule = Math.max(...oracle.robots.groups.flatMap((g) => g.rules.map((r) => r.line)));
    expect(lastRule).toBeGreaterThan(cutLine);
  });

  it('HTML pages get html-body (R-21)', () => {
    // Only pages that look like markup from their first byte; one page of the sample starts
    // with bare text (a template whose tags were stripped) and is not detectable as HTML.
    const pages = outcomes.filter((o) => o.file.kind === 'html' && /^(\uFEFF|ï»¿)?\s*</.test(o.file.body.subarray(0, 200).toString('latin1')));
    expect(pages.length).toBeGreaterThan(190);
    const missed = pages.filter((o) => !o.diagnostics.some((d) => d.code === 'html-body' && d.severity === 'error')).map((o) => o.file.host);
    expect(missed).toEqual([]);
  });

  it('html-body is not reported for robots files without markup', () => {
    const flagged = outcomes.filter((o) => o.file.kind !== 'html' && o.diagnostics.some((d) => d.code === 'html-body'));
    const withoutMarkup = flagged.filter((o) => !/<(!doctype|html|head|body|script|iframe|div|meta)\b/i.test(o.file.body.toString('latin1'))).map((o) => o.file.host);
    expect(withoutMarkup).toEqual([]);
  });

  it('UTF-16 files are reported, since Google sees NULs and reads no directive (R-20, C20)', () => {
    const utf16 = outcomes.filter((o) => o.file.tags.includes('utf16'));
    expect(utf16.map((o) => o.file.host).sort()).toEqual(['store.usps.com', 'www.myvue.com']);
    for (const { file, robots, diagnostics } of utf16) {
      expect(diagnostics.some((d) => d.code === 'utf16-body' && d.severity === 'error'), file.host).toBe(true);
      expect(robots.groups, file.host).toEqual([]);
    }
  });
});
