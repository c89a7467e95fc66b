/**
 * Profile `python-urllib` against the real library: Debian 12's /usr/bin/python3 (3.11.2)
 * urllib.robotparser, called by test/fixtures/parser-oracle/oracle.py. 100% agreement required
 * (issue 19, "Done when"); the counts are in docs/crawlers.md.
 */
import { describe, it } from 'vitest';
import { corpusCaseFiles, generatedCaseFiles, urlVariantFiles } from '../../../helpers/profile-cases.js';
import { expectPythonOracleAgrees } from '../../../helpers/parser-oracle.js';

describe('python-urllib agrees with CPython 3.11 urllib.robotparser', () => {
  it.each([
    ['the corpus sample (3,000 real files)', () => corpusCaseFiles(12)],
    ['generated edge-case files', () => generatedCaseFiles(2_000, 12)],
    ['URL variants (ports, case, relative, fragments, escapes, empty and doubled paths)', () => urlVariantFiles(corpusCaseFiles(4, 7))],
  ])('on %s', (_name, make) => expectPythonOracleAgrees('python-urllib', make()));
});
