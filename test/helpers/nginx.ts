/**
 * A real web server for the log-import tests: Debian's nginx (package `nginx`; `nginx-light`
 * pulls it in) on 127.0.0.1 and a free port, in the foreground as a child of the test, serving a
 * directory of files and writing its own access log in its default `combined` format. A missing
 * nginx fails the test that asks for one, saying what to install: a skipped test would pass unseen.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const NGINX_PATH = '/usr/sbin/nginx';
/** nginx reads its configuration and binds in milliseconds; this is the margin of a loaded CI machine. */
const START_TIMEOUT_MS = 10_000;
/** SIGQUIT lets nginx finish the requests in flight; after this long it is killed. */
const STOP_TIMEOUT_MS = 5_000;
/** Answered without an access log line, so that waiting for nginx adds nothing to the log read. */
const READY_PATH = '/.nginx-ready';

export interface NginxOptions {
  /** The files served, by path under the root (`/robots.txt`, `/private/a`). */
  files: Record<string, string>;
  /** The time zone nginx writes `$time_local` in (the log's offset): a server's own, not UTC. */
  timeZone?: string;
}

export interface Nginx {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** The access log nginx writes, one line per request as it ends (no `buffer=`). */
  readonly accessLog: string;
  /** Writes (or replaces) a served file; nginx reads it from disk at the next request. */
  serve(path: string, body: string): Promise<void>;
  /** The access log's lines so far. */
  logLines(): Promise<string[]>;
  stop(): Promise<void>;
}

/** A TCP port nobody holds now (the kernel's choice), for the server to bind next. */
export async function freeTcpPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The whole configuration: one process (`master_process off`: no worker to switch to `www-data`,
 * nothing under /run or /var), every path nginx writes in `dir`, and `combined` named as the
 * access log's format so the line is nginx's own default, not one the test chose.
 */
function config(dir: string, port: number): string {
  return `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  default_type text/plain;
  types { text/html html; }
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  access_log ${dir}/access.log combined;
  server {
    listen 127.0.0.1:${port} default_server;
    server_name _;
    root ${dir}/www;
    location = ${READY_PATH} { access_log off; return 204; }
  }
}
`;
}

async function answers(origin: string): Promise<boolean> {
  try {
    const res = await fetch(`${origin}${READY_PATH}`, { signal: AbortSignal.timeout(500) });
    await res.body?.cancel();
    return res.status === 204;
  } catch {
    return false;
  }
}

/** Starts attempted at most (see startNginx). */
const START_ATTEMPTS = 5;

/** nginx on `port` with the configuration written into `dir`, once it answers; its stop leaves `dir`. */
async function startOn(dir: string, port: number, timeZone: string): Promise<{ origin: string; stop: () => Promise<void> }> {
  await writeFile(join(dir, 'nginx.conf'), config(dir, port));
  // -e: the error log from the start, before the configuration names it (the default is stderr here).
  const child: ChildProcess = spawn(NGINX_PATH, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
    // nginx keeps TZ from its environment (and drops the rest): $time_local is written in it.
    env: { TZ: timeZone },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  const errorLog = async () => `${stderr}${await readFile(join(dir, 'error.log'), 'utf8').catch(() => '')}`.trim();
  const stop = async () => {
    if (exitCode === undefined) {
      child.kill('SIGQUIT');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
  };

  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await answers(origin))) {
    if (exitCode !== undefined) throw new Error(`nginx exited (${String(exitCode)}): ${await errorLog()}`);
    if (Date.now() > deadline) {
      const why = await errorLog();
      await stop();
      throw new Error(`nginx did not answer on ${origin} within ${START_TIMEOUT_MS} ms: ${why}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { origin, stop };
}

export async function startNginx(options: NginxOptions): Promise<Nginx> {
  if (!existsSync(NGINX_PATH)) {
    throw new Error(`${NGINX_PATH} not found: the nginx access-log integration test needs nginx (Debian package nginx, or nginx-light)`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'robots-audit-nginx-'));
  const www = join(dir, 'www');
  const serve = async (path: string, body: string) => {
    const file = join(www, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, body);
  };
  for (const [path, body] of Object.entries(options.files)) await serve(path, body);
  // Another process may take the port between its choice and nginx's bind: a new port, a few times.
  let started: { origin: string; stop: () => Promise<void> } | undefined;
  for (let attempt = 1; started === undefined; attempt++) {
    try {
      started = await startOn(dir, await freeTcpPort(), options.timeZone ?? 'UTC');
    } catch (err) {
      if (attempt >= START_ATTEMPTS || !/Address already in use/.test((err as Error).message)) {
        await rm(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }
  const { origin } = started;
  const stopServer = started.stop;
  let stopped: Promise<void> | null = null;
  const stop = () =>
    (stopped ??= (async () => {
      await stopServer();
      await rm(dir, { recursive: true, force: true });
    })());

  const accessLog = join(dir, 'access.log');
  return {
    origin,
    accessLog,
    serve,
    logLines: async () => (await readFile(accessLog, 'utf8').catch(() => '')).split('\n').filter((l) => l !== ''),
    stop,
  };
}
