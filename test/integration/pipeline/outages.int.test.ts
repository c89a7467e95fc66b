/**
 * A worker whose Postgres or Redis does not answer keeps going and says so once: one log line
 * when the outage starts (no stack trace, password masked), one when it ends; /healthz stays 200
 * and /readyz answers 503 with one line naming the service until it is back. The worker runs in
 * this process (workers/worker.ts) with its log captured; Redis is a redis-server of the test's
 * own, started late on its port, and Postgres is reached through a TCP relay the test opens and
 * closes.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { config as envConfig, loadConfig } from '../../../src/config/env.js';
import { createLogger } from '../../../src/log/logger.js';
import { runWorker } from '../../../workers/worker.js';
import { closedPort } from '../../fixtures/webhook-receiver.js';
import { eventually } from '../../helpers/nightly.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';

/** How often the worker checks its services in these tests: many checks in a short test. */
const PROBE_MS = 100;

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

interface InProcessWorker {
  base: string;
  lines(): LogLine[];
  /** Raw log text, to look for what must never be in it. */
  text(): string;
  stop(): Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startWorker(p: Pipeline, env: Record<string, string>): Promise<InProcessWorker> {
  const port = await closedPort();
  let text = '';
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const config = loadConfig({
    ...p.env,
    ROBOTS_AUDIT_METRICS_HOST: '127.0.0.1',
    ROBOTS_AUDIT_METRICS_PORT: String(port),
    ROBOTS_AUDIT_OUTAGE_PROBE_MS: String(PROBE_MS),
    ROBOTS_AUDIT_SERVICE_CHECK_TIMEOUT_MS: '1000',
    ...env,
  });
  const stop = new AbortController();
  const running = runWorker(config, createLogger('info', sink), { signal: stop.signal });
  const worker: InProcessWorker = {
    base: `http://127.0.0.1:${port}`,
    lines: () =>
      text
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as LogLine),
    text: () => text,
    async stop() {
      stop.abort();
      await running;
    },
  };
  cleanups.push(() => worker.stop());
  await eventually(async () => (await get(worker, '/healthz').catch(() => null))?.status === 200, 'the endpoints to listen', 20_000);
  return worker;
}

async function get(worker: InProcessWorker, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${worker.base}${path}`);
  return { status: res.status, body: await res.text() };
}

const linesAbout = (worker: InProcessWorker, what: string) => worker.lines().filter((l) => l.msg.includes(what));

/** A redis-server on `port` requiring `password`, answering once this resolves. */
async function startRedis(port: number, password: string): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--requirepass', password], { stdio: 'ignore' });
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  });
  return child;
}

/** A TCP relay to the test Postgres (DATABASE_URL's server) that can be opened and closed (connections cut) at will. */
function postgresRelay(port: number) {
  const sockets = new Set<net.Socket>();
  const upstreamUrl = new URL(envConfig().DATABASE_URL);
  const relayServer = net.createServer((client) => {
    const upstream = net.connect(Number(upstreamUrl.port || 5432), upstreamUrl.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  const relay = {
    open: () => new Promise<void>((resolve) => relayServer.listen(port, '127.0.0.1', () => resolve())),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        if (!relayServer.listening) return resolve();
        relayServer.close(() => resolve());
      }),
  };
  cleanups.push(relay.close);
  return relay;
}

describe('Redis unreachable: the worker waits, says it once, and is not ready', () => {
  it('one warning line for the outage, 503 naming Redis, then back: one line, 200', async () => {
    const p = await startPipeline({ workers: false });
    cleanups.push(() => p.close());
    const port = await closedPort();
    const url = `redis://:s3cret@127.0.0.1:${port}`;
    const worker = await startWorker(p, { REDIS_URL: url });

    await eventually(async () => linesAbout(worker, 'worker started').length === 1, 'the worker to start without Redis');
    // Ten probe intervals and every queue, worker and connection failing over and over meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 10 * PROBE_MS));
    expect(await get(worker, '/healthz')).toEqual({ status: 200, body: 'ok\n' });
    expect(await get(worker, '/readyz')).toEqual({ status: 503, body: `not ready: cannot reach Redis at redis://:***@127.0.0.1:${port}: ECONNREFUSED\n` });
    const down = linesAbout(worker, 'Redis at');
    expect(down.map((l) => l.msg)).toEqual([`Redis at redis://:***@127.0.0.1:${port} unreachable: ECONNREFUSED; retrying`]);
    expect(down[0]).toMatchObject({ level: 40, dependency: 'Redis', reason: 'ECONNREFUSED' });
    expect(worker.lines().filter((l) => l.level >= 40)).toHaveLength(1);
    expect(worker.text()).not.toContain('"stack"');
    expect(worker.text()).not.toContain('s3cret');

    await startRedis(port, 's3cret');
    await eventually(async () => linesAbout(worker, 'reachable again').length === 1, 'Redis to be seen back');
    expect(await get(worker, '/readyz')).toEqual({ status: 200, body: 'ready\n' });
    expect(linesAbout(worker, 'Redis at').map((l) => l.msg)).toEqual([
      `Redis at redis://:***@127.0.0.1:${port} unreachable: ECONNREFUSED; retrying`,
      expect.stringMatching(new RegExp(`^Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port} reachable again after \\d+ s$`)),
    ]);
  });
});

describe('Postgres unreachable: at start-up and later', () => {
  it('waits for it at start-up (alive, not ready), starts once it answers, and logs a later outage once', async () => {
    const p = await startPipeline({ workers: false });
    cleanups.push(() => p.close());
    const port = await closedPort();
    const relay = postgresRelay(port);
    const url = new URL(p.db.url);
    url.port = String(port);
    url.password = 'hunter2'; // trust authentication: the server never asks for it, the logs must not show it
    const worker = await startWorker(p, { DATABASE_URL: url.href });
    const shown = `postgres://postgres:***@127.0.0.1:${port}${url.pathname}`;

    await new Promise((resolve) => setTimeout(resolve, 10 * PROBE_MS));
    expect(linesAbout(worker, 'worker started')).toEqual([]);
    expect(await get(worker, '/healthz')).toEqual({ status: 200, body: 'ok\n' });
    expect(await get(worker, '/readyz')).toEqual({ status: 503, body: `not ready: cannot reach Postgres at ${shown}: ECONNREFUSED\n` });
    expect(linesAbout(worker, 'Postgres at').map((l) => l.msg)).toEqual([`Postgres at ${shown} unreachable: ECONNREFUSED; retrying`]);

    await relay.open();
    await eventually(async () => linesAbout(worker, 'worker started').length === 1, 'the worker to start once Postgres answers');
    expect(await get(worker, '/readyz')).toEqual({ status: 200, body: 'ready\n' });

    // Postgres goes away while the worker runs: every connection cut, nothing answers.
    await relay.close();
    await eventually(async () => linesAbout(worker, 'unreachable').length === 2, 'the second outage to be logged');
    await new Promise((resolve) => setTimeout(resolve, 10 * PROBE_MS));
    expect((await get(worker, '/readyz')).status).toBe(503);
    await relay.open();
    await eventually(async () => linesAbout(worker, 'reachable again').length === 2, 'Postgres to be seen back');
    expect(linesAbout(worker, 'Postgres at').map((l) => l.msg.replace(/after \d+ s/, 'after N s'))).toEqual([
      `Postgres at ${shown} unreachable: ECONNREFUSED; retrying`,
      `Postgres at ${shown} reachable again after N s`,
      `Postgres at ${shown} unreachable: ECONNREFUSED; retrying`,
      `Postgres at ${shown} reachable again after N s`,
    ]);
    expect(worker.text()).not.toContain('hunter2');
    expect(worker.text()).not.toContain('"stack"');
  });
});
