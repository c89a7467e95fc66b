/**
 * `robots-audit worker` and `scheduler` read Redis' eviction policy and persistence at start
 * (ROBOTS_AUDIT_REDIS_CHECK): real processes from the sources, each against a redis-server of
 * the test's own started with the setting under test.
 */
import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliProcess } from '../../helpers/cli-process.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { startRedisServer } from '../../helpers/redis-server.js';
import type { RedisServerProcess } from '../../helpers/redis-server.js';
import { spawnWorker, stopWorker } from '../../helpers/worker-process.js';
import type { WorkerProcess } from '../../helpers/worker-process.js';

interface LogLine {
  level: number;
  msg: string;
}

let p: Pipeline;
const servers: RedisServerProcess[] = [];
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  p = await startPipeline({ workers: false });
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => stopWorker(w)));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});
afterAll(async () => p?.close());

async function redisWith(args: string[]): Promise<RedisServerProcess> {
  const server = await startRedisServer({ args });
  servers.push(server);
  return server;
}

function worker(redis: RedisServerProcess, env: Record<string, string> = {}): WorkerProcess {
  const w = spawnWorker(p, { REDIS_URL: redis.url, ...env });
  workers.push(w);
  return w;
}

/** The JSON log lines, without the line the CLI writes last when a command fails. */
function logLines(stderr: string): LogLine[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/** What the process wrote that is not a JSON log line. */
function plainLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line !== '' && !line.startsWith('{'));
}

const NO_PERSISTENCE = ['--save', '', '--appendonly', 'no'];

describe('an eviction policy other than noeviction: refused', () => {
  it('the worker exits 2 with one line: what it found, the fix, the setting that lets it start', async () => {
    const redis = await redisWith(['--maxmemory-policy', 'allkeys-lru', ...NO_PERSISTENCE]);
    const w = worker(redis);
    const { code } = await w.exited;
    expect(code).toBe(2);
    expect(plainLines(w.stderr())).toEqual([
      `robots-audit: Redis at ${redis.url} may evict keys (maxmemory-policy allkeys-lru): an evicted key loses a queued job or the lock of a running one, and BullMQ needs noeviction. ` +
        "Fix: CONFIG SET maxmemory-policy noeviction, and the same in redis.conf or your service's parameters; or set ROBOTS_AUDIT_REDIS_CHECK=warn to start anyway",
    ]);
    expect(w.stderr()).not.toContain('"worker started"');
  });

  it('the scheduler too', async () => {
    const redis = await redisWith(['--maxmemory-policy', 'volatile-ttl']);
    const { DATABASE_URL: databaseUrl, ...env } = p.env;
    const child = spawn(...cliProcess(['scheduler', '--database-url', databaseUrl!]), { env: { ...process.env, ...env, REDIS_URL: redis.url }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(plainLines(stderr)).toEqual([expect.stringMatching(/^robots-audit: Redis at redis:\/\/127\.0\.0\.1:\d+ may evict keys \(maxmemory-policy volatile-ttl\): .*ROBOTS_AUDIT_REDIS_CHECK=warn to start anyway$/)]);
  });

  it('ROBOTS_AUDIT_REDIS_CHECK=warn: it starts, and warns', async () => {
    const redis = await redisWith(['--maxmemory-policy', 'allkeys-lru', '--appendonly', 'yes']);
    const w = worker(redis, { ROBOTS_AUDIT_REDIS_CHECK: 'warn' });
    await w.started();
    const warnings = logLines(w.stderr()).filter((l) => l.level === 40);
    expect(warnings.map((l) => l.msg)).toEqual([expect.stringMatching(/may evict keys \(maxmemory-policy allkeys-lru\).*; started anyway \(ROBOTS_AUDIT_REDIS_CHECK=warn\)$/)]);
  });
});

describe('no persistence (what CI and the tests run): a warning, and the worker starts', () => {
  it('says a restart costs time, not data', async () => {
    const redis = await redisWith(NO_PERSISTENCE);
    const w = worker(redis);
    await w.started();
    const lines = logLines(w.stderr());
    expect(lines.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([
      `Redis at ${redis.url} keeps nothing on disk (appendonly no, no save points): a Redis restart forgets every queued job; ` +
        "the scheduler's reconcile loop queues them again from Postgres within a minute, so a restart costs time, not data. " +
        'To keep the queues across a restart: CONFIG SET appendonly yes, and appendonly yes with appendfsync everysec in redis.conf; ROBOTS_AUDIT_REDIS_CHECK=strict refuses such a Redis',
    ]);
    expect(lines.map((l) => l.msg)).toContain(`Redis at ${redis.url}: maxmemory-policy noeviction, appendonly no, no save points (read with CONFIG GET)`);
  });

  it('ROBOTS_AUDIT_REDIS_CHECK=strict refuses it', async () => {
    const redis = await redisWith(NO_PERSISTENCE);
    const w = worker(redis, { ROBOTS_AUDIT_REDIS_CHECK: 'strict' });
    expect((await w.exited).code).toBe(2);
    expect(plainLines(w.stderr())).toEqual([expect.stringMatching(/^robots-audit: Redis at .* keeps nothing on disk .*; or set ROBOTS_AUDIT_REDIS_CHECK=standard to start with a warning$/)]);
  });
});

describe('AOF on, noeviction: no warning', () => {
  it('the worker starts and says what it read', async () => {
    const redis = await redisWith(['--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '']);
    const w = worker(redis);
    await w.started();
    const lines = logLines(w.stderr());
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    expect(lines.map((l) => l.msg)).toContain(`Redis at ${redis.url}: maxmemory-policy noeviction, appendonly yes, no save points (read with CONFIG GET)`);
  });
});

describe('CONFIG renamed away (as managed services do): read through INFO', () => {
  it('eviction still refused', async () => {
    const redis = await redisWith(['--rename-command', 'CONFIG', '', '--maxmemory-policy', 'allkeys-random']);
    const w = worker(redis);
    expect((await w.exited).code).toBe(2);
    expect(plainLines(w.stderr())).toEqual([expect.stringMatching(/^robots-audit: Redis at .* may evict keys \(maxmemory-policy allkeys-random\): /)]);
  });

  it('AOF off, save points not shown: started, saying what it could not see', async () => {
    const redis = await redisWith(['--rename-command', 'CONFIG', '', ...NO_PERSISTENCE]);
    const w = worker(redis);
    await w.started();
    const lines = logLines(w.stderr());
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    expect(lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining([
        `Redis at ${redis.url}: maxmemory-policy noeviction, appendonly no, save not shown (read with INFO)`,
        `Redis at ${redis.url}: its persistence could not be read whole (INFO does not show save points); AOF or RDB snapshots are recommended`,
      ]),
    );
  });
});

describe('ROBOTS_AUDIT_REDIS_CHECK=off', () => {
  it('nothing read, nothing said: the worker starts on a Redis that evicts', async () => {
    const redis = await redisWith(['--maxmemory-policy', 'allkeys-lru', '--appendonly', 'yes']);
    const w = worker(redis, { ROBOTS_AUDIT_REDIS_CHECK: 'off' });
    await w.started();
    expect(logLines(w.stderr()).filter((l) => /Redis at/.test(l.msg))).toEqual([]);
  });
});
