/**
 * `eval` keeps the behaviour of Google's library (the exact token, then `*`): the crawler rules
 * that `check`, `explain` and the nightly verdicts apply (docs/crawlers.md) are not the engine's
 * contract, which is verified against the library itself.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

/** R-42's example: groups googlebot-news, *, googlebot. */
const SPEC_EXAMPLE = 'User-agent: googlebot-news\nDisallow: /news-only\n\nUser-agent: *\nDisallow: /star-only\n\nUser-agent: googlebot\nDisallow: /googlebot-only\n';

describe('eval answers as Google\'s library does, check as the crawler does', () => {
  it.each([
    ['Googlebot-Image on R-42\'s example: the library reads *, the crawler the googlebot group', SPEC_EXAMPLE, 'Googlebot-Image', '/star-only', { allowed: false, line: 5 }, true],
    ['AdsBot-Google under * / Disallow: /: the library reads *, the crawler ignores it', 'User-agent: *\nDisallow: /\n', 'AdsBot-Google', '/', { allowed: false, line: 2 }, true],
    ['Applebot with a Googlebot group: the library reads *, the crawler the Googlebot group', 'User-agent: Googlebot\nAllow: /\n\nUser-agent: *\nDisallow: /\n', 'Applebot', '/x', { allowed: false, line: 5 }, true],
  ])('%s', async (_name, robots, ua, path, evalAnswer, checkAllowed) => {
    const url = `https://example.com${path}`;
    const evaluated = await runCli(['eval'], { stdin: `${JSON.stringify({ robots, ua, url })}\n` });
    expect(JSON.parse(evaluated.stdout)).toEqual(evalAnswer);
    const checked = await runCli(['check', '--robots', '-', '--ua', ua, '--json', url], { stdin: robots });
    expect((JSON.parse(checked.stdout) as { allowed: boolean }).allowed).toBe(checkAllowed);
  });
});
