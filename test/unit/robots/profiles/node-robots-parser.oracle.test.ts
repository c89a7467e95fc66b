/**
 * Profile `node-robots-parser` against npm robots-parser 3.0.1 itself, called in-process under the
 * profile's contract (robots.txt URL at the checked URL's origin, body as fetch's text()).
 * Verdict and deciding line must agree on every case (issue 19, "Done when"); counts in docs/crawlers.md.
 */
import { describe, expect, it } from 'vitest';
import { parseForProfile } from '../../../../src/robots/profiles/index.js';
import { corpusCaseFiles, generatedCaseFiles, type ProfileCaseFile } from '../../../helpers/profile-cases.js';
import { robotsParserLibraryAnswers as libraryAnswers } from '../../../helpers/parser-oracle.js';

type Answer = string;

function profileAnswers(f: ProfileCaseFile): Answer[] {
  const parsed = parseForProfile('node-robots-parser', f.body);
  return f.cases.map(([url, token]) => {
    try {
      const v = parsed.check(url, token);
      return `${v.allowed} ${v.line ?? '-'}`;
    } catch {
      return 'error';
    }
  });
}

/** Extra URLs the contract must survive: ports, case, escapes, odd schemes, relative paths. */
function urlVariantFiles(files: readonly ProfileCaseFile[]): ProfileCaseFile[] {
  const variants = (url: string) => [url.replace('https://example.com', 'http://example.com:8080'), url.replace('https://example.com', 'HTTPS://EXAMPLE.com:443'), url.replace('https://example.com', ''), `${url}#frag`, url.replace(/a/g, '%61')];
  return files.slice(0, 500).map((f) => ({ ...f, name: `${f.name} (URL variants)`, cases: f.cases.slice(0, 4).flatMap(([u, t]) => variants(u).map((v) => [v, t] as [string, string])) }));
}

describe('node-robots-parser agrees with npm robots-parser 3.0.1', () => {
  it.each([
    ['the corpus sample (3,000 real files)', () => corpusCaseFiles(12)],
    ['generated edge-case files', () => generatedCaseFiles(2_000, 12)],
    ['URL variants', () => urlVariantFiles(corpusCaseFiles(4, 7))],
  ])('on %s', (_name, make) => {
    const files = make();
    const mismatches: unknown[] = [];
    let cases = 0;
    for (const f of files) {
      const lib = libraryAnswers(f);
      const ours = profileAnswers(f);
      cases += lib.length;
      lib.forEach((a, i) => {
        if (a !== ours[i] && mismatches.length < 10) mismatches.push({ file: f.name, url: f.cases[i]![0], token: f.cases[i]![1], library: a, profile: ours[i] });
      });
    }
    console.info(`node-robots-parser oracle: ${cases} cases`);
    expect(mismatches).toEqual([]);
    expect(cases).toBeGreaterThanOrEqual(10_000);
  });
});
