/**
 * Profile `python-urllib-rfc9309` against the real module: CPython 3.13.18's urllib/robotparser.py
 * (the RFC 9309 rewrite) with the urllib/parse.py of the same release, from Debian sid's
 * libpython3.13-minimal 3.13.18-1, run on Debian 12's /usr/bin/python3 by
 * test/fixtures/parser-oracle/oracle.py. The package is unpacked by test/oracle/debian-oracles.sh
 * (.ci/run calls it); without it the oracle exits saying so and this test fails. 100% agreement
 * required; the counts are in docs/crawlers.md.
 */
import { describe, it } from 'vitest';
import { corpusCaseFiles, generatedCaseFiles, urlVariantFiles } from '../../../helpers/profile-cases.js';
import { expectPythonOracleAgrees } from '../../../helpers/parser-oracle.js';

describe('python-urllib-rfc9309 agrees with urllib.robotparser of CPython 3.13.18 (Debian sid libpython3.13-minimal 3.13.18-1)', () => {
  it.each([
    ['the corpus sample (3,000 real files)', () => corpusCaseFiles(12)],
    ['generated edge-case files', () => generatedCaseFiles(2_000, 12)],
    ['URL variants (ports, case, relative, fragments, escapes, empty and doubled paths)', () => urlVariantFiles(corpusCaseFiles(4, 7))],
  ])('on %s', (_name, make) => expectPythonOracleAgrees('python-urllib-rfc9309', make()));
});
