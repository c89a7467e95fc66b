/**
 * usage-contradicts-crawl (D-14): AI-training preferences that the crawl rules of the same file
 * contradict for the catalogued AI-training crawlers (src/crawlers/usage-lint.ts).
 */
import { describe, expect, it } from 'vitest';
import { lintAndParse, parseRobotsTxt } from '../../../src/robots/index.js';
import { crawlersIn, lintWithCrawlers, MAX_USAGE_CONTRADICTION_CHECKS, usageContradictions } from '../../../src/crawlers/index.js';

const lines = (body: string) => usageContradictions(parseRobotsTxt(body)).map((d) => `${d.line}:${d.severity}:${d.code}`);
const messages = (body: string) => usageContradictions(parseRobotsTxt(body)).map((d) => d.message);

/** Every AI-training crawler of the catalogue disallowed, by name, but one. */
const allTrainingBlockedBut = (kept: string) =>
  crawlersIn(['ai-training'])
    .filter((c) => c.token !== kept)
    .map((c) => `User-agent: ${c.token}`)
    .join('\n') + '\nDisallow: /\n';

describe('(a) AI training allowed where an AI-training crawler of the group may not fetch', () => {
  it.each([
    ['a blocked crawler told ai-train=yes', 'User-agent: GPTBot\nDisallow: /\nContent-Signal: ai-train=yes\n', ['3:info:usage-contradicts-crawl']],
    ['train-ai=y for a path the group disallows', 'User-agent: CCBot\nDisallow: /archive/\nContent-Usage: / train-ai=n\nContent-Usage: /archive/ train-ai=y\n', ['4:info:usage-contradicts-crawl']],
    ['a wildcard path: its shortest URL is checked', 'User-agent: GPTBot\nDisallow: /*.pdf$\nContent-Usage: /*.pdf$ train-ai=y\n', ['3:info:usage-contradicts-crawl']],
    ['the allowed path is crawlable: nothing', 'User-agent: GPTBot\nDisallow: /private/\nContent-Usage: /blog/ train-ai=y\n', []],
    ['a group no AI-training crawler follows: nothing', 'User-agent: Googlebot\nDisallow: /\nContent-Signal: ai-train=yes\n\nUser-agent: *\nAllow: /\n', []],
    ['ai-train=no where it may not fetch: nothing (D-9 only)', 'User-agent: GPTBot\nDisallow: /\nContent-Signal: ai-train=no\n', []],
    ['search=yes only: nothing', 'User-agent: GPTBot\nDisallow: /\nContent-Signal: search=yes\n', []],
  ])('%s', (_name, body, expected) => {
    expect(lines(body)).toEqual(expected);
  });

  it('names the crawlers, the path and the deciding rule', () => {
    expect(messages('User-agent: GPTBot\nUser-agent: CCBot\nDisallow: /archive/\nContent-Usage: /archive/ train-ai=y\n')).toEqual([
      '"Content-Usage: /archive/ train-ai=y" allows AI training (train-ai=y) for "/archive/", but GPTBot and CCBot, AI-training crawlers that follow this group, ' +
        'may not fetch it (line 3): a preference for a URL a crawler may not fetch is never read (D-9, D-14). Allow the crawl there, or drop the preference.',
    ]);
  });

  it(`stops after ${MAX_USAGE_CONTRADICTION_CHECKS} checks and says where`, () => {
    const body = `User-agent: GPTBot\nDisallow: /\n${Array.from({ length: MAX_USAGE_CONTRADICTION_CHECKS + 5 }, (_, i) => `Content-Usage: /p${i} train-ai=y`).join('\n')}\n`;
    const found = usageContradictions(parseRobotsTxt(body));
    expect(found).toHaveLength(MAX_USAGE_CONTRADICTION_CHECKS + 1);
    expect(found[found.length - 1]).toMatchObject({ line: MAX_USAGE_CONTRADICTION_CHECKS + 3, message: expect.stringMatching(/stopped here: it makes at most 10000 checks/) });
  });
});

// Cloudflare's managed robots.txt (contentsignals.org): `*` refuses AI training, a few crawlers are blocked.
const CLOUDFLARE_MANAGED = `User-Agent: *
Content-Signal: search=yes,ai-train=no
Allow: /

User-agent: GPTBot
Disallow: /

User-agent: ClaudeBot
Allow: /
`;

describe('(b) `*` refuses AI training at the root while AI-training crawlers may crawl it', () => {
  it.each([
    ['Cloudflare managed', CLOUDFLARE_MANAGED, ['2:info:usage-contradicts-crawl']],
    ['Content-Usage form', 'User-agent: *\nAllow: /\nContent-Usage: / train-ai=n\n', ['3:info:usage-contradicts-crawl']],
    ['`*` may not fetch the root: no preference (D-9)', 'User-agent: *\nDisallow: /\nContent-Signal: ai-train=no\n', []],
    ['refused for a part of the site only', 'User-agent: *\nContent-Usage: /private/ train-ai=n\n', []],
    ['every AI-training crawler blocked: nothing', `${allTrainingBlockedBut('')}\nUser-agent: *\nAllow: /\nContent-Signal: ai-train=no\n`, []],
    ['no usage lines', 'User-agent: *\nAllow: /\n', []],
  ])('%s', (_name, body, expected) => {
    expect(lines(body)).toEqual(expected);
  });

  it('says which crawlers follow `*` and which have groups of their own (D-7)', () => {
    const [message] = messages(CLOUDFLARE_MANAGED);
    expect(message).toMatch(/^"Content-Signal: search=yes,ai-train=no" refuses AI training \(ai-train=no\) for every crawler without a group of its own, yet catalogued AI-training crawlers may crawl "\/": /);
    expect(message).toMatch(/ and \d+ more under "\*": the preference asks them not to train, and does not stop the crawl; ClaudeBot under a group of its own, which does not read the preferences of "\*" \(D-7\) \(D-14\)\./);
    expect(message).not.toMatch(/GPTBot/);
  });

  it('one crawler left under `*`', () => {
    const body = `${allTrainingBlockedBut('CCBot')}\nUser-agent: *\nAllow: /\nContent-Signal: ai-train=no\n`;
    expect(messages(body)).toEqual([expect.stringMatching(/may crawl "\/": CCBot under "\*": the preference asks it not to train/)]);
  });
});

describe('lintWithCrawlers: the engine\'s findings and this one, in line order', () => {
  it('adds the finding to lint\'s, from the same parse', () => {
    const body = 'Content-Signal: ai-train=no\nUser-agent: GPTBot\nDisallow: /\nContent-Signal: ai-train=yes\n';
    expect(lintWithCrawlers(lintAndParse(body)).map((d) => `${d.line}:${d.code}`)).toEqual(['1:usage-outside-group', '4:usage-contradicts-crawl']);
  });
  it('leaves a file without usage lines as lint left it', () => {
    const linted = lintAndParse('User-agent: *\nDisallow: /\n');
    expect(lintWithCrawlers(linted)).toBe(linted.diagnostics);
  });
});
