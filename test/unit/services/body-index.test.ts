/**
 * indexBody asks only the crawlers a file names: every other crawler follows `*`. Checked
 * against asking every catalogued crawler, on every robots file of the corpus sample.
 */
import { describe, expect, it } from 'vitest';
import { catalogue } from '../../../src/crawlers/index.js';
import { followedAgent, parseRobotsTxt } from '../../../src/robots/index.js';
import { indexBody } from '../../../src/services/body-index.js';
import { loadRobotsSample } from '../../helpers/corpus.js';

const ROOT = 'https://robots-audit.invalid/';
const TOKENS = catalogue().map((e) => e.token);

/** The answer of every crawler, asked one by one: the rows indexBody must keep. */
function askEveryCrawler(body: Buffer): { token: string; allowed: boolean; ruleLine: number | null }[] {
  const robots = parseRobotsTxt(body);
  const ask = (agent: string) => {
    const e = robots.explain(ROOT, agent);
    return { allowed: e.allowed, ruleLine: e.rule?.line ?? null };
  };
  const star = ask('*');
  const rows = [{ token: '*', ...star }];
  for (const token of new Set(TOKENS.map((t) => t.toLowerCase()))) {
    const own = ask(followedAgent(robots, token));
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
      'GPTBot named, Googlebot-Image follows googlebot (R-42)',
      'User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n\nUser-agent: googlebot\nDisallow: /\n',
      [
        { token: '*', allowed: true, ruleLine: 2 },
        { token: 'gptbot', allowed: false, ruleLine: 5 },
        { token: 'googlebot', allowed: false, ruleLine: 8 },
        { token: 'googlebot-image', allowed: false, ruleLine: 8 },
      ],
    ],
  ])('%s', (_name, text, expected) => {
    const { access } = indexBody(parseRobotsTxt(text), ['GPTBot', 'googlebot', 'Googlebot-Image', 'CCBot']);
    expect(access).toEqual(expected);
  });
});
