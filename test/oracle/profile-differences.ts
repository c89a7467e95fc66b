/**
 * On the oracle's corpus questions (test/helpers/profile-cases.ts `corpusCaseFiles(12)`: the
 * corpus sample's files, 12 questions each, the same 36,000 the oracle tests ask), how many each
 * pair of parser profiles answers differently (an error counts as an answer of its own). The
 * figures docs/crawlers.md gives ("Profiles by version"). Not a test: it prints a table.
 *
 *   npx tsx test/oracle/profile-differences.ts
 */
import { parseForProfile, PARSER_PROFILES } from '../../src/robots/profiles/index.js';
import type { ParserProfileName } from '../../src/robots/profiles/index.js';
import { profileAnswers } from '../helpers/parser-oracle.js';
import { corpusCaseFiles } from '../helpers/profile-cases.js';

const PAIRS: [ParserProfileName, ParserProfileName][] = [
  ['python-urllib', 'python-urllib-rfc9309'],
  ['google', 'python-urllib'],
  ['google', 'python-urllib-rfc9309'],
  ['scrapy-protego', 'scrapy-protego-0.7'],
  ['google', 'scrapy-protego'],
  ['google', 'scrapy-protego-0.7'],
];

const files = corpusCaseFiles(12);
const answers = new Map(PARSER_PROFILES.filter((p) => PAIRS.some((pair) => pair.includes(p))).map((p) => [p, profileAnswers(files, (body) => parseForProfile(p, body)).flat()]));
const questions = files.reduce((n, f) => n + f.cases.length, 0);
console.log(`${questions} questions on ${files.length} corpus files`);
for (const [a, b] of PAIRS) {
  const x = answers.get(a)!;
  const y = answers.get(b)!;
  const differ = x.filter((v, i) => v !== y[i]).length;
  console.log(`${a} vs ${b}: ${differ} differ (${((100 * differ) / questions).toFixed(1)}%)`);
}
