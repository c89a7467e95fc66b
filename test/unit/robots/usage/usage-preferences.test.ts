import { describe, expect, it } from 'vitest';
import { parseRobotsTxt, parseStructuredDictionary, USAGE_PURPOSES } from '../../../../src/robots/index.js';
import type { UsagePreference, UsagePurpose } from '../../../../src/robots/index.js';
import { usageAsCrawler } from '../../../../src/crawlers/index.js';

type Expected = Partial<Record<UsagePurpose, UsagePreference>>;

/** Every purpose not named in `expected` is `unknown`. */
function expectUsage(body: string, agent: string, url: string, expected: Expected): void {
  const { usage } = usageAsCrawler(parseRobotsTxt(body), url, agent);
  const got = Object.fromEntries(USAGE_PURPOSES.map((p) => [p, usage[p].preference]));
  const want = Object.fromEntries(USAGE_PURPOSES.map((p) => [p, expected[p] ?? 'unknown']));
  expect(got).toEqual(want);
}

// draft-ietf-aipref-attach-05 §3.4, "Example robots.txt file" and its table.
const ATTACH_EXAMPLE = `User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: / train-ai=n
Content-Usage: /ai-ok/ train-ai=y

User-Agent: ExampleBot
Allow: /
Content-Usage: / train-ai=y
`;

describe('draft-ietf-aipref-attach-05 §3.4 example (D-7, D-9, D-11)', () => {
  it.each([
    ['SomeBot', 'https://example.com/test', { 'ai-train': 'refused' }],
    ['SomeBot', 'https://example.com/never/test', { search: 'not-crawlable', 'ai-train': 'not-crawlable', 'ai-input': 'not-crawlable' }],
    ['SomeBot', 'https://example.com/ai-ok/test', { 'ai-train': 'allowed' }],
    ['ExampleBot', 'https://example.com/test', { 'ai-train': 'allowed' }],
    ['ExampleBot', 'https://example.com/never/test', { 'ai-train': 'allowed' }],
  ] as [string, string, Expected][])('%s %s', (agent, url, expected) => expectUsage(ATTACH_EXAMPLE, agent, url, expected));
});

const CLOUDFLARE_MANAGED = `# As a condition of accessing this website, you agree to abide by the following content signals:
User-Agent: *
Content-Signal: search=yes,ai-train=no
Allow: /

User-agent: GPTBot
Disallow: /
`;

describe('Content-Signal (contentsignals.org) and the group a crawler follows (D-7, D-8, D-12)', () => {
  it.each([
    ['the managed file, a crawler of *', CLOUDFLARE_MANAGED, 'SomeBot', '/a', { search: 'allowed', 'ai-train': 'refused' }],
    ['the managed file, GPTBot with its own group', CLOUDFLARE_MANAGED, 'GPTBot', '/a', { search: 'not-crawlable', 'ai-train': 'not-crawlable', 'ai-input': 'not-crawlable' }],
    ['all three, spaces', 'User-agent: *\nContent-Signal: search = yes , ai-input = no , ai-train = no\n', 'Bot', '/', { search: 'allowed', 'ai-input': 'refused', 'ai-train': 'refused' }],
    ['keys and values in any case', 'User-agent: *\ncontent-signal: Search=YES, AI-Train=No\n', 'Bot', '/', { search: 'allowed', 'ai-train': 'refused' }],
    ['outside any group: nobody', 'Content-Signal: ai-train=no\nUser-agent: *\nAllow: /\n', 'Bot', '/', {}],
    ['a named group does not read *', 'User-agent: *\nContent-Signal: ai-train=no\nAllow: /\n\nUser-agent: ClaudeBot\nAllow: /\n', 'ClaudeBot', '/', {}],
    ['an empty line does not end a group (R-31)', 'User-agent: *\nContent-Signal: ai-train=no\n\nUser-agent: ClaudeBot\nAllow: /\n', 'ClaudeBot', '/', { 'ai-train': 'refused' }],
    ['a user-agent line after the signal joins the group', 'User-agent: *\nContent-Signal: ai-train=no\nUser-agent: ClaudeBot\nAllow: /\n', 'ClaudeBot', '/', { 'ai-train': 'refused' }],
    ['y / n are not Content-Signal values', 'User-agent: *\nContent-Signal: ai-train=n, search=yes\n', 'Bot', '/', { search: 'allowed' }],
    ['unknown keys are ignored', 'User-agent: *\nContent-Signal: use=reference, ai-train=no\n', 'Bot', '/', { 'ai-train': 'refused' }],
    ['a repeated key: the last applies', 'User-agent: *\nContent-Signal: ai-train=no, ai-train=yes\n', 'Bot', '/', { 'ai-train': 'allowed' }],
    ['two lines: refused wins (D-13)', 'User-agent: *\nContent-Signal: ai-train=yes\nContent-Signal: ai-train=no\n', 'Bot', '/', { 'ai-train': 'refused' }],
    ['groups naming the crawler are merged', 'User-agent: Bot\nContent-Signal: search=yes\nAllow: /\nUser-agent: Other\nDisallow: /\nUser-agent: bot\nContent-Signal: ai-input=no\n', 'Bot', '/', { search: 'allowed', 'ai-input': 'refused' }],
    ['a signal with a path (D-10)', 'User-agent: *\nContent-Signal: ai-train=no\nContent-Signal: /docs/ ai-train=yes\n', 'Bot', '/docs/a', { 'ai-train': 'allowed' }],
    ['no file rules at all: unknown', 'User-agent: *\nDisallow: /private\n', 'Bot', '/', {}],
  ] as [string, string, string, string, Expected][])('%s', (_name, body, agent, path, expected) => expectUsage(body, agent, `https://example.com${path}`, expected));
});

describe('Content-Usage (draft-ietf-aipref-attach-05 §3, vocab-08 §6) (D-10, D-11, D-12)', () => {
  it.each([
    ['the three vocab-08 labels', 'User-agent: *\nContent-Usage: / train-ai=n, ai-use=y, search=y\n', '/', { 'ai-train': 'refused', 'ai-input': 'allowed', search: 'allowed' }],
    ['the longest path decides the whole statement', 'User-agent: *\nContent-Usage: / train-ai=n, search=y\nContent-Usage: /blog/ search=n\n', '/blog/x', { search: 'refused' }],
    ['a shorter path elsewhere', 'User-agent: *\nContent-Usage: / train-ai=n, search=y\nContent-Usage: /blog/ search=n\n', '/shop/x', { 'ai-train': 'refused', search: 'allowed' }],
    ['wildcards as in Allow/Disallow', 'User-agent: *\nContent-Usage: /*.pdf$ train-ai=n\n', '/files/a.pdf', { 'ai-train': 'refused' }],
    ['wildcards: no match', 'User-agent: *\nContent-Usage: /*.pdf$ train-ai=n\n', '/files/a.pdf?x=1', {}],
    ['same path, conflicting: n wins (attach-05 §3.1, vocab-08 §5.1)', 'User-agent: *\nContent-Usage: / train-ai=y\nContent-Usage: / train-ai=n\n', '/', { 'ai-train': 'refused' }],
    ['vocab-08 §6.5.1: booleans and strings are not tokens', 'User-agent: *\nContent-Usage: / train-ai=y, train-ai, search=n, search="n"\n', '/', {}],
    ['vocab-08 §6.5.2: parameters are dropped', 'User-agent: *\nContent-Usage: / train-ai;allow=n, train-ai=y\n', '/', { 'ai-train': 'allowed' }],
    ['upper-case keys fail the Dictionary', 'User-agent: *\nContent-Usage: / Train-AI=n, search=y\n', '/', {}],
    ['no path: the attach-00 form applies to /', 'User-agent: *\nContent-Usage: train-ai=n\n', '/a', { 'ai-train': 'refused' }],
    ['retired labels decide nothing (vocab-08 §6.4)', 'User-agent: *\nContent-Usage: / bots=n, train-genai=n\n', '/', {}],
    ['the two mechanisms combine: a refusal wins', 'User-agent: *\nContent-Signal: ai-train=yes, search=yes\nContent-Usage: / train-ai=n\n', '/', { 'ai-train': 'refused', search: 'allowed' }],
    ['percent-encoding as the engine normalises it', 'User-agent: *\nContent-Usage: /caf%c3%a9/ train-ai=n\n', '/caf%C3%A9/menu', { 'ai-train': 'refused' }],
    ['percent-encoding: raw UTF-8 path', 'User-agent: *\nContent-Usage: /café/ train-ai=n\n', '/caf%C3%A9/menu', { 'ai-train': 'refused' }],
  ] as [string, string, string, Expected][])('%s', (_name, body, path, expected) => expectUsage(body, 'Bot', `https://example.com${path}`, expected));

  it('names the deciding line, the label and the document that defines it', () => {
    const robots = parseRobotsTxt('User-agent: *\nContent-Signal: search=yes\nContent-Usage: / train-ai=n\n');
    const { usage } = usageAsCrawler(robots, 'https://example.com/', 'Bot');
    expect(usage['ai-train']).toEqual({ preference: 'refused', line: 3, mechanism: 'content-usage', label: 'train-ai', definedBy: 'draft-ietf-aipref-vocab-08', value: '/ train-ai=n' });
    expect(usage.search).toMatchObject({ preference: 'allowed', line: 2, mechanism: 'content-signal', label: 'search' });
  });

  it('a file without usage lines is never read again for its records', () => {
    expect(parseRobotsTxt('User-agent: *\nCrawl-delay: 5\nDisallow: /x\n').hasUsageLines).toBe(false);
    expect(parseRobotsTxt('User-agent: *\nCONTENT-SIGNAL: ai-train=no\n').hasUsageLines).toBe(true);
    expect(parseRobotsTxt('Content-Usage: train-ai=n\n').hasUsageLines).toBe(true);
  });
});

describe('RFC 9651 Dictionary (§4.2.2)', () => {
  it.each([
    ['train-ai=y, search=n', { 'train-ai': 'y', search: 'n' }],
    ['a=1, b=2.5, c="x", d=?1, e=:aGk=:, f=(x y);p=1, g=@1700000000, h=%"caf%c3%a9", i;p', { a: null, b: null, c: null, d: null, e: null, f: null, g: null, h: null, i: null }],
    ['  a=y\t,\tb=n  ', { a: 'y', b: 'n' }],
    ['*x=tok/en:x', { '*x': 'tok/en:x' }],
  ])('%s parses', (text, expected) => {
    const parsed = parseStructuredDictionary(text)!;
    expect(Object.fromEntries([...parsed.members].map(([k, v]) => [k, v.type === 'token' ? v.text : null]))).toEqual(expected);
  });
  it.each(['a=y,', 'A=y', 'a=y b=n', 'a="x', 'a=1.2345', 'a=1234567890123456', 'a=?2', 'a=@1.5', '1a=y', 'a=(x', 'a=y;', 'a=é'])('%s fails', (text) => {
    expect(parseStructuredDictionary(text)).toBeNull();
  });
  it('a repeated key keeps its last value and is reported', () => {
    const parsed = parseStructuredDictionary('a=y, b=n, a=n')!;
    expect(parsed.members.get('a')).toEqual({ type: 'token', text: 'n' });
    expect(parsed.repeated).toEqual(['a']);
  });
});
