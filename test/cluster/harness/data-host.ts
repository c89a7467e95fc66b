/**
 * The cluster's data host: a PostgreSQL server of its own (Debian's binaries, a fresh data
 * directory, no fsync: the machine's own cluster is left alone), and Redis as production runs it:
 * a primary with append-only persistence, a replica, and three Sentinels (quorum 2) that promote
 * the replica when the primary is gone. Each server listens on an address of its own, so that a
 * host can be cut off from Redis while it still reaches Postgres.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { Redis } from 'ioredis';
import { until } from '../../helpers/poll.js';
import type { Host, Network } from './netns.js';

const PG_BIN = `/usr/lib/postgresql/${fs.readdirSync('/usr/lib/postgresql').sort().at(-1)}/bin`;
/** The name Sentinel knows the primary by (`redis+sentinel://.../<name>`). */
export const SENTINEL_MASTER = 'robots-audit';
const REDIS_PORT = 6379;
const SENTINEL_PORT = 26379;

export interface ManagedProcess {
  child: ChildProcess;
  exited: Promise<void>;
}

/** A child whose output goes to a log file in the cluster's directory. */
export function managed(child: ChildProcess, logFile: string): ManagedProcess {
  const log = fs.createWriteStream(logFile, { flags: 'a' });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, exited };
}

/** Waits until `probe` says yes (test/helpers/poll.ts), within `timeoutMs`. */
export function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  return until(what, probe, timeoutMs);
}

export interface PostgresServer {
  url(database?: string): string;
  /** A fast shutdown (SIGINT), then the same server started again. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPostgres(net: Network, host: Host, dir: string): Promise<PostgresServer> {
  const data = path.join(dir, 'pgdata');
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('chown', ['postgres:postgres', dir]);
  const asPostgres = ['--reuid=postgres', '--regid=postgres', '--init-groups'];
  execFileSync('setpriv', [...asPostgres, `${PG_BIN}/initdb`, '-D', data, '-A', 'trust', '-U', 'postgres', '-N', '-E', 'UTF8', '--locale=C'], { stdio: 'ignore' });
  fs.appendFileSync(path.join(data, 'pg_hba.conf'), `host all all ${net.subnet}.0/24 trust\n`);
  const address = host.address;
  let server: ManagedProcess;
  const start = async () => {
    const child = net.spawnIn(
      host,
      'setpriv',
      [
        ...asPostgres,
        `${PG_BIN}/postgres`,
        '-D',
        data,
        '-c',
        `listen_addresses=${address}`,
        '-c',
        `unix_socket_directories=${dir}`,
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'max_connections=300',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    server = managed(child, path.join(dir, 'postgres.log'));
    await waitFor('postgres to accept connections', async () => {
      const c = new pg.Client({ connectionString: url('postgres'), connectionTimeoutMillis: 1_000 });
      await c.connect();
      await c.end();
      return true;
    });
  };
  const url = (database = 'robots_audit') => `postgres://postgres@${address}:5432/${database}`;
  await start();
  const admin = new pg.Client({ connectionString: url('postgres') });
  await admin.connect();
  await admin.query('create database robots_audit');
  await admin.end();
  return {
    url,
    async restart() {
      server.child.kill('SIGINT');
      await server.exited;
      await start();
    },
    async stop() {
      server.child.kill('SIGINT');
      await server.exited;
    },
  };
}

export interface RedisServers {
  /** The Sentinels' addresses, `host:port`. */
  sentinels: string[];
  /** Where Sentinel says the primary is now, `host:port`. */
  primary(): Promise<string>;
  /** SIGKILL to the current primary; resolves once Sentinel names another one. Returns the old one's address. */
  killPrimary(): Promise<string>;
  /** Starts the server at that address again (it comes back as a replica: Sentinel tells it so). */
  revive(address: string): Promise<void>;
  /** Every Redis address (servers and Sentinels' hosts). */
  addresses: string[];
  stop(): Promise<void>;
}

/**
 * The primary on `primaryHost`'s second address, the replica on its third; a Sentinel on each of
 * the three Redis-side addresses (second, third, fourth). Persistence as the docs ask for it:
 * AOF, fsync every second, no eviction.
 */
export async function startRedis(net: Network, host: Host, dir: string): Promise<RedisServers> {
  const [, primaryAddress, replicaAddress, thirdAddress] = host.addresses;
  if (!primaryAddress || !replicaAddress || !thirdAddress) throw new Error('the data host needs four addresses');
  const servers = new Map<string, ManagedProcess>();
  const sentinels: ManagedProcess[] = [];
  const startServer = async (address: string, replicaOf: string | null) => {
    const serverDir = path.join(dir, `redis-${address}`);
    fs.mkdirSync(serverDir, { recursive: true });
    const args = [
      '--bind', address, '--port', String(REDIS_PORT), '--protected-mode', 'no', '--dir', serverDir,
      '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '', '--maxmemory-policy', 'noeviction',
      // The host has several addresses: say which is this server's, not the one its packets leave from.
      '--replica-announce-ip', address,
      ...(replicaOf ? ['--replicaof', replicaOf, String(REDIS_PORT)] : []),
    ];
    servers.set(address, managed(net.spawnIn(host, 'redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] }), path.join(serverDir, 'redis.log')));
    await waitFor(`redis on ${address}`, async () => (await ping(address, REDIS_PORT)) === 'PONG');
  };
  await startServer(primaryAddress, null);
  await startServer(replicaAddress, primaryAddress);
  for (const address of [primaryAddress, replicaAddress, thirdAddress]) {
    const sentinelDir = path.join(dir, `sentinel-${address}`);
    fs.mkdirSync(sentinelDir, { recursive: true });
    const conf = path.join(sentinelDir, 'sentinel.conf');
    // Sentinel rewrites its file as it learns: one file each.
    fs.writeFileSync(
      conf,
      [
        `bind ${address}`,
        `port ${SENTINEL_PORT}`,
        'protected-mode no',
        `dir ${sentinelDir}`,
        `sentinel announce-ip ${address}`,
        `sentinel monitor ${SENTINEL_MASTER} ${primaryAddress} ${REDIS_PORT} 2`,
        `sentinel down-after-milliseconds ${SENTINEL_MASTER} 1000`,
        `sentinel failover-timeout ${SENTINEL_MASTER} 10000`,
        `sentinel parallel-syncs ${SENTINEL_MASTER} 1`,
        '',
      ].join('\n'),
    );
    sentinels.push(managed(net.spawnIn(host, 'redis-server', [conf, '--sentinel'], { stdio: ['ignore', 'pipe', 'pipe'] }), path.join(sentinelDir, 'sentinel.log')));
    await waitFor(`sentinel on ${address}`, async () => (await ping(address, SENTINEL_PORT)) === 'PONG');
  }
  const sentinelAddresses = [primaryAddress, replicaAddress, thirdAddress].map((a) => `${a}:${SENTINEL_PORT}`);
  const primary = async () => {
    const s = sentinelClient(thirdAddress);
    try {
      await s.connect();
      const [h, p] = (await s.call('SENTINEL', 'get-master-addr-by-name', SENTINEL_MASTER)) as [string, string];
      return `${h}:${p}`;
    } finally {
      s.disconnect();
    }
  };
  // Every Sentinel knows the replica and the other Sentinels before anything is failed over.
  await waitFor('the sentinels to see each other and the replica', async () => {
    const s = sentinelClient(thirdAddress);
    try {
      await s.connect();
      const master = (await s.call('SENTINEL', 'master', SENTINEL_MASTER)) as string[];
      const field = (name: string) => Number(master[master.indexOf(name) + 1]);
      return field('num-slaves') >= 1 && field('num-other-sentinels') >= 2;
    } finally {
      s.disconnect();
    }
  });
  return {
    sentinels: sentinelAddresses,
    primary,
    addresses: [primaryAddress, replicaAddress, thirdAddress],
    async killPrimary() {
      const old = await primary();
      const address = old.split(':')[0]!;
      const server = servers.get(address)!;
      server.child.kill('SIGKILL');
      await server.exited;
      await waitFor('sentinel to promote the replica', async () => (await primary()) !== old, 60_000);
      return address;
    },
    async revive(address) {
      await startServer(address, null);
    },
    async stop() {
      for (const p of [...sentinels, ...servers.values()]) {
        p.child.kill('SIGKILL');
        await p.exited;
      }
    },
  };
}

/** A one-off connection that gives up at its first failure (and does not report it as unhandled). */
function oneOff(host: string, port: number): Redis {
  const r = new Redis({ host, port, lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  r.on('error', () => {});
  return r;
}

function sentinelClient(host: string): Redis {
  return oneOff(host, SENTINEL_PORT);
}

async function ping(host: string, port: number): Promise<string> {
  const r = oneOff(host, port);
  try {
    await r.connect();
    return await r.ping();
  } finally {
    r.disconnect();
  }
}
