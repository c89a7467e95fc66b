/**
 * What the benchmarks that compare two versions share: a built checkout of an earlier ref (a git
 * worktree in the temporary folder, built with `npm run build`, sharing this checkout's
 * node_modules), and the CPU a process has spent, read from /proc (clock ticks of 10 ms).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './bench-doc.js';

/** A built checkout of the CLI: this one (`after`) or an earlier ref's (`before`). */
export interface Side {
  name: 'before' | 'after';
  /** The checkout's root: its build is dist/. */
  root: string;
  bin: string;
  label: string;
}

function git(cwd: string, ...a: string[]): string {
  return execFileSync('git', a, { cwd, encoding: 'utf8' }).trim();
}

function build(dir: string): void {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** This checkout, as built (`npm run build`). */
export function currentSide(): Side {
  return { name: 'after', root: ROOT, bin: path.join(ROOT, 'bin/robots-audit.js'), label: git(ROOT, 'rev-parse', '--short', 'HEAD') };
}

/** This checkout, built now. */
export function afterSide(): Side {
  build(ROOT);
  return currentSide();
}

/** `ref` checked out in a worktree of its own and built (kept between runs, rebuilt each time). */
export function beforeSide(ref: string): Side {
  const commit = git(ROOT, 'rev-parse', '--short', ref);
  const dir = path.join(os.tmpdir(), `robots-audit-bench-before-${commit}`);
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: ROOT });
    git(ROOT, 'worktree', 'add', '--detach', dir, commit);
  }
  if (!fs.existsSync(path.join(dir, 'node_modules'))) fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  build(dir);
  return { name: 'before', root: dir, bin: path.join(dir, 'bin/robots-audit.js'), label: commit };
}

/** User plus system CPU a live process has spent, in milliseconds. */
export function processCpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
