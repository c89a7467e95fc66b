/** `check --profile <name>`: the verdict another parser library gives (issue 19, item 3). */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

const EXAMPLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/examples/robots.txt');

describe('check --profile', () => {
  it.each([
    // The example's Googlebot group: Disallow: /private/ (line 5), Allow: /private/press-kit/ (line 6).
    ['google', 'allowed     https://example.com/private/press-kit/logo.png  (line 6: Allow: /private/press-kit/ in group User-agent: Googlebot)'],
    // urllib: the first matching rule in file order decides, not the longest.
    ['python-urllib', 'disallowed  https://example.com/private/press-kit/logo.png  (python-urllib, Python 3.11.2 (Debian 12), the classic module (before RFC 9309); the library names no line)'],
    ['scrapy-protego', 'allowed     https://example.com/private/press-kit/logo.png  (scrapy-protego, Protego 0.2.1 (Debian 12 python3-protego), Scrapy 2.8; the library names no line)'],
    ['node-robots-parser', 'allowed     https://example.com/private/press-kit/logo.png  (node-robots-parser, robots-parser 3.0.1; line 6)'],
  ])('%s', async (profile, line) => {
    const run = await runCli(['check', '--robots', EXAMPLE, '--ua', 'Googlebot', '--profile', profile, 'https://example.com/private/press-kit/logo.png']);
    expect(run.stdout).toBe(`${line}\n`);
    expect(run.code).toBe(0);
  });

  it('says when a profile is assumed (crawler-commons: built from its documentation, not run)', async () => {
    const run = await runCli(['check', '--robots', EXAMPLE, '--ua', 'CCBot', '--profile', 'crawler-commons', 'https://example.com/a']);
    expect(run.stdout).toMatch(/^disallowed {2}https:\/\/example\.com\/a {2}\(crawler-commons, crawler-commons 1\.4\+ .*, assumed; the library names no line\)\n$/);
  });

  it('writes JSON Lines with the profile and its basis', async () => {
    const run = await runCli(['check', '--robots', EXAMPLE, '--ua', 'GPTBot', '--profile', 'python-urllib', '--json', 'example.com/a']);
    expect(JSON.parse(run.stdout)).toEqual({ input: 'example.com/a', url: 'https://example.com/a', ua: 'GPTBot', profile: 'python-urllib', basis: 'exact', allowed: false, line: null });
  });

  it('shows control bytes it was given as visible markers, as check does (never raw to the terminal)', async () => {
    const run = await runCli(['check', '--robots', EXAMPLE, '--ua', 'GPTBot', '--ua', 'x\u001b[2J', '--profile', 'python-urllib', 'https://example.com/a', 'https://exa\u0007mple.com:99999/']);
    expect(run.stdout.includes('\u0007') || run.stdout.includes('\u001b')).toBe(false);
    expect(run.stdout).toContain('x<U+001B>[2J');
  });

  it('refuses an unknown profile', async () => {
    const run = await runCli(['check', '--robots', EXAMPLE, '--ua', 'GPTBot', '--profile', 'perl', 'https://example.com/']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/Allowed choices are google, python-urllib/);
  });
});
