/**
 * Profile `node-robots-parser` against npm robots-parser 3.0.1 itself, called in-process under the
 * profile's contract (robots.txt URL at the checked URL's origin, body as fetch's text()).
 * Verdict and deciding line must agree on every case (issue 19, "Done when"); counts in docs/crawlers.md.
 */
import { describe, expect, it } from 'vitest';
import { parseForProfile } from '../../../../src/robots/profiles/index.js';
import { corpusCaseFiles, generatedCaseFiles, urlVariantFiles, type ProfileCaseFile } from '../../../helpers/profile-cases.js';
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
