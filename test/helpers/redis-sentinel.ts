/**
 * A Sentinel-managed Redis of a test's own: a primary, its replicas and Sentinels watching them,
 * each a redis-server on 127.0.0.1 (test/helpers/redis-server.ts), in one temporary directory.
 * Sentinel's clocks are shortened (a primary is down after `downAfterMs` of silence), so that a
 * test can kill the primary and see a replica promoted within seconds. `url` is REDIS_URL's
 * Sentinel form for the product (src/config/redis-options.ts).
 */
import { until } from './poll.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startRedisServer } from './redis-server.js';
import type { RedisServerProcess } from './redis-server.js';

export interface RedisSentinelOptions {
  /** The master name Sentinel knows the primary by. */
  name?: string;
  /** Replicas of the primary (1). */
  replicas?: number;
  /** Sentinels (1); the quorum is their majority. */
  sentinels?: number;
  /** Silence after which Sentinel takes the primary for down, ms (1,000; Sentinel's own is 30 s). */
  downAfterMs?: number;
  /** Sentinel's failover-timeout, ms (5,000; its own is 3 minutes): also how soon a failover that failed is tried again. */
  failoverTimeoutMs?: number;
  /** Command-line arguments of every data server (the primary and the replicas). */
  serverArgs?: string[];
}

export interface RedisSentinel {
  /** The master name. */
  readonly name: string;
  /** `redis+sentinel://127.0.0.1:<port>[,...]/<name>`: REDIS_URL for the product. */
  readonly url: string;
  /** The data servers: the first primary, then the replicas, in the order they were started. */
  readonly servers: readonly RedisServerProcess[];
  readonly sentinels: readonly RedisServerProcess[];
  /** The port of the server the Sentinels name as primary now (the first Sentinel that answers). */
  primaryPort(): Promise<number>;
  /** Kills the primary with SIGKILL (no goodbye to anyone); resolves with its port. */
  killPrimary(): Promise<number>;
  /** Resolves with the new primary's port once a Sentinel names another than `oldPort` and that one says it is a master. */
  failedOver(oldPort: number, timeoutMs?: number): Promise<number>;
  /**
   * A failover with the primary alive (`SENTINEL FAILOVER`): it is demoted to a replica (and
   * Sentinel has it drop its clients). Resolves once a replica is promoted and the old primary
   * replicates from it (ready for another failover): the old port and the new.
   */
  forceFailover(timeoutMs?: number): Promise<{ from: number; to: number }>;
  /** Kills every process and removes the directory. */
  stop(): Promise<void>;
}

/** One command to a server, on a connection of its own (Sentinels answer a few commands only). */
async function ask<T>(port: number, command: string, ...args: string[]): Promise<T> {
  const redis = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false, connectTimeout: 1_000 });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return (await redis.call(command, ...args)) as T;
  } finally {
    redis.disconnect();
  }
}


/** `INFO replication` as fields. */
async function replication(port: number): Promise<Record<string, string>> {
  const info = await ask<string>(port, 'INFO', 'replication');
  return Object.fromEntries(info.split(/\r?\n/).flatMap((line) => (line.includes(':') ? [[line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)]] : [])));
}

/** Sentinel's answers of `SENTINEL replicas` / `sentinels`: one flat field-value list per entry. */
function entries(reply: string[][]): Record<string, string>[] {
  return reply.map((flat) => Object.fromEntries(flat.flatMap((v, i) => (i % 2 === 0 ? [[v, flat[i + 1]!]] : []))));
}

export async function startRedisSentinel(options: RedisSentinelOptions = {}): Promise<RedisSentinel> {
  const name = options.name ?? 'robots-audit-test';
  const replicaCount = options.replicas ?? 1;
  const sentinelCount = options.sentinels ?? 1;
  const quorum = Math.floor(sentinelCount / 2) + 1;
  const dir = await mkdtemp(join(tmpdir(), 'robots-audit-sentinel-'));
  const started: RedisServerProcess[] = [];
  const stopAll = async () => {
    await Promise.all(started.map((s) => s.kill('SIGKILL')));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    // Nothing kept on disk: a killed server must not come back with the data of another life.
    const dataArgs = ['--save', '', '--appendonly', 'no', ...(options.serverArgs ?? [])];
    const primary = await startRedisServer({ dir, name: 'primary', args: dataArgs });
    started.push(primary);
    const replicas: RedisServerProcess[] = [];
    for (let i = 1; i <= replicaCount; i++) {
      const replica = await startRedisServer({ dir, name: `replica-${i}`, args: [...dataArgs, '--replicaof', '127.0.0.1', String(primary.port)] });
      started.push(replica);
      replicas.push(replica);
    }
    for (const replica of replicas) {
      await until(`${replica.name} to sync with the primary`, async () => (await replication(replica.port)).master_link_status === 'up', 10_000);
    }
    const sentinels: RedisServerProcess[] = [];
    for (let i = 1; i <= sentinelCount; i++) {
      const sentinel = await startRedisServer({
        dir,
        name: `sentinel-${i}`,
        sentinel: true,
        config: () => [
          `sentinel monitor ${name} 127.0.0.1 ${primary.port} ${quorum}`,
          `sentinel down-after-milliseconds ${name} ${options.downAfterMs ?? 1_000}`,
          `sentinel failover-timeout ${name} ${options.failoverTimeoutMs ?? 5_000}`,
          `sentinel parallel-syncs ${name} 1`,
        ],
      });
      started.push(sentinel);
      sentinels.push(sentinel);
    }
    // A failover needs Sentinels that know the replicas (from the primary's INFO) and, past one, each other (hello messages).
    for (const sentinel of sentinels) {
      await until(
        `${sentinel.name} to know the replicas and the other Sentinels`,
        async () => {
          const known = entries(await ask<string[][]>(sentinel.port, 'SENTINEL', 'replicas', name)).filter((r) => !/s_down|disconnected/.test(r.flags ?? ''));
          const peers = entries(await ask<string[][]>(sentinel.port, 'SENTINEL', 'sentinels', name));
          return known.length === replicaCount && peers.length === sentinelCount - 1;
        },
        20_000,
      );
    }

    const servers = [primary, ...replicas];
    const primaryPort = async (): Promise<number> => {
      let lastError: unknown = null;
      for (const sentinel of sentinels) {
        try {
          const [, port] = await ask<[string, string]>(sentinel.port, 'SENTINEL', 'get-master-addr-by-name', name);
          return Number(port);
        } catch (err) {
          lastError = err;
        }
      }
      throw new Error(`no Sentinel answered: ${(lastError as Error | null)?.message ?? 'none started'}`);
    };
    const failedOver = async (oldPort: number, timeoutMs = 30_000): Promise<number> => {
      let promoted = 0;
      await until(
        `Sentinel to promote a replica in place of port ${oldPort}`,
        async () => {
          const port = await primaryPort();
          if (port === oldPort) return false;
          promoted = port;
          return (await replication(port)).role === 'master';
        },
        timeoutMs,
      );
      return promoted;
    };
    return {
      name,
      url: `redis+sentinel://${sentinels.map((s) => `127.0.0.1:${s.port}`).join(',')}/${name}`,
      servers,
      sentinels,
      primaryPort,
      async killPrimary() {
        const port = await primaryPort();
        const server = servers.find((s) => s.port === port);
        if (!server) throw new Error(`the Sentinels name port ${port}, no server of this set`);
        await server.kill('SIGKILL');
        return port;
      },
      failedOver,
      async forceFailover(timeoutMs = 30_000) {
        const from = await primaryPort();
        await ask(sentinels[0]!.port, 'SENTINEL', 'FAILOVER', name);
        const to = await failedOver(from, timeoutMs);
        await until(
          `the old primary (port ${from}) to replicate from the new one`,
          async () => {
            const info = await replication(from);
            return info.role === 'slave' && info.master_port === String(to) && info.master_link_status === 'up';
          },
          timeoutMs,
        );
        return { from, to };
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** Stops a set started by startRedisSentinel (nothing when it never started). */
export async function stopRedisSentinel(set: RedisSentinel | undefined): Promise<void> {
  await set?.stop();
}
