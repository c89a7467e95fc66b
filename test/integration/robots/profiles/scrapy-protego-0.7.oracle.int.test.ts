/**
 * Profile `scrapy-protego-0.7` against the real library: Protego 0.7.0 from Debian sid's
 * python3-protego 0.7.0+dfsg-1 (with CPython 3.13.18's urllib.parse), called as Scrapy 2.14's
 * ProtegoRobotParser calls it, by test/fixtures/parser-oracle/oracle.py on Debian 12's
 * /usr/bin/python3. The packages are unpacked by test/oracle/debian-oracles.sh (.ci/run calls it);
 * without them the oracle exits saying so and this test fails. 100% agreement required; the
 * counts are in docs/crawlers.md.
 */
import { describe, it } from 'vitest';
import { corpusCaseFiles, generatedCaseFiles, urlVariantFiles } from '../../../helpers/profile-cases.js';
import { expectPythonOracleAgrees } from '../../../helpers/parser-oracle.js';

describe('scrapy-protego-0.7 agrees with Protego 0.7.0 as Scrapy 2.14 calls it', () => {
  it.each([
    ['the corpus sample (3,000 real files)', () => corpusCaseFiles(12)],
    ['generated edge-case files', () => generatedCaseFiles(2_000, 12)],
    ['URL variants (ports, case, relative, fragments, escapes, empty and doubled paths)', () => urlVariantFiles(corpusCaseFiles(4, 7))],
  ])('on %s', (_name, make) => expectPythonOracleAgrees('scrapy-protego-0.7', make()));
});
