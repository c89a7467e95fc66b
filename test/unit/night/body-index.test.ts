/**
 * indexBody asks only the crawlers a file names or whose crawler rules choose another group:
 * every other crawler follows `*`. Checked against asking every catalogued crawler as it
 * decides (explainAsCrawler), on every robots file of the corpus sample.
 */
import { describe, expect, it } from 'vitest';
import { catalogue } from '../../../src/crawlers/index.js';
import { parseRobotsTxt } from '../../../src/robots/index.js';
import { explainAsCrawler } from '../../../src/crawlers/index.js';
import { indexBody } from '../../../src/night/body-index.js';
import { loadRobotsSample } from '../../helpers/corpus.js';

const ROOT = 'https://robots-audit.invalid/';
const TOKENS = catalogue().map((e) => e.token);

/** The answer of every crawler, asked one by one: the rows indexBody must keep. */
function askEveryCrawler(body: Buffer): { token: string; allowed: boolean; ruleLine: number | null }[] {
  const robots = parseRobotsTxt(body);
  const ask = (agent: string) => {
    const e = explainAsCrawler(robots, ROOT, agent);
    return { allowed: e.allowed, ruleLine: e.rule?.line ?? null };
  };
  const star = ask('*');
  const rows = [{ token: '*', ...star }];
  for (const token of new Set(TOKENS.map((t) => t.toLowerCase()))) {
    const own = ask(token);
    if (own.allowed !== star.allowed || own.ruleLine !== star.ruleLine) rows.push({ token, ...own });
  }
  return rows;
}

describe('indexBody: root access per crawler', () => {
  it('equals asking every catalogued crawler, on every robots file of the sample', () => {
    const files = loadRobotsSample().filter((f) => f.kind === 'robots');
    expect(files.length).toBeGreaterThan(500);
    let withExceptions = 0;
    for (const file of files) {
      const expected = askEveryCrawler(file.body);
      const { access } = indexBody(parseRobotsTxt(file.body), TOKENS);
      expect(access, file.host).toEqual(expected);
      if (expected.length > 1) withExceptions++;
    }
    // The sample has files that treat AI crawlers differently: the comparison is not vacuous.
    expect(withExceptions).toBeGreaterThan(50);
  });

  it.each([
    ['no group: everyone allowed, one row', 'Sitemap: https://a.example/s.xml\n', [{ token: '*', allowed: true, ruleLine: null }]],
    [
      'GPTBot named, Googlebot-Image and Applebot follow googlebot (R-42, Apple)',
      'User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n\nUser-agent: googlebot\nDisallow: /\n',
      [
        { token: '*', allowed: true, ruleLine: 2 },
        { token: 'gptbot', allowed: false, ruleLine: 5 },
        { token: 'googlebot', allowed: false, ruleLine: 8 },
        { token: 'googlebot-image', allowed: false, ruleLine: 8 },
        // It ignores `*`: allowed as * is, but by no rule.
        { token: 'adsbot-google', allowed: true, ruleLine: null },
        { token: 'applebot', allowed: false, ruleLine: 8 },
      ],
    ],
    [
      "AdsBot-Google ignores * (Google's special-case crawlers): allowed where * is not",
      'User-agent: *\nDisallow: /\n',
      [
        { token: '*', allowed: false, ruleLine: 2 },
        { token: 'adsbot-google', allowed: true, ruleLine: null },
      ],
    ],
    [
      'Applebot follows the Googlebot group when none names Applebot',
      'User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nAllow: /\n',
      [
        { token: '*', allowed: false, ruleLine: 2 },
        { token: 'googlebot', allowed: true, ruleLine: 5 },
        { token: 'googlebot-image', allowed: true, ruleLine: 5 },
        { token: 'adsbot-google', allowed: true, ruleLine: null },
        { token: 'applebot', allowed: true, ruleLine: 5 },
      ],
    ],
  ])('%s', (_name, text, expected) => {
    const { access } = indexBody(parseRobotsTxt(text), ['GPTBot', 'googlebot', 'Googlebot-Image', 'CCBot', 'AdsBot-Google', 'Applebot']);
    expect(access).toEqual(expected);
  });
});
