import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

const EXAMPLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/examples/robots.txt');

describe('check: the README command', () => {
  it('names the deciding line of the Googlebot group', async () => {
    const run = await runCli(['check', '--robots', EXAMPLE, '--ua', 'Googlebot', 'https://example.com/private/page']);
    expect(run).toEqual({
      code: 0,
      stdout: 'disallowed  https://example.com/private/page  (line 5: Disallow: /private/ in group User-agent: Googlebot)\n',
      stderr: '',
    });
  });
});

describe('check: one line per URL, verdict and reason', () => {
  it.each([
    ['a longer Allow wins (R-56)', 'Googlebot', 'https://example.com/private/press-kit/logo.png', 'allowed     https://example.com/private/press-kit/logo.png  (line 6: Allow: /private/press-kit/ in group User-agent: Googlebot)'],
    ['no rule matched in the named group', 'Googlebot', 'https://example.com/blog/', 'allowed     https://example.com/blog/  (no rule matched; group: Googlebot)'],
    ['an agent without a group follows * (R-42)', 'Bingbot', 'https://example.com/tmp/x', 'disallowed  https://example.com/tmp/x  (line 15: Disallow: /tmp/ in group User-agent: *)'],
    ['nothing matched in the * group', 'Bingbot', 'https://example.com/', 'allowed     https://example.com/  (no rule matched; group: *)'],
    ['consecutive user-agent lines share a group (R-31)', 'CCBot', 'https://example.com/', 'disallowed  https://example.com/  (line 11: Disallow: / in group User-agent: GPTBot, CCBot)'],
    ['agent tokens match case-insensitively (R-41)', 'gptbot', 'https://example.com/a', 'disallowed  https://example.com/a  (line 11: Disallow: / in group User-agent: GPTBot, CCBot)'],
    ['a wildcard rule matches the query', 'Googlebot', 'https://example.com/a?sessionid=1', 'disallowed  https://example.com/a?sessionid=1  (line 7: Disallow: /*?sessionid= in group User-agent: Googlebot)'],
  ])('%s', async (_name, ua, url, line) => {
    const run = await runCli(['check', '--robots', EXAMPLE, '--ua', ua, url]);
    expect(run.stdout).toBe(`${line}\n`);
    expect(run.code).toBe(0);
  });

  it('evaluates several URLs in order', async () => {
    const run = await runCli(['check', '--robots', EXAMPLE, '--ua', 'Googlebot', 'https://example.com/private/a', 'https://example.com/b']);
    expect(run.stdout.split('\n').map((l) => l.split(/\s+/)[0])).toEqual(['disallowed', 'allowed', '']);
  });

  it('says when no group applies (R-43)', async () => {
    const run = await runCli(['check', '--robots', '-', '--ua', 'Bingbot', 'https://example.com/x'], { stdin: 'User-agent: FooBot\nDisallow: /\n' });
    expect(run.stdout).toBe('allowed     https://example.com/x  (no rule matched; no group applies to Bingbot)\n');
  });

  it('shows the index.html rule when it decides (C8)', async () => {
    const run = await runCli(['check', '--robots', '-', '--ua', 'x', 'https://example.com/dir/'], { stdin: 'User-agent: *\nDisallow: /dir/\nAllow: /dir/index.html\n' });
    expect(run.stdout).toBe('allowed     https://example.com/dir/  (line 3: Allow: /dir/index.html, read as /dir/$ (index.html rule) in group User-agent: *)\n');
  });
});

describe('check: URLs are canonicalised first (D-5)', () => {
  it.each([
    ['host case and fragment', 'https://EXAMPLE.com/private/page#top', 'https://example.com/private/page', 'disallowed'],
    ['a bare host is read as https', 'example.com/private/page', 'https://example.com/private/page', 'disallowed'],
    ['dot segments are resolved', 'https://example.com/public/../private/page', 'https://example.com/private/page', 'disallowed'],
  ])('%s', async (_name, input, evaluated, verdict) => {
    const run = await runCli(['check', '--robots', EXAMPLE, '--ua', 'Googlebot', input]);
    expect(run.stdout).toMatch(new RegExp(`^${verdict} +${evaluated.replace(/[.?]/g, '\\$&')}  \\(`));
  });

  it('percent-encodes non-ASCII so that it meets the rule\'s encoding (R-53)', async () => {
    const robots = 'User-agent: *\nDisallow: /café\n';
    const run = await runCli(['check', '--robots', '-', '--ua', 'x', 'https://example.com/café/menu'], { stdin: robots });
    expect(run.stdout).toBe('disallowed  https://example.com/caf%C3%A9/menu  (line 2: Disallow: /café in group User-agent: *)\n');
  });
});

describe('check: input', () => {
  it('reads the robots.txt as bytes from standard input: BOM and CRLF (R-20, R-22)', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('User-agent: *\r\nDisallow: /x\r\n')]);
    const run = await runCli(['check', '--robots', '-', '--ua', 'x', 'https://example.com/x/y'], { stdin: body });
    expect(run.stdout).toBe('disallowed  https://example.com/x/y  (line 2: Disallow: /x in group User-agent: *)\n');
  });

  it('fails with exit code 2 when the file cannot be read', async () => {
    const run = await runCli(['check', '--robots', '/nonexistent/robots.txt', '--ua', 'x', 'https://example.com/']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/cannot read \/nonexistent\/robots\.txt: no such file/);
    expect(run.stdout).toBe('');
  });

  it('requires --ua', async () => {
    const run = await runCli(['check', '--robots', EXAMPLE, 'https://example.com/']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/--ua/);
  });

  it('requires --robots', async () => {
    const run = await runCli(['check', '--ua', 'x', 'https://example.com/']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/--robots/);
  });
});

describe('check: a bad URL', () => {
  it('prints an error line for it, evaluates the others, and exits 2', async () => {
    const run = await runCli(['check', '--robots', EXAMPLE, '--ua', 'Googlebot', 'https://example.com/private/a', 'http://exa mple.com/', 'https://', 'https://example.com/b']);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      'disallowed  https://example.com/private/a  (line 5: Disallow: /private/ in group User-agent: Googlebot)',
      'error       http://exa mple.com/  (invalid URL "http://exa mple.com/": not a URL)',
      'error       https://  (invalid URL "https://": not a URL)',
      'allowed     https://example.com/b  (no rule matched; group: Googlebot)',
    ]);
    expect(run.code).toBe(2);
  });
});

describe('check: several agents', () => {
  it('prints one line per URL and agent, with the agent', async () => {
    const run = await runCli(['check', '--robots', EXAMPLE, '--ua', 'Googlebot', '--ua', 'GPTBot', 'https://example.com/blog/']);
    expect(run.stdout).toBe(
      'allowed     Googlebot  https://example.com/blog/  (no rule matched; group: Googlebot)\n' +
        'disallowed  GPTBot  https://example.com/blog/  (line 11: Disallow: / in group User-agent: GPTBot, CCBot)\n',
    );
  });
});

describe('check --json', () => {
  it('writes one JSON object per URL and agent', async () => {
    const run = await runCli(['check', '--robots', EXAMPLE, '--ua', 'Googlebot', '--json', 'https://example.com/private/page#x', 'bad url']);
    const [first, second] = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(first).toMatchObject({
      input: 'https://example.com/private/page#x',
      url: 'https://example.com/private/page',
      ua: 'Googlebot',
      allowed: false,
      line: 5,
      path: '/private/page',
      group: { kind: 'named', userAgents: [{ value: 'Googlebot', line: 4 }] },
      rule: { kind: 'disallow', value: '/private/', pattern: '/private/', line: 5 },
    });
    expect(second).toEqual({ input: 'bad url', error: expect.stringMatching(/invalid URL/) });
    expect(run.code).toBe(2);
  });

  it('gives null rule and line when nothing matched', async () => {
    const run = await runCli(['check', '--robots', EXAMPLE, '--ua', 'Bingbot', '--json', 'https://example.com/']);
    expect(JSON.parse(run.stdout)).toMatchObject({ allowed: true, line: null, rule: null, group: { kind: 'global' } });
  });
});

describe('check answers as the named crawler does (crawler rules, docs/crawlers.md)', () => {
  /** R-42's example: groups googlebot-news (line 1), * (line 4), googlebot (line 7). */
  const SPEC_EXAMPLE = 'User-agent: googlebot-news\nDisallow: /news-only\n\nUser-agent: *\nDisallow: /star-only\n\nUser-agent: googlebot\nDisallow: /googlebot-only\n';
  const SPECIAL = 'https://developers.google.com/crawling/docs/crawlers-fetchers/google-special-case-crawlers';
  const APPLE = 'https://support.apple.com/en-us/119829';
  it.each([
    [
      'R-42: Googlebot-Image follows the googlebot group, not *',
      SPEC_EXAMPLE,
      'Googlebot-Image',
      'https://example.com/googlebot-only',
      `disallowed  https://example.com/googlebot-only  (line 8: Disallow: /googlebot-only in group User-agent: googlebot; Googlebot-Image follows the Googlebot group when none names Googlebot-Image (https://developers.google.com/crawling/docs/robots-txt/robots-txt-spec#order-of-precedence-for-user-agents))`,
    ],
    ['R-42: the * group does not hold Googlebot-Image', SPEC_EXAMPLE, 'Googlebot-Image', 'https://example.com/star-only', 'allowed     https://example.com/star-only  (no rule matched; group: googlebot; Googlebot-Image follows the Googlebot group when none names Googlebot-Image (https://developers.google.com/crawling/docs/robots-txt/robots-txt-spec#order-of-precedence-for-user-agents))'],
    ['R-42: Googlebot-News its own group', SPEC_EXAMPLE, 'Googlebot-News', 'https://example.com/news-only', 'disallowed  https://example.com/news-only  (line 2: Disallow: /news-only in group User-agent: googlebot-news)'],
    ['R-42: Otherbot the * group', SPEC_EXAMPLE, 'Otherbot', 'https://example.com/star-only', 'disallowed  https://example.com/star-only  (line 5: Disallow: /star-only in group User-agent: *)'],
    ['AdsBot-Google ignores * / Disallow: /', 'User-agent: *\nDisallow: /\n', 'AdsBot-Google', 'https://example.com/', `allowed     https://example.com/  (no rule matched; no group applies to AdsBot-Google; AdsBot-Google ignores the * group (${SPECIAL}))`],
    ['Applebot follows the Googlebot group when none names Applebot', EXAMPLE_TEXT(), 'Applebot', 'https://example.com/private/page', `disallowed  https://example.com/private/page  (line 5: Disallow: /private/ in group User-agent: Googlebot; Applebot follows the Googlebot group when none names Applebot (${APPLE}))`],
    ['Applebot is not held by * then', EXAMPLE_TEXT(), 'Applebot', 'https://example.com/tmp/x', `allowed     https://example.com/tmp/x  (no rule matched; group: Googlebot; Applebot follows the Googlebot group when none names Applebot (${APPLE}))`],
    ['ChatGPT-User: its operator says robots.txt may not apply', 'User-agent: ChatGPT-User\nDisallow: /\n', 'ChatGPT-User', 'https://example.com/', 'disallowed  https://example.com/  (line 2: Disallow: / in group User-agent: ChatGPT-User; ChatGPT-User: its operator says robots.txt rules may not apply to the fetches it makes (https://platform.openai.com/docs/bots))'],
  ])('%s', async (_name, body, ua, url, line) => {
    const run = await runCli(['check', '--robots', '-', '--ua', ua, url], { stdin: body });
    expect(run.stdout).toBe(`${line}\n`);
  });

  it('--json names the rule that applied, the robots.txt use and the parser, known apart from assumed', async () => {
    const run = await runCli(['check', '--robots', '-', '--json', '--ua', 'AdsBot-Google', '--ua', 'CCBot', '--ua', 'Perplexity-User', 'https://example.com/'], { stdin: 'User-agent: *\nDisallow: /\n' });
    const [ads, cc, pplx] = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(ads).toMatchObject({ allowed: true, group: { kind: 'none' }, followed: { rule: 'ignores-star', agent: null, source: SPECIAL }, robotsTxt: null, parser: { profile: 'google', basis: 'known' } });
    expect(cc).toMatchObject({ allowed: false, followed: { rule: 'star', source: null }, robotsTxt: { value: 'honours' }, parser: { profile: 'crawler-commons', basis: 'assumed' } });
    expect(pplx).toMatchObject({ allowed: false, robotsTxt: { value: 'ignores', source: 'https://docs.perplexity.ai/guides/bots' }, parser: { profile: 'unknown', basis: 'unknown', source: null } });
  });
});

function EXAMPLE_TEXT(): string {
  return fs.readFileSync(EXAMPLE, 'utf8');
}

describe('check: the usage preferences beside the verdict (issue 28)', () => {
  // Cloudflare's managed robots.txt (contentsignals.org), with a Content-Usage line for a path.
  const SIGNALS = 'User-Agent: *\nContent-Signal: search=yes,ai-train=no\nAllow: /\nDisallow: /private/\nContent-Usage: /press/ ai-use=y\n\nUser-agent: GPTBot\nDisallow: /\n';
  const CS = 'Content Signals (contentsignals.org, draft-romm-aipref-contentsignals)';
  const INDENT = ' '.repeat(12);

  it('names each purpose\'s answer and deciding line, and "not crawlable" where disallowed (D-9)', async () => {
    const run = await runCli(['check', '--robots', '-', '--ua', 'Bingbot', '--ua', 'GPTBot', 'https://example.com/press/a', 'https://example.com/private/x'], { stdin: SIGNALS });
    expect(run.stdout).toBe(
      [
        'allowed     Bingbot  https://example.com/press/a  (line 3: Allow: / in group User-agent: *)',
        `${INDENT}search: allowed (line 2, Content-Signal search=yes, ${CS})`,
        `${INDENT}ai-train: refused (line 2, Content-Signal ai-train=no, ${CS})`,
        `${INDENT}ai-input: allowed (line 5, Content-Usage ai-use=y, draft-ietf-aipref-vocab-08)`,
        'disallowed  GPTBot  https://example.com/press/a  (line 8: Disallow: / in group User-agent: GPTBot)',
        `${INDENT}usage: not crawlable (no preference applies to a URL the crawler may not fetch, D-9)`,
        'disallowed  Bingbot  https://example.com/private/x  (line 4: Disallow: /private/ in group User-agent: *)',
        `${INDENT}usage: not crawlable (no preference applies to a URL the crawler may not fetch, D-9)`,
        'disallowed  GPTBot  https://example.com/private/x  (line 8: Disallow: / in group User-agent: GPTBot)',
        `${INDENT}usage: not crawlable (no preference applies to a URL the crawler may not fetch, D-9)`,
        '',
      ].join('\n'),
    );
  });

  it('a purpose no line states is unknown; a line outside any group applies to nobody (D-8)', async () => {
    const run = await runCli(['check', '--robots', '-', '--ua', 'Bingbot', 'https://example.com/'], { stdin: 'Content-Signal: search=no\nUser-agent: *\nAllow: /\n' });
    expect(run.stdout.split('\n').slice(1, 4)).toEqual([`${INDENT}search: unknown (no line states it)`, `${INDENT}ai-train: unknown (no line states it)`, `${INDENT}ai-input: unknown (no line states it)`]);
  });

  it('--json: "usage" per purpose', async () => {
    const run = await runCli(['check', '--robots', '-', '--json', '--ua', 'Bingbot', 'https://example.com/a'], { stdin: SIGNALS });
    expect((JSON.parse(run.stdout) as { usage: unknown }).usage).toEqual({
      search: { preference: 'allowed', line: 2, mechanism: 'content-signal', label: 'search', definedBy: CS, value: 'search=yes,ai-train=no' },
      'ai-train': { preference: 'refused', line: 2, mechanism: 'content-signal', label: 'ai-train', definedBy: CS, value: 'search=yes,ai-train=no' },
      'ai-input': { preference: 'unknown', line: null, mechanism: null, label: null, definedBy: null, value: null },
    });
  });

  it('a file without usage lines: one line per URL, as before', async () => {
    const run = await runCli(['check', '--robots', EXAMPLE, '--ua', 'Bingbot', 'https://example.com/']);
    expect(run.stdout).toBe('allowed     https://example.com/  (no rule matched; group: *)\n');
  });
});
