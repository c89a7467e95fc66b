/**
 * A redis-server of a test's own: a child process on 127.0.0.1 and a free port, its files in a
 * directory of its own, answering before the promise resolves, and killed by the test. For what
 * the machine's shared Redis must not see: a server killed or restarted, another configuration
 * (an eviction policy, persistence, a command renamed away), Sentinel. `redis-server` is the
 * machine's (Debian's package); Sentinel is the same binary with `--sentinel`.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeTcpPort } from './nginx.js';

/** A server reads its configuration and binds in milliseconds; this is the margin of a loaded CI machine. */
const START_TIMEOUT_MS = 10_000;
/** Another process may take the free port before the server binds it: so many tries with a new one. */
const PORT_TRIES = 5;

export interface RedisServerOptions {
  /** Lines of redis.conf after the port, address and directory (for Sentinel: its `sentinel` lines). */
  config?: (port: number) => string[];
  /** Command-line arguments after the configuration file (`--maxmemory-policy`, `allkeys-lru`). */
  args?: string[];
  /** Start as a Sentinel (`redis-server <conf> --sentinel`). */
  sentinel?: boolean;
  /** Where its configuration and any data go; a new directory (removed by stop) when left out. */
  dir?: string;
  /** A name in its files and messages (`primary`, `sentinel-1`). */
  name?: string;
}

export interface RedisServerProcess {
  readonly name: string;
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  readonly dir: string;
  readonly child: ChildProcess;
  /** What it wrote (its log) so far. */
  log(): string;
  /** Sends `signal` (SIGKILL by default: no goodbye to replicas or Sentinels) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Kills it if it still runs, and removes its directory if it made it. */
  stop(): Promise<void>;
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves once something on `port` answers PING with a Redis reply (`+PONG`, or `-NOAUTH` from a server with a password). */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (chunk: Buffer) => done(/^[+-]/.test(chunk.toString('latin1'))));
  });
}

async function startOn(port: number, dir: string, name: string, options: RedisServerOptions): Promise<{ child: ChildProcess; log: () => string } | 'port taken'> {
  const file = join(dir, `${name}.conf`);
  // Each server has files of its own in the directory (Sentinel rewrites its configuration as it
  // learns); a Sentinel's holds no data options.
  const files = options.sentinel ? [] : [`dbfilename ${name}.rdb`, `appendfilename ${name}.aof`, `appenddirname ${name}-aof`];
  await writeFile(file, [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, ...files, ...(options.config?.(port) ?? []), ''].join('\n'));
  const child = spawn('redis-server', [file, ...(options.sentinel ? ['--sentinel'] : []), ...(options.args ?? [])], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  let spawnError: Error | null = null;
  child.once('error', (err) => (spawnError = err));
  const lastLines = () => output.trim().split('\n').slice(-3).join(' | ');
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (spawnError) throw new Error(`cannot run redis-server (Debian's package redis-server): ${(spawnError as Error).message}`);
    if (exited(child)) {
      if (/Address already in use/.test(output)) return 'port taken';
      throw new Error(`${name} (redis-server) exited at start: ${lastLines()}`);
    }
    if (await answers(port)) return { child, log: () => output };
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} (redis-server) did not answer on port ${port} within ${START_TIMEOUT_MS} ms: ${lastLines()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServerProcess> {
  const name = options.name ?? 'redis';
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'robots-audit-redis-')));
  try {
    for (let attempt = 1; ; attempt++) {
      const port = await freeTcpPort();
      const started = await startOn(port, dir, name, options);
      if (started === 'port taken') {
        if (attempt < PORT_TRIES) continue;
        throw new Error(`${name} (redis-server): ${PORT_TRIES} free ports taken by another process before it could bind them`);
      }
      const { child, log } = started;
      const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
        if (exited(child)) return;
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill(signal);
        await gone;
      };
      return {
        name,
        port,
        url: `redis://127.0.0.1:${port}`,
        dir,
        child,
        log,
        kill,
        async stop() {
          await kill('SIGKILL');
          if (ownDir) await rm(dir, { recursive: true, force: true });
        },
      };
    }
  } catch (err) {
    if (ownDir) await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
