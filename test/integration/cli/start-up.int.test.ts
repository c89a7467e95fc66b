/**
 * Fast start, checked where it happens: a real `robots-audit` process (from the sources) reports
 * the npm packages it loaded. `check`, `lint` and `eval` need commander and the engine only; the
 * database, queue, HTTP and logging libraries cost hundreds of milliseconds of start-up and
 * belong to the commands that use them.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cliProcess } from '../../helpers/cli-process.js';
import { packageOfPath } from '../../helpers/loaded-packages.js';

const REPORTER = fileURLToPath(new URL('../../helpers/loaded-packages.ts', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../fixtures/examples/robots.txt', import.meta.url));
const HEAVY = ['bullmq', 'ioredis', 'pg', 'drizzle-orm', 'undici', 'pino', 'zod', 'cli-progress', 'csv-parse', 'diff'];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'robots-audit-start-up-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI with the reporter preloaded; the packages it loaded, and its exit code. */
function loadedPackages(args: string[], stdin = ''): { code: number | null; packages: string[] } {
  const output = path.join(dir, `${args[0]}-${Date.now()}.json`);
  const [command, cliArgs] = cliProcess(args);
  // The reporter goes after tsx's own --import so that tsx can load it.
  const withReporter = [...cliArgs.slice(0, 2), '--import', REPORTER, ...cliArgs.slice(2)];
  const run = spawnSync(command, withReporter, { input: stdin, env: { ...process.env, ROBOTS_AUDIT_LOADED_PACKAGES_FILE: output }, encoding: 'utf8' });
  return { code: run.status, packages: JSON.parse(fs.readFileSync(output, 'utf8')) as string[] };
}

describe('the packages each command loads', () => {
  it.each([
    ['check', ['check', '--robots', EXAMPLE, '--ua', 'Googlebot', 'https://example.com/private/page'], ''],
    ['lint', ['lint', EXAMPLE], ''],
    ['eval', ['eval'], `${JSON.stringify({ robots: 'User-agent: *\nDisallow: /x\n', ua: 'Googlebot', url: 'https://example.com/x' })}\n`],
    ['--help', ['--help'], ''],
  ])('%s: commander, and none of the heavy libraries', (_name, args, stdin) => {
    const { code, packages } = loadedPackages(args, stdin);
    expect(code).toBe(0);
    expect(packages).toContain('commander');
    expect(packages.filter((p) => HEAVY.includes(p))).toEqual([]);
  });

  it('test-draft --current: the engine, commander, zod for the settings and pg for the database form; no ORM, queue, HTTP or logging library', () => {
    const { code, packages } = loadedPackages(['test-draft', 'https://example.com', EXAMPLE, '--current', EXAMPLE]);
    expect(code).toBe(0);
    expect(packages).toContain('commander');
    // (ES-module packages such as zod and diff do not show in the report.)
    expect(packages).toContain('pg');
    expect(packages.filter((p) => HEAVY.includes(p) && p !== 'pg')).toEqual([]);
  });

  it('worker --help loads the queue and database libraries (the report sees them when they are there)', () => {
    const { code, packages } = loadedPackages(['worker', '--help']);
    expect(code).toBe(0);
    expect(packages).toEqual(expect.arrayContaining(['ioredis', 'pg', 'undici', 'pino']));
  });
});

describe('packageOfPath', () => {
  it.each([
    ['/app/node_modules/pg/lib/index.js', 'pg'],
    ['/app/node_modules/@ioredis/commands/built/index.js', '@ioredis/commands'],
    ['/app/node_modules/bullmq/node_modules/semver/index.js', 'semver'],
    ['/app/src/cli/main.ts', null],
  ])('%s → %s', (file, name) => {
    expect(packageOfPath(file)).toBe(name);
  });
});
