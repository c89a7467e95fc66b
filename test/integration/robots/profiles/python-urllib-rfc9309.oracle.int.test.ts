/**
 * Profile `python-urllib-rfc9309` against the real module: CPython's RFC 9309 urllib.robotparser
 * (python/cpython 055a953f) with the urllib.parse it needs, run on Debian 12's /usr/bin/python3 by
 * test/fixtures/parser-oracle/oracle.py from the copies in test/fixtures/parser-oracle/cpython-rfc9309
 * (PROVENANCE.md). 100% agreement required; the counts are in docs/crawlers.md.
 */
import { describe, it } from 'vitest';
import { corpusCaseFiles, generatedCaseFiles, urlVariantFiles } from '../../../helpers/profile-cases.js';
import { expectPythonOracleAgrees } from '../../../helpers/parser-oracle.js';

describe('python-urllib-rfc9309 agrees with the RFC 9309 urllib.robotparser of CPython 055a953f', () => {
  it.each([
    ['the corpus sample (3,000 real files)', () => corpusCaseFiles(12)],
    ['generated edge-case files', () => generatedCaseFiles(2_000, 12)],
    ['URL variants (ports, case, relative, fragments, escapes, empty and doubled paths)', () => urlVariantFiles(corpusCaseFiles(4, 7))],
  ])('on %s', (_name, make) => expectPythonOracleAgrees('python-urllib-rfc9309', make()));
});
