/**
 * Issue 17, item 8 (house style, habit 13): a site's ESC and BEL bytes never reach a terminal as
 * they are. Every command that prints a site's text (diff, history, explain, fetch, lint, check)
 * shows them as visible `<U+001B>` / `<U+0007>` markers; their JSON escapes them as JSON does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, replayNight } from '../../helpers/nightly.js';
import { runCli } from '../../helpers/cli.js';

/** Sets the window title, rings the bell, clears the screen and erases the line: if obeyed. */
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\u001b[K';
const BEFORE = 'User-agent: *\nDisallow: /private/\n';
/** The site's text in a group's name, a rule (one not anchored, which lint quotes) and a comment. */
const AFTER = `User-agent: *\nDisallow: /private/\n\nUser-agent: Googlebot${HOSTILE}\nDisallow: x${HOSTILE}\nDisallow: /\n# ${HOSTILE}\n`;

let p: Pipeline;

beforeAll(async () => {
  p = await startPipeline();
  await addSites(p, ['esc']);
  await replayNight(p, '2026-11-01T03:00:00.000Z', { esc: BEFORE });
  await replayNight(p, '2026-11-02T03:00:00.000Z', { esc: AFTER });
}, 60_000);

afterAll(async () => {
  await p?.close();
});

/** A raw ESC or BEL anywhere in the output. */
// eslint-disable-next-line no-control-regex -- the test looks for control bytes
const RAW = /[\u0007\u001b]/;

describe('a site ESC and BEL bytes are shown, never obeyed', () => {
  it.each<[string, () => string[]]>([
    ['diff', () => ['diff', 'esc.test', '--no-color']],
    ['diff --color', () => ['diff', 'esc.test', '--color']],
    ['history', () => ['history', 'esc.test']],
    ['explain', () => ['explain', 'esc.test', '/x', '--ua', 'Googlebot']],
    ['fetch', () => ['fetch', p.web.baseUrl('esc.test'), '--allow-network', '127.0.0.0/8', '--resolve', '*.test=127.0.0.1']],
  ])('%s', async (_name, args) => {
    const run = await p.cli(args());
    expect(run.code, run.stderr).toBe(0);
    // `diff --color` writes its own colour codes (ESC [3xm / 7m): every other ESC is the site's.
    // eslint-disable-next-line no-control-regex -- the command's own SGR codes, taken out
    const site = run.stdout.replace(/\u001b\[(?:3[0-9]|7|27)m/g, '');
    expect(site).not.toMatch(RAW);
    expect(run.stdout).toContain('<U+001B>');
  });

  it('lint', async () => {
    const run = await runCli(['lint', '-'], { stdin: AFTER });
    expect(run.stdout).not.toMatch(RAW);
    expect(run.stdout).toContain('<U+001B>');
  });

  it('check', async () => {
    const run = await runCli(['check', '--robots', '-', 'https://esc.test/x', '--ua', 'Googlebot'], { stdin: AFTER });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(RAW);
    expect(run.stdout).toContain('<U+001B>');
  });

  it('JSON output escapes them as JSON does', async () => {
    const run = await p.cli(['diff', 'esc.test', '--json']);
    expect(run.stdout).not.toMatch(RAW);
    expect(run.stdout).toContain('\\u001b');
  });
});
