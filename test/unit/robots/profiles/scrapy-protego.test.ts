/**
 * Profile `scrapy-protego`: behaviours of Protego 0.2.1 under Scrapy 2.8 that differ from
 * Google's parser, each as a case (read from protego.py and scrapy/robotstxt.py, confirmed by
 * the oracle test, test/integration/robots/profiles/scrapy-protego.oracle.int.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { profileVerdict } from '../../../../src/robots/profiles/index.js';

const text = (s: string) => new TextEncoder().encode(s);

describe('scrapy-protego', () => {
  it.each([
    // [why, robots.txt, url, token, allowed]
    ['wildcards and $ are read', 'User-agent: *\nDisallow: /*.pdf$\n', 'https://e.com/files/a.pdf', 'GPTBot', false],
    ['agents match as substrings: the longest wins', 'User-agent: bot\nDisallow: /\n\nUser-agent: gptbot\nDisallow: /a\n', 'https://e.com/x', 'GPTBot', true],
    ['an empty line does not end a group', 'User-agent: GPTBot\n\nDisallow: /\n', 'https://e.com/x', 'GPTBot', false],
    ['a misspelt Disallow counts', 'User-agent: *\nDissallow: /\n', 'https://e.com/x', 'GPTBot', false],
    ['allowing /dir/index.html allows /dir/', 'User-agent: *\nDisallow: /dir/\nAllow: /dir/index.html\n', 'https://e.com/dir/', 'GPTBot', true],
    ['a BOM makes the first user-agent line unreadable', '\ufeffUser-agent: *\nDisallow: /\n', 'https://e.com/x', 'GPTBot', true],
  ])('%s', (_why, body, url, token, allowed) => {
    expect(profileVerdict('scrapy-protego', text(body), url, token)).toEqual({ allowed });
  });

  it('reads a body that is not UTF-8 as empty, as Scrapy does: everything allowed', () => {
    const latin1 = Uint8Array.from([...text('User-agent: *\nDisallow: /caf'), 0xe9, 0x0a, ...text('Disallow: /\n')]);
    expect(profileVerdict('scrapy-protego', latin1, 'https://e.com/x', 'GPTBot')).toEqual({ allowed: true });
    expect(profileVerdict('google', latin1, 'https://e.com/x', 'GPTBot').allowed).toBe(false);
  });
});
