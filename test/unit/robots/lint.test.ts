/**
 * The linter: every code of LINT_CODES is emitted for the input it names, on the right line,
 * with its severity; and only there.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LINT_CODES, lintAndParse, lintRobotsTxt } from '../../../src/robots/index.js';
import { lintWithCrawlers } from '../../../src/crawlers/index.js';
import { MAX_STAR_RULE_GAPS } from '../../../src/robots/star-rule-gaps.js';
import type { Diagnostic, LintCode, LintOptions } from '../../../src/robots/index.js';
import { bytes } from './verdict.js';
import { letterName } from '../../helpers/hostile-bodies.js';

const codes = (body: string | Uint8Array, options?: LintOptions) => lintRobotsTxt(body, options).map((d) => `${d.line}:${d.code}`);
const only = (body: string | Uint8Array, code: LintCode, options?: LintOptions) => lintRobotsTxt(body, options).filter((d) => d.code === code);

/**
 * 250 agents each named in the shared group of 1,000 rules and in a group of their own: 250
 * distinct merged rule sets of 1,001 rules, past MAX_CONFLICT_CHECK_RULES in all.
 */
const manyMergedRuleSets = [
  ...Array.from({ length: 250 }, (_, i) => `User-agent: a${letterName(i)}`),
  ...Array.from({ length: 1000 }, (_, i) => `Disallow: /p${i}`),
  ...Array.from({ length: 250 }, (_, i) => `User-agent: a${letterName(i)}\nAllow: /q${i}`),
].join('\n');

/** One case per code: a body, the code, the lines it must be reported on, and a word of its message. */
const CASES: [LintCode, string | Uint8Array, number[], RegExp][] = [
  ['html-body', '\n<!DOCTYPE html>\n<html><body>Not found</body></html>\n', [2], /HTML page/],
  ['utf16-body', bytes([0xff, 0xfe], 'U\u0000A\u0000'), [1], /UTF-16/],
  ['typo-accepted', 'User-agent: *\nDisalow: /a\nuseragent: b\n', [2, 3], /strict RFC 9309 parsers ignore/],
  ['key-prefix-accepted', 'User-agents: *\nDisallowed: /a\n', [1, 2], /starts with that name/],
  ['missing-colon', 'User-agent *\nDisallow /a\n', [1, 2], /no colon/],
  ['line-too-long', `User-agent: *\nDisallow: /${'a'.repeat(17000)}\n`, [2], /first 16663 bytes.*16653-byte prefix/],
  ['not-a-directive', 'User-agent: *\nthis is garbage\nDisallow /a b\n: x\nhello world\n', [2, 3, 4, 5], /ignores this line/],
  ['rule-outside-group', 'Disallow: /a\nAllow: /b\nUser-agent: *\nDisallow: /c\n', [1, 2], /before any user-agent/],
  ['path-not-anchored', 'User-agent: *\nDisallow: fish/\nDisallow: *fish\nAllow: /ok\nDisallow: https://example.com/x/*\n', [2, 5], /never matches/],
  ['conflicting-rule', 'User-agent: a\nDisallow: /x\nAllow: /x\nUser-agent: b\nDisallow: /y\nUser-agent: a\nAllow: /y\n', [2], /allow win/],
  ['star-rule-not-inherited', 'User-agent: *\nDisallow: /private/\nDisallow: /tmp/\n\nUser-agent: GPTBot\nDisallow: /tmp/\n', [2], /does not apply to GPTBot, .*user-agent line 5/],
  ['too-complex', manyMergedRuleSets, [1, 251], /(stopped here: it compares at most 200000 rules|how other parsers read the rules stopped after \d+ of \d+ rules)/],
  ['disallow-all', 'User-agent: *\nDisallow: /\nDisallow: /*\nDisallow: *\nDisallow: /*$\nDisallow: /$\nDisallow: /a\nUser-agent: b\nDisallow: /\n', [2, 3, 4, 5], /whole site/],
  ['other-parsers-differ', 'User-agent: *\nDisallow: /*.pdf$\n\nUser-agent: GPTBot\n\nDisallow: /\n', [2, 6], /(python-urllib does not read wildcards, so \/x\.pdf stays allowed|python-urllib ends a group at an empty line)/],
  ['agent-name-truncated', 'User-agent: Googlebot/2.1\nUser-agent: Foo Bar\nUser-agent: *foo\nUser-agent: * x\nUser-agent: googlebot\nUser-agent: *\nDisallow: /\n', [1, 2, 3, 4], /Google reads/],
  ['empty-user-agent', 'User-agent:\nDisallow: /\n', [1], /no name/],
  ['sitemap-not-absolute', 'Sitemap: /sitemap.xml\nSitemap: https://example.com/s.xml\nSitemap: ftp://x/s.xml\nSitemap:\n', [1, 3, 4], /absolute http/],
  ['invalid-utf8', bytes('User-agent: *\nDisallow: /caf', [0xe9], '\n'), [2], /not valid UTF-8/],
  ['misplaced-bom', bytes('User-agent: *\n', [0xef, 0xbb, 0xbf], 'Disallow: /\n'), [2], /byte-order mark/],
  ['partial-bom', bytes([0xef, 0xbb], 'User-agent: *\n'), [1], /incomplete byte-order mark|2 byte/],
  ['nul-byte', 'User-agent: *\nDisallow: /a\u0000b\n', [2], /NUL/],
  ['beyond-size-limit', `User-agent: *\nDisallow: /a\nDisallow: /b\n`, [2], /first 20 bytes/],
  ['hidden-characters', 'User-agent: \u202etoBTPG\nDisallow: /\u200b\nAllow: /a\u001b[31m\n# caf\u00e9 \u00a0ok\n', [1, 2, 3], /U\+(202E RIGHT-TO-LEFT OVERRIDE|200B ZERO WIDTH SPACE|001B ESCAPE)/],
  ['usage-outside-group', 'Content-Signal: ai-train=no\nUser-agent: *\nContent-Signal: search=yes\nAllow: /\n', [1], /applies to no crawler \(D-8\)/],
  ['usage-unparsable', 'User-agent: *\nContent-Usage: / Train-AI=n\nContent-Usage: / train-ai=n,\nContent-Usage: / train-ai=n\n', [2, 3], /not an RFC 9651 Dictionary/],
  ['usage-unknown-label', 'User-agent: *\nContent-Usage: / genai=n\nContent-Signal: use=reference, ai-train=no\n', [2, 3], /(draft-ietf-aipref-vocab-01.*Write "train-ai" instead|"use" is not a label of Content Signals)/],
  ['usage-bad-value', 'User-agent: *\nContent-Signal: ai-train=n\nContent-Usage: / train-ai=no\nContent-Usage: / train-ai=n\n', [2, 3], /(Content-Signal values are yes or no|Content-Usage values are the tokens y or n)/],
  ['usage-duplicate-label', 'User-agent: *\nContent-Signal: ai-train=no, ai-train=yes\nContent-Usage: / train-ai=n, train-ai=y\n', [2, 3], /more than once: the last value applies/],
  ['usage-conflict', 'User-agent: *\nContent-Signal: ai-train=yes\nContent-Signal: search=yes, ai-train=no\nContent-Signal: ai-train=yes\n', [3], /the refusal \(line 3\) wins \(D-13\)/],
  ['usage-joins-group', 'User-agent: *\nContent-Signal: ai-train=no\n\nUser-agent: GPTBot\nDisallow: /\n', [4], /joins the group of \*/],
  ['usage-no-path', 'User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: / train-ai=n\n', [2], /attach-00.*read as applying to "\/"/],
  ['usage-contradicts-crawl', 'User-agent: GPTBot\nDisallow: /\nContent-Signal: ai-train=yes\n\nUser-agent: *\nContent-Signal: ai-train=no\n', [3, 6], /(GPTBot, an AI-training crawler that follows this group, may not fetch it|may crawl "\/": .* under "\*")/],
  ['unknown-key', 'User-agent: *\nUnicorns: yes\nAlow: /x\n', [2, 3], /Unknown key/],
  ['unsupported-key', 'User-agent: *\nCrawl-delay: 5\nHost: example.com\nNoindex: /x\n', [2, 3, 4], /Google ignores/],
  ['empty-rule-value', 'User-agent: *\nDisallow:\nAllow:\n', [2, 3], /(disallows nothing|no effect)/],
  ['bom', bytes([0xef, 0xbb, 0xbf], 'User-agent: *\n'), [1], /byte-order mark/],
  ['comment', '# hi\nUser-agent: * # all\n', [1, 2], /[Cc]omment/],
  ['empty-line', 'User-agent: *\n\nDisallow: /a\n', [2, 4], /Empty line/],
];

describe('every lint code', () => {
  it('has a case here', () => {
    expect(new Set(CASES.map((c) => c[0]))).toEqual(new Set(Object.keys(LINT_CODES)));
  });
  it.each(CASES)('%s', (code, body, lines, message) => {
    const options: LintOptions = { includeTrivia: true, portability: true, ...(code === 'beyond-size-limit' ? { maxBytes: 20 } : {}) };
    // The one finding that needs the crawler catalogue is added by src/crawlers (lintWithCrawlers).
    const found = code === 'usage-contradicts-crawl' ? lintWithCrawlers(lintAndParse(body, options)).filter((d) => d.code === code) : only(body, code, options);
    expect(found.map((d) => d.line)).toEqual(lines);
    for (const d of found) {
      expect(d.severity).toBe(LINT_CODES[code].severity);
      expect(d.message).toMatch(message);
    }
  });
});

describe('messages say what Google reads', () => {
  it.each([
    ['User-agent: Googlebot/2.1', /as "googlebot"/],
    ['User-agent: Foo Bar', /as "foo"/],
    ['User-agent: MJ12bot', /as "mj".*calls itself "MJ12bot" is therefore not matched/],
    ['User-agent: *foo', /empty name/],
    ['User-agent: * x', /as "\*"/],
  ])('%s', (body, message) => {
    expect(only(body, 'agent-name-truncated')[0]?.message).toMatch(message);
  });
  it('unsupported keys name the key', () => {
    expect(only('Crawl-delay: 5', 'unsupported-key')[0]?.message).toMatch(/Google ignores crawl-delay/);
    expect(only('Visit-time: 0600-0845', 'unsupported-key')[0]?.message).toMatch(/Google ignores visit-time/);
  });
  it('unknown keys suggest the near known one and name hidden characters', () => {
    expect(only('Alow: /x', 'unknown-key')[0]?.message).toMatch(/Did you mean "allow"\?/);
    expect(only('\u200bDisallow: /x', 'unknown-key')[0]?.message).toMatch(/U\+200B.*Did you mean "disallow"\?/);
    expect(only('Unicorns: /x', 'unknown-key')[0]?.message).not.toMatch(/Did you mean/);
  });
  it('hidden-characters names each character once, says what a bidi control does, and leaves NUL and an inner BOM to their own codes', () => {
    const [bidi] = only('User-agent: \u202etoBTPG\u202e\u2066x\nDisallow: /\n', 'hidden-characters');
    expect(bidi?.message).toMatch(/U\+202E RIGHT-TO-LEFT OVERRIDE, U\+2066 LEFT-TO-RIGHT ISOLATE\. A bidirectional control reorders/);
    expect(only('User-agent: *\nDisallow: /a\u200b\u200c\u200d\u2060b\n', 'hidden-characters')[0]?.message).toMatch(/, U\+200D ZERO WIDTH JOINER and 1 more\./);
    expect(only(bytes('User-agent: *\n', [0xef, 0xbb, 0xbf], 'Disallow: /a\u0000b\tc\n'), 'hidden-characters')).toEqual([]);
    expect(only('User-agent: *\nDisallow: /caf\u00e9/\u65e5\u672c\n', 'hidden-characters')).toEqual([]);
  });
  it('a full URL as a rule suggests its path', () => {
    expect(only('User-agent: *\nDisallow: https://example.com/x/*\n', 'path-not-anchored')[0]?.message).toMatch(/Did you mean "\/x\/\*"\?/);
  });
  it('disallow-all mentions allow rules that reopen paths', () => {
    expect(only('User-agent: *\nDisallow: /\nAllow: /public\n', 'disallow-all')[0]?.message).toMatch(/except what/);
    expect(only('User-agent: *\nDisallow: /\n', 'disallow-all')[0]?.message).not.toMatch(/except what/);
  });
  it('beyond-size-limit says whether the cut falls inside the line', () => {
    const body = 'User-agent: *\nDisallow: /abcdef\n';
    expect(only(body, 'beyond-size-limit', { maxBytes: 16 })[0]).toMatchObject({ line: 2, message: expect.stringMatching(/cut there/) });
    expect(only(body, 'beyond-size-limit', { maxBytes: 14 })[0]).toMatchObject({ line: 2, message: expect.stringMatching(/This line and every line after/) });
    expect(only(body, 'beyond-size-limit', { maxBytes: body.length })).toEqual([]);
  });
  it('the default limit is 500 KiB (R-18)', () => {
    const body = 'User-agent: *\n' + 'Disallow: /aaaaaaaaaaaaaaaaaaaa\n'.repeat(17000);
    expect(body.length).toBeGreaterThan(512000);
    const found = only(body, 'beyond-size-limit');
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toMatch(/512000 bytes/);
  });
});

describe('reporting discipline', () => {
  it('a clean file has no diagnostics', () => {
    expect(lintRobotsTxt('User-agent: *\nDisallow: /private/\nAllow: /private/public\n\nSitemap: https://example.com/sitemap.xml\n')).toEqual([]);
  });
  it('trivia are opt-in', () => {
    const body = '# comment\n\nUser-agent: *\nDisallow: /x # why\n';
    expect(codes(body)).toEqual([]);
    expect(codes(body, { includeTrivia: true })).toEqual(['1:comment', '2:empty-line', '4:comment', '5:empty-line']);
  });
  it('diagnostics are sorted by line', () => {
    const d: Diagnostic[] = lintRobotsTxt('Disallow: /x\nUser-agent: *\nDisallow: /\nCrawl-delay: 1\nUser-agent: a\nDisallow: /y\nAllow: /y\n');
    expect(d.map((x) => x.line)).toEqual([...d.map((x) => x.line)].sort((a, b) => a - b));
    expect(d.map((x) => `${x.line}:${x.code}`)).toEqual(['1:rule-outside-group', '3:disallow-all', '3:star-rule-not-inherited', '4:unsupported-key', '6:conflicting-rule']);
  });
  it('an HTML body is reported once, not line by line', () => {
    const html = '<!doctype html>\n<html>\n<head><title>Not found</title></head>\n<body>\nSorry page\n</body>\n</html>\n';
    expect(codes(html)).toEqual(['1:html-body']);
  });
  it('a line-too-long directive reports what Google keeps', () => {
    expect(only(`User-agent: *\nDisallow: /${'a'.repeat(17000)}\n`, 'line-too-long')[0]?.message).toMatch(/17011 bytes long/);
  });
  it('every code has a description', () => {
    for (const info of Object.values(LINT_CODES)) expect(info.description.length).toBeGreaterThan(20);
  });
  it('the README\'s "Lint codes" table lists every code, in order, with its severity and description', () => {
    const readme = fs.readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const rows = readme.split('\n').filter((l) => /^\| `[a-z0-9-]+` \| (error|warning|info) \|/.test(l));
    expect(rows).toEqual(Object.entries(LINT_CODES).map(([code, info]) => `| \`${code}\` | ${info.severity} | ${info.description} |`));
  });
});

describe('star-rule-not-inherited: R-40, T26, a named group replaces `*` (cases in star-rule-gaps.test.ts)', () => {
  const STAR = 'User-agent: *\nDisallow: /private/\nDisallow: /tmp/\n\n';
  it('one warning per path per named group, on the `*` Disallow line', () => {
    const body = `${STAR}User-agent: GPTBot\nDisallow: /tmp/\n\nUser-agent: bingbot\nCrawl-delay: 5\n`;
    expect(only(body, 'star-rule-not-inherited').map((d) => `${d.line}:${d.severity}`)).toEqual(['2:warning', '2:warning', '3:warning']);
  });
  it('names the crawler as written and its group\'s first user-agent line', () => {
    const [d] = only(`${STAR}User-agent: GPTBot/1.1\nDisallow: /tmp/\n`, 'star-rule-not-inherited');
    expect(d?.message).toBe(
      '"Disallow: /private/" in the "*" group does not apply to GPTBot, which has a group of its own (user-agent line 5): ' +
        'a crawler obeys only the group that names it (R-40, T26), and that group does not block all of "/private/". ' +
        'Repeat the rule there if this crawler should stay out too.',
    );
  });
  it.each([
    ['GPTBot\nUser-agent: CCBot', /to GPTBot and CCBot, which have a group of their own \(user-agent line 5\).*if these crawlers/],
    ['a\nUser-agent: b\nUser-agent: c', /to a, b and c, which have/],
    ['a\nUser-agent: b\nUser-agent: c\nUser-agent: d\nUser-agent: e', /to a, b, c and 2 more, which have/],
  ])('R-31: the crawlers of one group in one warning: %j', (agents, message) => {
    const found = only(`${STAR}User-agent: ${agents}\nDisallow: /tmp/\n`, 'star-rule-not-inherited');
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toMatch(message);
  });
  it('T9: a crawler named in two groups is reported once, with its first line', () => {
    const found = only(`${STAR}User-agent: GPTBot\nDisallow: /a\n\nUser-agent: gptbot\nDisallow: /b\n`, 'star-rule-not-inherited');
    expect(found.map((d) => d.message.match(/user-agent line \d+/)?.[0])).toEqual(['user-agent line 5', 'user-agent line 5']);
  });
});

describe('star-rule-not-inherited: the limits of the check', () => {
  it('past MAX_STAR_RULE_GAPS, says where it stopped', () => {
    // 101 `*` paths x 100 named groups that allow everything: 10,100 gaps.
    const star = ['User-agent: *', ...Array.from({ length: 101 }, (_, i) => `Disallow: /p${i}`)];
    const named = Array.from({ length: 100 }, (_, i) => `User-agent: bot${'x'.repeat(i)}\nAllow: /`);
    const found = only([...star, ...named].join('\n'), 'star-rule-not-inherited');
    expect(found).toHaveLength(MAX_STAR_RULE_GAPS + 1);
    expect(found[found.length - 1]).toMatchObject({ line: 101, message: expect.stringMatching(/^The check for "\*" rules that named groups leave open stopped here: it reports at most 10000 paths/) });
  });
});
