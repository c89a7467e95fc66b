/**
 * `test-draft` output: GitHub workflow commands escaped as the runner reads them (a message may
 * hold `%`, CR, LF; a property also `:` and `,`), hostile text shown as markers, one annotation
 * per access alert and draft line.
 */
import { describe, expect, it } from 'vitest';
import { draftJson, escapeCommandData, escapeCommandProperty, formatDraftTable, githubAnnotations } from '../../../src/cli/draft-output.js';
import type { DraftSources } from '../../../src/cli/draft-output.js';
import { checkDraft } from '../../../src/services/draft-check.js';
import type { DraftCheckInput } from '../../../src/services/draft-check.js';

const ORIGIN = 'https://shop.example';
const SHOP = 'User-agent: *\nDisallow: /cart\nAllow: /products/\n';
const bytes = (text: string) => new TextEncoder().encode(text);
const SOURCES: DraftSources = { draft: 'public/robots.txt', current: { kind: 'file', source: 'prod.txt' } };

function report(draft: string) {
  const input: DraftCheckInput = {
    origin: ORIGIN,
    current: { outcome: 'ok', policy: 'rules', policyReason: 'R-10', rulesBody: bytes(SHOP), lastGoodBody: bytes(SHOP) },
    draft: bytes(draft),
    maxBodyBytes: 512_000,
    targets: [
      { url: `${ORIGIN}/`, isRoot: true, agents: [{ token: 'Googlebot', family: 'search', category: 'search' }] },
      { url: `${ORIGIN}/products/blue-widget`, isRoot: false, agents: [{ token: 'Googlebot', family: 'search', category: 'search' }] },
    ],
    rootCrawlers: [],
    diffCrawlers: [],
    failOn: 'critical',
  };
  return checkDraft(input);
}

describe('workflow command escaping', () => {
  it.each([
    ['100% sure', '100%25 sure', '100%25 sure'],
    ['a\r\nb', 'a%0D%0Ab', 'a%0D%0Ab'],
    ['lint: x, y', 'lint: x, y', 'lint%3A x%2C y'],
  ])('%j -> data %j, property %j', (text, data, property) => {
    expect(escapeCommandData(text)).toBe(data);
    expect(escapeCommandProperty(text)).toBe(property);
  });
});

describe('--format github', () => {
  it('errors on the draft line that blocks Googlebot, the lint warning beside, a plain summary last', () => {
    const out = githubAnnotations(report('User-agent: *\nDisallow: /\n'), 'public/robots.txt').trimEnd().split('\n');
    expect(out[0]).toBe('::error file=public/robots.txt,line=2,title=robots-audit critical%3A disallow_all_added::Disallow: / added for * on https://shop.example');
    expect(out[1]).toMatch(/^::error file=public\/robots.txt,line=2,title=robots-audit critical%3A search_url_disallowed::.*https:\/\/shop.example\/products\/blue-widget allowed -> disallowed for Googlebot \(search\)/);
    expect(out).toContain('::warning file=public/robots.txt,line=2,title=robots-audit lint%3A disallow-all::"Disallow: /" in the "*" group blocks the whole site for every crawler that has no group of its own.');
    expect(out.at(-1)).toMatch(/^robots-audit test-draft https:\/\/shop.example: 2 verdicts would flip; FAIL/);
  });

  it('no file (standard input): the annotations are not attached to a line', () => {
    const out = githubAnnotations(report('User-agent: *\nDisallow: /\n'), null);
    expect(out).toContain('::error title=robots-audit critical%3A disallow_all_added::');
    expect(out).not.toContain('line=');
  });

  it('hostile text: an ESC in a rule is a marker, a newline cannot end the command early', () => {
    const out = githubAnnotations(report(`User-agent: *\nDisallow: /\u001b[2J\nDisallow: /products/\r\n`), 'robots.txt');
    expect(out).not.toContain('\u001b');
    for (const line of out.trimEnd().split('\n')) expect(line.startsWith('::') || line.startsWith('robots-audit test-draft')).toBe(true);
  });

  it('a comment only: a pass, no annotation', () => {
    expect(githubAnnotations(report(`# hello\n${SHOP}`), 'robots.txt')).toBe('robots-audit test-draft https://shop.example: 0 verdicts would flip; PASS: no access alert at or above critical: exit 0\n');
  });
});

describe('table and JSON', () => {
  it('the table names the flip, the lines before and after, and the verdict of the check', () => {
    const text = formatDraftTable(report('User-agent: *\nDisallow: /\n'), SOURCES);
    expect(text).toContain('critical  allowed -> disallowed  https://shop.example/products/blue-widget  Googlebot (search)');
    expect(text).toContain('in force: line 3: Allow: /products/; draft: line 2: Disallow: / [search_url_disallowed]');
    expect(text.trimEnd().split('\n').at(-1)).toBe('FAIL: 2 alerts at or above critical (disallow_all_added, search_url_disallowed): exit 1');
  });

  it('JSON names the flipped URL and Googlebot, and the exit code', () => {
    const json = draftJson(report('User-agent: *\nDisallow: /\n'), SOURCES);
    expect(json.exitCode).toBe(1);
    expect(json.flips.map((f) => [f.url, f.crawler, f.allowedBefore, f.allowedAfter, f.severity])).toContainEqual([`${ORIGIN}/products/blue-widget`, 'Googlebot', true, false, 'critical']);
  });
});

describe('usage preferences the draft changes (issue 28)', () => {
  // A right-to-left override in the line's value: a marker in the table, JSON's own escape in --format json.
  const draft = `User-agent: *\nContent-Signal: ai-train=no, note=\u202eon\nDisallow: /cart\nAllow: /products/\n`;

  it('the table lists each change, before -> after with the deciding line, its value made visible', () => {
    const table = formatDraftTable(report(draft), SOURCES);
    expect(table).toContain('Usage preferences that would change (2;');
    expect(table).toContain(`  info      ai-train: unknown -> refused  ${ORIGIN}/  Googlebot (search)`);
    expect(table).toContain('in force: not stated; draft: line 2 (Content-Signal ai-train): ai-train=no, note=<U+202E>on [ai_training_refused]');
    expect(table).not.toContain('\u202e');
  });

  it('the JSON lists every change with its alert and severity', () => {
    const json = draftJson(report(draft), SOURCES);
    expect(json.usageFlips).toEqual([
      {
        url: `${ORIGIN}/`,
        isRoot: true,
        crawler: 'Googlebot',
        category: 'search',
        family: 'search',
        purpose: 'ai-train',
        preferenceBefore: 'unknown',
        preferenceAfter: 'refused',
        ruleBefore: null,
        ruleAfter: { line: 2, mechanism: 'content-signal', label: 'ai-train', value: 'ai-train=no, note=\u202eon' },
        alert: 'ai_training_refused',
        severity: 'info',
      },
      expect.objectContaining({ url: `${ORIGIN}/products/blue-widget`, purpose: 'ai-train' }),
    ]);
    expect(json.alerts.find((a) => a.kind === 'ai_training_refused')).toMatchObject({ severity: 'info', aboutAccess: true, failing: false, lines: [2] });
  });
});
