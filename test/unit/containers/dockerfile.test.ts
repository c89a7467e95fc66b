/**
 * The Dockerfile, read statically (there is no Docker engine where the tests run): a build stage
 * with the dev dependencies that compiles dist/, and a slim runtime stage with production
 * dependencies only, the compiled code and the migrations, run by an unprivileged user. The
 * integration test test/integration/package/package.int.test.ts replays the runtime stage's
 * install and runs the image's commands.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { environment, execForm, instructions, parseDockerfile, runCommand } from '../../helpers/dockerfile.js';
import type { DockerStage } from '../../helpers/dockerfile.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const stages = parseDockerfile(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
const build = stages.find((s) => s.name === 'build');
const runtime = stages.at(-1)!;

/** The Node line CI tests on besides the machine's own (.ci/run: NODE24_VERSION=24.x.y). */
const ciNodeLine = /^NODE24_VERSION=(\d+)\./m.exec(fs.readFileSync(path.join(ROOT, '.ci/run'), 'utf8'))?.[1];

const runs = (stage: DockerStage) => instructions(stage, 'RUN').map((i) => runCommand(i.args));
/** COPY sources and destination, flags apart: `COPY --from=build /app/dist ./dist`. */
function copies(stage: DockerStage): { from: string | null; sources: string[]; destination: string }[] {
  return instructions(stage, 'COPY').map(({ args }) => {
    const words = args.split(/\s+/);
    const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length) ?? null;
    const paths = words.filter((w) => !w.startsWith('--'));
    return { from, sources: paths.slice(0, -1), destination: paths.at(-1)! };
  });
}

/** Where tsc (tsconfig.build.json) writes the JavaScript of a source file. */
function compiledPath(source: string): string {
  const { config, error } = ts.readConfigFile(path.join(ROOT, 'tsconfig.build.json'), ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const options = (config as { compilerOptions: { outDir: string; rootDir: string } }).compilerOptions;
  return path.posix.join(options.outDir, path.posix.relative(options.rootDir, source)).replace(/\.ts$/, '.js');
}

describe('Dockerfile: two stages', () => {
  it('builds in a stage named build and runs in a later one, both on Node 24, the line CI tests', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(build).toBeDefined();
    expect(runtime).not.toBe(build);
    expect(ciNodeLine).toBe('24');
    expect(build!.base).toMatch(new RegExp(`^node:${ciNodeLine}(?:[.-]|$)`));
    expect(runtime.base).toBe(`node:${ciNodeLine}-slim`);
  });

  it('build stage: every dependency installed (no --omit), then npm run build on the sources', () => {
    const commands = runs(build!);
    const install = commands.findIndex((c) => /^npm ci\b/.test(c));
    expect(install).toBeGreaterThanOrEqual(0);
    expect(commands[install]).not.toContain('--omit');
    expect(commands.indexOf('npm run build')).toBeGreaterThan(install);
    const copied = copies(build!).flatMap((c) => c.sources);
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'src', 'workers']));
  });
});

describe('Dockerfile: the runtime stage', () => {
  it('installs production dependencies only, with scripts off (prepare would try to build)', () => {
    const installs = runs(runtime).filter((c) => /^npm ci\b/.test(c));
    expect(installs).toHaveLength(1);
    expect(installs[0]!.split(/\s+/)).toEqual(expect.arrayContaining(['--omit=dev', '--ignore-scripts']));
    expect(runs(runtime).join('\n')).not.toMatch(/npm (run )?build|tsc/);
  });

  it('takes dist/ from the build stage and the migrations from the context, and no sources', () => {
    const all = copies(runtime);
    expect(all).toContainEqual({ from: build!.name, sources: ['/app/dist'], destination: './dist' });
    expect(all.some((c) => c.from === null && c.sources.includes('migrations'))).toBe(true);
    expect(all.flatMap((c) => c.sources)).not.toContain('src');
  });

  it("gives V8 the young generation the memory figures were measured with (Node 24's own is up to 4 times larger)", () => {
    // NODE_OPTIONS, because V8 takes the semi-space size only at start-up (docs/benchmarks.md).
    expect(environment(runtime)).toMatchObject({ NODE_ENV: 'production', NODE_OPTIONS: '--max-semi-space-size=16' });
  });

  it('runs as an unprivileged user, set after the installs', () => {
    const users = instructions(runtime, 'USER');
    expect(users.length).toBeGreaterThan(0);
    const user = users.at(-1)!.args.split(':')[0];
    expect(['root', '0']).not.toContain(user);
    const order = runtime.instructions.map((i) => i.keyword);
    expect(order.lastIndexOf('USER')).toBeGreaterThan(order.lastIndexOf('RUN'));
  });

  it('starts the compiled CLI entry with node (exec form), the worker by default', () => {
    const [entrypoint] = instructions(runtime, 'ENTRYPOINT');
    const [command] = instructions(runtime, 'CMD');
    expect(execForm(entrypoint!.args)).toEqual(['node', compiledPath('src/cli/entry.ts')]);
    expect(fs.existsSync(path.join(ROOT, 'src/cli/entry.ts'))).toBe(true);
    expect(execForm(command!.args)).toEqual(['worker']);
  });
});

describe('.dockerignore', () => {
  const ignored = fs
    .readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));

  it('keeps local builds, dependencies, tests and secrets out of the context', () => {
    expect(ignored).toEqual(expect.arrayContaining(['.git', 'node_modules', 'dist', 'test', '.env']));
  });

  it('keeps everything the Dockerfile copies from the context', () => {
    const fromContext = stages.flatMap((s) => copies(s).filter((c) => c.from === null).flatMap((c) => c.sources));
    expect(fromContext.length).toBeGreaterThan(0);
    for (const source of fromContext) {
      expect(ignored.filter((pattern) => source === pattern || source.startsWith(`${pattern}/`))).toEqual([]);
      expect(fs.existsSync(path.join(ROOT, source))).toBe(true);
    }
  });
});

describe('parseDockerfile', () => {
  it('reads stages, joins continuations, skips comments and keeps RUN flags apart', () => {
    const parsed = parseDockerfile('# syntax=docker/dockerfile:1\nFROM --platform=linux/amd64 node:20 AS one\nRUN --mount=type=cache,target=/x a \\\n  && b\n# note\nFROM one\nCMD ["x"]\n');
    expect(parsed).toEqual([
      { base: 'node:20', name: 'one', instructions: [{ keyword: 'RUN', args: '--mount=type=cache,target=/x a && b' }] },
      { base: 'one', name: null, instructions: [{ keyword: 'CMD', args: '["x"]' }] },
    ]);
    expect(runCommand(parsed[0]!.instructions[0]!.args)).toBe('a && b');
    expect(execForm('echo x')).toBeNull();
  });

  it('reads the variables ENV sets, a later one winning, and refuses quoting it does not read', () => {
    const [stage] = parseDockerfile('FROM x\nENV A=1 B=--flag=2\nENV A=3\n');
    expect(environment(stage!)).toEqual({ A: '3', B: '--flag=2' });
    expect(() => environment(parseDockerfile('FROM x\nENV A="1 2"\n')[0]!)).toThrow(/without quotes/);
    expect(() => environment(parseDockerfile('FROM x\nENV A 1\n')[0]!)).toThrow(/KEY=value/);
  });
});
