/**
 * The package as its users get it, and the image's runtime as the Dockerfile makes it.
 *
 * - `npm pack` (its `prepare` builds dist/): a tarball of at most 2 MB holding what runs, no tests.
 * - Installed from that tarball into an empty project (dependencies from the registry): plain
 *   Node, no tsx and no sources, imports the library, finds its types, and runs the CLI.
 * - The Dockerfile's runtime stage replayed in a directory: its `npm ci` (production dependencies
 *   only, scripts off), dist/ and the migrations; then the commands the image runs, with its
 *   ENTRYPOINT: `--version`, `worker --help`, `scheduler --help`, `db migrate` on an empty
 *   database, and `worker` and `scheduler` started and stopped with SIGTERM.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../src/config/env.js';
import { readJournal } from '../../../src/db/migrate.js';
import { environment, execForm, instructions, parseDockerfile, runCommand } from '../../helpers/dockerfile.js';
import { createTestDatabase } from '../../helpers/test-db.js';
import type { TestDatabase } from '../../helpers/test-db.js';
import { cleanupPrefix, uniquePrefix } from '../../helpers/test-queue.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const MAX_TARBALL_BYTES = 2 * 1024 * 1024;
/** npm pack (a full tsc build) and each install from the registry. */
const NPM_TIMEOUT_MS = 5 * 60_000;
const COMMAND_TIMEOUT_MS = 60_000;
const STARTUP_TIMEOUT_MS = 30_000;
const ROBOTS = 'User-agent: *\nDisallow: /private/\n\nUser-agent: Googlebot\nAllow: /private/press/\n';

/** The environment of every child: this one without NODE_OPTIONS, so nothing (tsx) is preloaded. */
function plainEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _preloads, ...env } = process.env;
  return { ...env, ...extra };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; never rejects on a failure, so an assertion shows its output. */
function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? plainEnv(), stdio: ['ignore', 'pipe', 'pipe'], timeout: options.timeoutMs ?? COMMAND_TIMEOUT_MS });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function succeed(command: string, args: string[], options: Parameters<typeof run>[2]): Promise<string> {
  const result = await run(command, args, options);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.code}:\n${result.stderr.slice(-4000)}`);
  return result.stdout;
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'robots-audit-package-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface PackedFile {
  path: string;
  size: number;
}
let tarball: { file: string; size: number; files: PackedFile[] };

beforeAll(async () => {
  const out = await succeed('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT, timeoutMs: NPM_TIMEOUT_MS });
  const [packed] = JSON.parse(out) as { filename: string; size: number; files: PackedFile[] }[];
  tarball = { file: path.join(work, packed!.filename), size: packed!.size, files: packed!.files };
}, NPM_TIMEOUT_MS);

describe('npm pack', () => {
  it('makes a tarball of at most 2 MB', () => {
    expect(fs.statSync(tarball.file).size).toBe(tarball.size);
    expect(tarball.size).toBeLessThanOrEqual(MAX_TARBALL_BYTES);
  });

  it('holds only what runs: the bin, dist/, the migrations, README and package.json; no tests, no sources', () => {
    const paths = tarball.files.map((f) => f.path);
    const outside = paths.filter((p) => !/^(bin\/|dist\/(src|workers)\/|migrations\/)/.test(p) && !['README.md', 'package.json'].includes(p));
    expect(outside).toEqual([]);
    expect(paths.filter((p) => p.startsWith('test/') || p.includes('/test/') || (p.endsWith('.ts') && !p.endsWith('.d.ts')))).toEqual([]);
  });

  it("holds the entries package.json names, every migration of the journal and the demo's data", () => {
    const paths = new Set(tarball.files.map((f) => f.path));
    for (const file of ['bin/robots-audit.js', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/cli/entry.js', 'dist/src/demo/data/histories.bin.br', 'migrations/meta/_journal.json']) expect(paths).toContain(file);
    for (const entry of readJournal()) expect(paths).toContain(`migrations/${entry.tag}.sql`);
  });
});

describe('installed from the tarball into an empty project, used with plain Node', () => {
  const project = path.join(work, 'project');

  beforeAll(async () => {
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'robots-audit-user', private: true, type: 'module' }));
    await succeed('npm', ['install', tarball.file, '--no-audit', '--no-fund'], { cwd: project, timeoutMs: NPM_TIMEOUT_MS });
  }, NPM_TIMEOUT_MS);

  it('brings production dependencies only: no tsx, no TypeScript', () => {
    expect(fs.existsSync(path.join(project, 'node_modules/robots-audit/package.json'))).toBe(true);
    expect(fs.existsSync(path.join(project, 'node_modules/tsx'))).toBe(false);
    expect(fs.existsSync(path.join(project, 'node_modules/typescript'))).toBe(false);
  });

  it("import { parseRobotsTxt } from 'robots-audit' loads dist/ and answers", async () => {
    const script = [
      "import { parseRobotsTxt, lintRobotsTxt, normalizeOrigin } from 'robots-audit';",
      `const robots = parseRobotsTxt(${JSON.stringify(ROBOTS)});`,
      'console.log(JSON.stringify({',
      "  from: import.meta.resolve('robots-audit'),",
      "  googlebotPrivate: robots.isAllowed('https://example.com/private/x', 'Googlebot'),",
      "  googlebotPress: robots.check('https://example.com/private/press/a', 'Googlebot'),",
      "  otherPrivate: robots.check('https://example.com/private/x', 'OtherBot'),",
      "  lintCodes: lintRobotsTxt('Disalow: /x\\n').map((d) => d.code),",
      "  origin: normalizeOrigin('HTTP://Example.COM:80/a'),",
      '}));',
    ].join('\n');
    const out = JSON.parse(await succeed(process.execPath, ['--input-type=module', '--eval', script], { cwd: project })) as Record<string, unknown>;
    expect(out.from).toBe(pathToFileURL(fs.realpathSync(path.join(project, 'node_modules/robots-audit/dist/src/index.js'))).href);
    expect(out).toMatchObject({
      // Googlebot has its own group with no Disallow: everything else is allowed for it.
      googlebotPrivate: true,
      googlebotPress: { allowed: true, line: 5 },
      otherPrivate: { allowed: false, line: 2 },
      origin: 'http://example.com',
    });
    expect(out.lintCodes).toContain('typo-accepted');
  });

  it('ships declarations a TypeScript user compiles against (wrong use is a type error)', async () => {
    fs.writeFileSync(
      path.join(project, 'use.ts'),
      [
        "import { parseRobotsTxt, type Verdict } from 'robots-audit';",
        "const verdict: Verdict = parseRobotsTxt('User-agent: *\\nDisallow: /x\\n').check('https://example.com/x', 'Googlebot');",
        'const allowed: boolean = verdict.allowed;',
        '// @ts-expect-error: a URL is a string',
        "parseRobotsTxt('').isAllowed(42, 'Googlebot');",
        'export { allowed };',
      ].join('\n'),
    );
    // A Node project, so it has Node's types (the declarations use its global URL); this
    // repository's copy of them saves an install.
    const compilerOptions = { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2023', lib: ['es2023'], strict: true, noEmit: true, typeRoots: [path.join(ROOT, 'node_modules/@types')], types: ['node'], skipLibCheck: false };
    fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['use.ts'] }));
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('npx robots-audit check prints the verdict and the deciding line', async () => {
    fs.writeFileSync(path.join(project, 'robots.txt'), ROBOTS);
    const result = await run('npx', ['--no', '--', 'robots-audit', 'check', '--robots', 'robots.txt', '--ua', 'Googlebot', '--ua', 'OtherBot', 'https://example.com/private/x'], { cwd: project });
    expect(result).toMatchObject({ code: 0 });
    expect(result.stdout).toBe(
      [
        'allowed     Googlebot  https://example.com/private/x  (no rule matched; group: Googlebot)',
        'disallowed  OtherBot  https://example.com/private/x  (line 2: Disallow: /private/ in group User-agent: *)',
        '',
      ].join('\n'),
    );
  });

  it('npx robots-audit --version is the package version', async () => {
    expect((await succeed('npx', ['--no', '--', 'robots-audit', '--version'], { cwd: project })).trim()).toBe(VERSION);
  });
});

describe("the image's runtime stage, replayed from the Dockerfile", () => {
  const app = path.join(work, 'app');
  const runtime = parseDockerfile(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')).at(-1)!;
  const entrypoint = execForm(instructions(runtime, 'ENTRYPOINT')[0]!.args)!;
  /** The stage's ENV (NODE_ENV, NODE_OPTIONS), which its install and every container start with. */
  const imageEnv = environment(runtime);
  const install = instructions(runtime, 'RUN')
    .map((i) => runCommand(i.args))
    .find((c) => c.startsWith('npm ci'))!;
  /** `docker run image <args>`: the ENTRYPOINT (`node ...`, here the Node that runs the tests) with these arguments. */
  const image = (args: string[], env: Record<string, string> = {}) => run(process.execPath, [...entrypoint.slice(1), ...args], { cwd: app, env: plainEnv({ ...imageEnv, ...env }) });
  let database: TestDatabase | undefined;
  const started: ChildProcess[] = [];

  beforeAll(async () => {
    fs.mkdirSync(app);
    for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(ROOT, file), path.join(app, file));
    // The stage's own command, word for word (its flags have no quoting to undo).
    const [npm, ...args] = install.split(/\s+/);
    await succeed(npm!, args, { cwd: app, env: plainEnv(imageEnv), timeoutMs: NPM_TIMEOUT_MS });
    // dist/ as the build stage made it (`npm pack` above rebuilt it from these sources).
    fs.cpSync(path.join(ROOT, 'dist'), path.join(app, 'dist'), { recursive: true });
    fs.cpSync(path.join(ROOT, 'migrations'), path.join(app, 'migrations'), { recursive: true });
    database = await createTestDatabase({ empty: true });
  }, NPM_TIMEOUT_MS);

  afterAll(async () => {
    for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await database?.close();
  });

  it('installs production dependencies only, with no install script run', () => {
    expect(install.split(/\s+/)).toEqual(expect.arrayContaining(['--omit=dev', '--ignore-scripts']));
    expect(fs.existsSync(path.join(app, 'node_modules/bullmq'))).toBe(true);
    for (const dev of ['tsx', 'typescript', 'vitest', 'drizzle-kit']) expect(fs.existsSync(path.join(app, 'node_modules', dev))).toBe(false);
  });

  it('--version, worker --help and scheduler --help exit 0', async () => {
    const version = await image(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
    for (const command of ['worker', 'scheduler']) {
      const help = await image([command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: robots-audit ${command} [options]`);
    }
  });

  it('db migrate applies every migration to an empty database, then finds nothing to do', async () => {
    const env = { DATABASE_URL: database!.url };
    const first = await image(['db', 'migrate'], env);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const applied = readJournal().map((e) => `applied ${e.tag}\n`).join('');
    expect(first.stdout.startsWith(applied)).toBe(true);
    expect(first.stdout.slice(applied.length)).toMatch(/^added \d{3} crawlers of the catalogue\n$/);
    expect(await image(['db', 'migrate'], env)).toMatchObject({ code: 0, stdout: 'already up to date\n' });
  });

  it.each(['worker', 'scheduler'])('%s starts on the migrated database and exits 0 on SIGTERM', async (command) => {
    const prefix = uniquePrefix();
    const child = spawn(process.execPath, [...entrypoint.slice(1), command], {
      cwd: app,
      env: plainEnv({ ...imageEnv, DATABASE_URL: database!.url, REDIS_URL: config().REDIS_URL, ROBOTS_AUDIT_QUEUE_PREFIX: prefix, ROBOTS_AUDIT_LOG_LEVEL: 'info' }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    started.push(child);
    let log = '';
    child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + STARTUP_TIMEOUT_MS;
      while (!log.includes(`"${command} started"`) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(log).toContain(`"${command} started"`);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(log).toContain(`"${command} stopped"`);
    } finally {
      await cleanupPrefix(config().REDIS_URL, prefix);
    }
  });
});
