/**
 * What the pipeline benches share (pipeline.ts, million.ts): the loopback web in a process of its
 * own (load-web.ts), a `robots-audit worker` process with its memory read from /proc, the peer
 * (a plain node:http loop, `RAW_CONCURRENCY` at a time, a new connection each) and the
 * database's bytes after VACUUM.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import readline from 'node:readline';
import type pg from 'pg';
import { ROOT } from './bench-doc.js';

/** The peer's fetches in flight. */
export const RAW_CONCURRENCY = 64;
/** Real internet latency, as the web delays each answer when asked: uniform in this range, ms. */
export const LATENCY: [number, number] = [200, 400];
export const REDIS_URL = 'redis://127.0.0.1:6379';

/** A child process that speaks JSON lines on stdout. */
function lines(child: ChildProcess): AsyncIterator<string> {
  return readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
}

export interface LoadWeb {
  port: number;
  pid: number;
  command: (c: object) => Promise<Record<string, unknown>>;
  close: () => void;
}

export async function startWeb(): Promise<LoadWeb> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/bench/load-web.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const out = lines(child);
  const { port } = JSON.parse((await out.next()).value as string) as { port: number };
  return {
    port,
    pid: child.pid!,
    async command(c) {
      child.stdin!.write(`${JSON.stringify(c)}\n`);
      return JSON.parse((await out.next()).value as string) as Record<string, unknown>;
    },
    close: () => child.kill('SIGTERM'),
  };
}

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM, RssAnon); 0 once the process is gone. */
export function procStatus(pid: number, field: string): number {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return 0;
  }
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
  return Number(kb ?? 0) * 1024;
}

export interface Worker {
  child: ChildProcess;
  /** Resident memory now, bytes. */
  rss(): number;
  /** Peak resident memory, bytes. */
  peakRss(): number;
  stop(): Promise<void>;
}

/** `robots-audit worker` from the built `bin`, with `env` over this process's; resolves once it says it started. */
export async function startWorker(env: Record<string, string>, profile: string | null, bin: string): Promise<Worker> {
  const node = [...(process.env.BENCH_WORKER_FLAGS?.split(' ').filter(Boolean) ?? []), ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [])];
  const child = spawn(process.execPath, [...node, bin, 'worker'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    const rl = readline.createInterface({ input: child.stderr! });
    rl.on('line', (line) => {
      if (line.includes('"worker started"')) resolve();
      else if (/"level":(50|60)/.test(line)) process.stderr.write(`worker: ${line}\n`);
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
  });
  return {
    child,
    rss: () => procStatus(child.pid!, 'VmRSS'),
    peakRss: () => procStatus(child.pid!, 'VmHWM'),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The peer: a plain node:http loop over sites `0..sites-1`' robots.txt, `RAW_CONCURRENCY` at a time, a new connection each. */
export async function rawFetchRate(port: number, sites: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  const one = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/robots.txt', headers: { host: `s${i}.load.test` }, agent: false }, (res) => {
        res.on('data', () => {});
        res.on('end', resolve);
        res.on('error', reject);
      });
      req.on('error', reject);
    });
  await Promise.all(
    Array.from({ length: RAW_CONCURRENCY }, async () => {
      while (next < sites) await one(next++);
    }),
  );
  return sites / ((performance.now() - started) / 1000);
}

/** Every table and index of the database (pg_total_relation_size), after VACUUM ANALYZE. */
export async function databaseBytes(pool: pg.Pool): Promise<number> {
  await pool.query('vacuum analyze');
  const { rows } = await pool.query<{ n: string }>(
    `select coalesce(sum(pg_total_relation_size(c.oid)), 0) as n from pg_class c join pg_namespace s on s.oid = c.relnamespace
     where s.nspname = 'public' and c.relkind in ('r', 'm')`,
  );
  return Number(rows[0]!.n);
}
