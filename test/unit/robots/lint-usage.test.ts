/**
 * Lint of usage preferences (issue 28; docs/usage-preferences.md D-8, D-10, D-12, D-13): the
 * usage-* findings on real-looking files, their messages, and that the check stays linear.
 */
import { describe, expect, it } from 'vitest';
import { lintRobotsTxt } from '../../../src/robots/index.js';
import type { LintCode } from '../../../src/robots/index.js';

const found = (body: string) => lintRobotsTxt(body).map((d) => `${d.line}:${d.severity}:${d.code}`);
const messages = (body: string, code: LintCode) => lintRobotsTxt(body).filter((d) => d.code === code).map((d) => d.message);

// Cloudflare's managed robots.txt (contentsignals.org), as served on many sites.
const CLOUDFLARE_MANAGED = `# As a condition of accessing this website, you agree to abide by the following content signals:
# ...
User-Agent: *
Content-Signal: search=yes,ai-train=no
Allow: /

User-agent: Amazonbot
Disallow: /
`;

// draft-ietf-aipref-attach-05 §3.4.
const ATTACH_EXAMPLE = `User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: / train-ai=n
Content-Usage: /ai-ok/ train-ai=y

User-Agent: ExampleBot
Allow: /
Content-Usage: / train-ai=y
`;

describe('files that state their preferences well have no usage finding', () => {
  it.each([
    ['Cloudflare managed', CLOUDFLARE_MANAGED],
    ['attach-05 §3.4', ATTACH_EXAMPLE],
    ['both mechanisms, several paths', 'User-agent: *\nDisallow: /admin/\nContent-Signal: search=yes, ai-input=yes, ai-train=no\nContent-Usage: / train-ai=n, search=y\nContent-Usage: /press/ train-ai=y\n'],
  ])('%s', (_name, body) => {
    expect(found(body).filter((f) => /:usage-/.test(f))).toEqual([]);
  });
});

describe('each finding on a real-looking file, on its line, with its severity', () => {
  it.each([
    [
      'D-8: signals written above the groups, as a preamble',
      '# Content signals for everyone\nContent-Signal: search=yes, ai-train=no\n\nUser-agent: *\nDisallow: /cgi-bin/\n',
      ['2:error:usage-outside-group'],
    ],
    [
      'D-12: a Content-Usage value written in Content-Signal style, upper case',
      'User-agent: *\nAllow: /\nContent-Usage: / Train-AI=N\n',
      ['3:error:usage-unparsable'],
    ],
    [
      'D-12: a trailing comma',
      'User-agent: *\nContent-Usage: / train-ai=n, search=y,\n',
      ['2:error:usage-unparsable'],
    ],
    [
      'D-10: the attach-00 form, without a path',
      'User-agent: *\nDisallow: /private/\nContent-Usage: train-ai=n\n',
      ['3:info:usage-no-path'],
    ],
    [
      'retired labels of earlier vocab revisions',
      'User-agent: *\nContent-Usage: / tdm=n, genai=n, search=y\n',
      ['2:warning:usage-unknown-label', '2:warning:usage-unknown-label'],
    ],
    [
      'the other mechanism\'s labels and values',
      'User-agent: *\nContent-Signal: train-ai=n\nContent-Usage: / ai-train=no\n',
      ['2:warning:usage-unknown-label', '3:warning:usage-unknown-label'],
    ],
    [
      'y / n on a Content-Signal line, yes / no on a Content-Usage line',
      'User-agent: *\nContent-Signal: search=y, ai-train=n\nContent-Usage: / train-ai=no\n',
      ['2:warning:usage-bad-value', '3:warning:usage-bad-value'],
    ],
    [
      'a purpose set twice on one line',
      'User-agent: *\nContent-Signal: ai-train=no, search=yes, ai-train=yes\n',
      ['2:warning:usage-duplicate-label'],
    ],
    [
      'D-13: two lines of one group and path',
      'User-agent: *\nAllow: /\nContent-Signal: search=yes, ai-train=yes\n# added later\nContent-Signal: ai-train=no\n',
      ['5:warning:usage-conflict'],
    ],
  ])('%s', (_name, body, expected) => {
    expect(found(body)).toEqual(expected);
  });
});

describe('what is not a conflict (D-13: same group, same mechanism, same path)', () => {
  it.each([
    ['two paths', 'User-agent: *\nContent-Usage: / train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n'],
    ['two mechanisms', 'User-agent: *\nContent-Usage: / train-ai=n\nContent-Signal: ai-train=yes\n'],
    ['two groups', 'User-agent: *\nAllow: /\nContent-Signal: ai-train=no\n\nUser-agent: GPTBot\nAllow: /\nContent-Signal: ai-train=yes\n'],
    ['the same value twice', 'User-agent: *\nContent-Signal: ai-train=no\nContent-Signal: ai-train=no, search=yes\n'],
    ['a value that is not one', 'User-agent: *\nContent-Signal: ai-train=no\nContent-Signal: ai-train=maybe\n'],
  ])('%s', (_name, body) => {
    expect(found(body).filter((f) => f.endsWith('usage-conflict'))).toEqual([]);
  });
  it('the attach-00 form (no path) and "/" are one scope', () => {
    expect(found('User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: / train-ai=y\n')).toEqual(['2:info:usage-no-path', '3:warning:usage-conflict']);
  });
});

describe('messages quote the line and say what to write', () => {
  it.each([
    ['User-agent: *\nContent-Usage: / genai=n\n', 'usage-unknown-label', /^"Content-Usage: \/ genai=n": "genai" is a label of draft-ietf-aipref-vocab-01, which draft-ietf-aipref-vocab-08 no longer defines: it is ignored \(§6\.4\)\. Write "train-ai" instead\.$/],
    ['User-agent: *\nContent-Usage: / train-genai=n\n', 'usage-unknown-label', /draft-ietf-aipref-vocab-02 to -03.*Write "train-ai" instead/],
    ['User-agent: *\nContent-Usage: / bots=n\n', 'usage-unknown-label', /draft-ietf-aipref-vocab-03 to -04.*has no label for it: remove it\./],
    ['User-agent: *\nContent-Usage: / ai-train=n\n', 'usage-unknown-label', /"ai-train" is the Content-Signal label, write "train-ai"/],
    ['User-agent: *\nContent-Signal: ai-use=no\n', 'usage-unknown-label', /not a label of Content Signals \(search, ai-train, ai-input\).*"ai-use" is the Content-Usage label, write "ai-input"/],
    ['User-agent: *\nContent-Signal: a=yes, b=yes, c=yes, d=yes, e=yes\n', 'usage-unknown-label', /^"Content-Signal: a=yes, b=yes, c=yes, d=yes, e=yes": "a", "b", "c" and 2 more are not labels/],
    ['User-agent: *\nContent-Signal: ai-train=n\n', 'usage-bad-value', /^"Content-Signal: ai-train=n": "ai-train=n"\. Content-Signal values are yes or no/],
    ['User-agent: *\nContent-Signal: ai-train\n', 'usage-bad-value', /"ai-train" has no value/],
    ['User-agent: *\nContent-Usage: / train-ai="n"\n', 'usage-bad-value', /the value of "train-ai" is not a token\. Content-Usage values are the tokens y or n/],
    ['User-agent: *\nContent-Usage: / Train-AI=n\n', 'usage-unparsable', /^"Content-Usage: \/ Train-AI=n" is not an RFC 9651 Dictionary.*every preference of this line is unknown/],
    ['Content-Usage: / train-ai=n\nUser-agent: *\n', 'usage-outside-group', /^"Content-Usage: \/ train-ai=n" comes before any user-agent line/],
    ['User-agent: *\nContent-Usage: train-ai=n\n', 'usage-no-path', /e\.g\. "Content-Usage: \/ train-ai=n"\.$/],
    [
      'User-agent: *\nContent-Usage: /a/ train-ai=n\nContent-Usage: /a/ train-ai=y\n',
      'usage-conflict',
      /^"Content-Usage: \/a\/ train-ai=y" gives "train-ai" y where line 2 \("Content-Usage: \/a\/ train-ai=n"\), in the same group for the same path "\/a\/", gives it n: the refusal \(line 2\) wins \(D-13\)\.$/,
    ],
  ] as [string, LintCode, RegExp][])('%s: %s', (body, code, message) => {
    const got = messages(body, code);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatch(message);
  });

  it('a long value is quoted bounded', () => {
    const [message] = messages(`User-agent: *\nContent-Signal: ai-train=n, ${'x'.repeat(200)}=yes\n`, 'usage-bad-value');
    expect(message).toMatch(/^"Content-Signal: ai-train=n, x{48}…"/);
  });
});

describe('usage lines are not reported as other keys', () => {
  it.each(['Content-Signal: ai-train=no', 'content-usage: / train-ai=n', 'CONTENT-SIGNAL: search=yes'])('%s', (line) => {
    const codes = lintRobotsTxt(`User-agent: *\n${line}\n`).map((d) => d.code);
    expect(codes).not.toContain('unknown-key');
    expect(codes).not.toContain('unsupported-key');
  });
  it('a misspelt key stays an unknown key', () => {
    expect(found('User-agent: *\nContent-Signals: ai-train=no\n')).toEqual(['2:info:unknown-key']);
  });
});

describe('bounded by the lines (house style habit 12)', () => {
  it('10,000 lines of one scope, alternating: one conflict per purpose, at most a few findings a line', () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => `Content-Signal: ai-train=${i % 2 === 0 ? 'yes' : 'no'}, search=yes`);
    const started = performance.now();
    const diagnostics = lintRobotsTxt(`User-agent: *\n${lines.join('\n')}\n`);
    expect(diagnostics.map((d) => `${d.line}:${d.code}`)).toEqual(['3:usage-conflict']);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
  it('a line of 1,500 unknown labels is one finding', () => {
    const value = Array.from({ length: 1_500 }, (_, i) => `k${i}=y`).join(', ');
    expect(found(`User-agent: *\nContent-Usage: / ${value}\n`)).toEqual(['2:warning:usage-unknown-label']);
  });
});

describe('usage-joins-group: a user-agent line after a usage line, no rule between (R-30, R-31)', () => {
  it.each([
    ['an empty line does not end the group: GPTBot shares * (and its Disallow: / applies to *)', 'User-agent: *\nContent-Signal: ai-train=no\n\nUser-agent: GPTBot\nDisallow: /\n', ['4:warning:usage-joins-group']],
    ['two crawlers join', 'User-agent: CCBot\nContent-Signal: ai-train=no\nUser-agent: GPTBot\nUser-agent: ClaudeBot\nDisallow: /\n', ['3:warning:usage-joins-group', '4:warning:usage-joins-group']],
    ['a rule ends the group first: nothing joins', 'User-agent: *\nContent-Signal: ai-train=no\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n', []],
    ['user-agent lines before the signal are the group itself', 'User-agent: GPTBot\nUser-agent: CCBot\nContent-Signal: ai-train=no\nDisallow: /\n', []],
  ])('%s', (_name, body, expected) => {
    expect(found(body).filter((f) => f.endsWith('usage-joins-group'))).toEqual(expected);
  });

  it('names the line it follows and the group it joins', () => {
    expect(messages('User-agent: *\nContent-Signal: ai-train=no\n\nUser-agent: GPTBot\nDisallow: /\n', 'usage-joins-group')).toEqual([
      '"User-agent: GPTBot" comes after "Content-Signal: ai-train=no" (line 2) with no allow/disallow between, so it joins the group of *: its crawler follows that group\'s rules and preferences (R-30, R-31). End the group above with a rule (e.g. "Allow: /") if it was meant to start its own.',
    ]);
  });
});
