import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LINT_CODES, lintRobotsTxt } from '../../../src/robots/index.js';
import { runCli } from '../../helpers/cli.js';

const EXAMPLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/examples/robots.txt');
const LINE_FORMAT = /^(\d+):(error|warning|info):([a-z0-9-]+): (.+)$/;

const HTML = '<!DOCTYPE html>\n<html><head><title>Not found</title></head>\n<body>User-agent: *</body></html>\n';
const TYPO = 'User-agent: *\nDisalow: /private/\n';

describe('lint: one diagnostic per line, LINE:severity:code: message', () => {
  it('prints exactly what the linter reports, in its order', async () => {
    const body = fs.readFileSync(EXAMPLE);
    const run = await runCli(['lint', EXAMPLE]);
    const expected = lintRobotsTxt(body, { portability: true }).map((d) => `${d.line}:${d.severity}:${d.code}: ${d.message}`);
    expect(expected.length).toBeGreaterThan(0);
    expect(run.stdout).toBe(expected.map((l) => `${l}\n`).join(''));
  });

  it.each([
    ['a typo Google accepts', TYPO, 'typo-accepted', 2],
    ['an HTML page', HTML, 'html-body', 1],
  ])('%s', async (_name, body, code, line) => {
    const run = await runCli(['lint', '-'], { stdin: body });
    const rows = run.stdout.trimEnd().split('\n');
    for (const row of rows) expect(row).toMatch(LINE_FORMAT);
    const parsed = rows.map((r) => LINE_FORMAT.exec(r)!);
    expect(parsed.some((m) => m[3] === code && Number(m[1]) === line && m[2] === LINT_CODES[code as keyof typeof LINT_CODES].severity)).toBe(true);
  });
});

describe('lint: usage preferences (issue 28)', () => {
  it('reports the engine\'s usage findings and the crawler-aware one (D-14), in line order', async () => {
    const body = 'Content-Signal: ai-train=no\nUser-agent: GPTBot\nDisallow: /\nContent-Signal: ai-train=yes\n\nUser-agent: *\nAllow: /\nContent-Usage: train-ai=n\n';
    const run = await runCli(['lint', '-'], { stdin: body });
    expect(run.stdout.trimEnd().split('\n').map((r) => LINE_FORMAT.exec(r)!.slice(1, 4).join(':'))).toEqual([
      '1:error:usage-outside-group',
      '4:info:usage-contradicts-crawl',
      '8:info:usage-no-path',
      '8:info:usage-contradicts-crawl',
    ]);
    expect(run.code).toBe(1);
  });

  it('a control character in a quoted value is shown as a marker, never written', async () => {
    const run = await runCli(['lint', '-'], { stdin: 'User-agent: *\nContent-Signal: ai-train=n\u001b[2J\n' });
    expect(run.stdout).toMatch(/^2:warning:usage-bad-value: "Content-Signal: ai-train=n<U\+001B>\[2J": "ai-train=n<U\+001B>\[2J"\./m);
    expect(run.stdout).not.toContain('\u001b');
  });
});

describe('lint: exit code', () => {
  it('is 1 when there is an error-severity diagnostic', async () => {
    const run = await runCli(['lint', '-'], { stdin: HTML });
    expect(run.stdout).toMatch(/:error:html-body: /);
    expect(run.code).toBe(1);
  });

  it('is 0 with warnings only', async () => {
    const run = await runCli(['lint', '-'], { stdin: TYPO });
    expect(run.stdout).toMatch(/:warning:typo-accepted: /);
    expect(run.stdout).not.toMatch(/:error:/);
    expect(run.code).toBe(0);
  });

  it('is 2 when the file cannot be read', async () => {
    const run = await runCli(['lint', '/nonexistent/robots.txt']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/cannot read \/nonexistent\/robots\.txt/);
  });
});

describe('lint: summary on standard error', () => {
  it.each([
    ['counts by severity', HTML, /^<stdin>: [1-9]\d* errors?, \d+ warnings?, \d+ info\n$/],
    ['says so when there is nothing', 'User-agent: *\nDisallow: /private/\n', /^<stdin>: no problems found\n$/],
  ])('%s', async (_name, body, summary) => {
    const run = await runCli(['lint', '-'], { stdin: body });
    expect(run.stderr).toMatch(summary);
  });

  it('names the file it read', async () => {
    const run = await runCli(['lint', EXAMPLE]);
    // The warnings: Googlebot's own group leaves /tmp/ and /search of the `*` group open (R-40, T26).
    // The infos: crawl-delay, and three rules python-urllib reads differently (issue 19).
    expect(run.stderr).toBe(`${EXAMPLE}: 0 errors, 2 warnings, 4 info\n`);
  });
});

describe('lint --all: trivia', () => {
  it('adds comments and empty lines only with --all', async () => {
    const plain = await runCli(['lint', EXAMPLE]);
    const all = await runCli(['lint', '--all', EXAMPLE]);
    expect(plain.stdout).not.toMatch(/:info:(comment|empty-line):/);
    expect(all.stdout).toMatch(/^1:info:comment: /m);
    expect(all.stdout).toMatch(/^3:info:empty-line: /m);
    // Everything reported without --all is reported with it too.
    for (const line of plain.stdout.trimEnd().split('\n')) expect(all.stdout).toContain(`${line}\n`);
  });
});

describe('lint --json', () => {
  it('writes the diagnostics as JSON Lines', async () => {
    const run = await runCli(['lint', '--json', '-'], { stdin: TYPO });
    const rows = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as unknown);
    expect(rows).toEqual(lintRobotsTxt(Buffer.from(TYPO), { portability: true }));
  });
});

describe('lint: other parsers (issue 19)', () => {
  it('reports the rules other parsers read differently, unless --no-portability', async () => {
    const body = 'User-agent: *\nDisallow: /*.pdf$\n';
    const run = await runCli(['lint', '-'], { stdin: body });
    expect(run.stdout).toBe(
      '2:info:other-parsers-differ: "Disallow: /*.pdf$" for a crawler without a group of its own: python-urllib does not read wildcards, so /x.pdf stays allowed (/x.pdf: google disallows, python-urllib allows, python-urllib-rfc9309 disallows, scrapy-protego disallows, scrapy-protego-0.7 disallows, node-robots-parser disallows).\n',
    );
    expect((await runCli(['lint', '--no-portability', '-'], { stdin: body })).stdout).toBe('');
  });
});

describe('lint: bytes, not text', () => {
  it('sees a UTF-16 body as Google does (R-20)', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('User-agent: *\r\nDisallow: /\r\n', 'utf16le')]);
    const run = await runCli(['lint', '-'], { stdin: utf16 });
    expect(run.stdout).toMatch(/:error:utf16-body: /);
    expect(run.code).toBe(1);
  });

  it('reports content past 500 KiB (R-18)', async () => {
    const big = `User-agent: *\n${'Disallow: /some/long/path/segment\n'.repeat(16_000)}`;
    expect(Buffer.byteLength(big)).toBeGreaterThan(500 * 1024);
    const run = await runCli(['lint', '-'], { stdin: big });
    expect(run.stdout).toMatch(/:warning:beyond-size-limit: /);
  });
});
