/**
 * A robots-audit deployment on one machine, host by host (netns.ts): a data host (Postgres, a
 * Redis primary, its replica and three Sentinels), a web host serving the audited sites, three
 * worker hosts with one `robots-audit worker` each, and a scheduler host running
 * `robots-audit scheduler`, from which the runs are started (`audit --at`) as an operator would.
 * The test process sits on the switch: it reads Postgres, scrapes the processes' metrics, and
 * receives the alerts' webhooks, as the customer's endpoint on the internet.
 *
 * Every process runs from the sources (tsx), with the settings a deployment across machines has:
 * one DATABASE_URL, one REDIS_URL (through Sentinel), one queue prefix. Job locks are short
 * (ROBOTS_AUDIT_JOB_LOCK_MS 2 s) so that a lost worker's jobs move on within seconds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { startWebhookReceiver } from '../../fixtures/webhook-receiver.js';
import type { WebhookReceiver } from '../../fixtures/webhook-receiver.js';
import { CLI_SOURCE_ENTRY } from '../../helpers/cli-process.js';
import { parseScrape } from '../../helpers/prometheus.js';
import type { Scrape } from '../../helpers/prometheus.js';
import { SENTINEL_MASTER, managed, startPostgres, startRedis, waitFor } from './data-host.js';
import type { ManagedProcess, PostgresServer, RedisServers } from './data-host.js';
import { createNetwork } from './netns.js';
import type { Host, Network } from './netns.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const WEB_HOST_SCRIPT = path.join(ROOT, 'test/cluster/harness/web-host.ts');
export const JOB_LOCK_MS = 2_000;
const METRICS_PORT = 9464;

export interface ClusterOptions {
  sites: number;
  /** Extra environment for every robots-audit process. */
  env?: Record<string, string>;
}

export interface RobotsAuditProcess extends ManagedProcess {
  host: Host;
  /** Everything it logged so far (JSON lines). */
  log(): string;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Cluster {
  net: Network;
  dir: string;
  data: Host;
  web: Host;
  workerHosts: Host[];
  schedulerHost: Host;
  postgres: PostgresServer;
  redis: RedisServers;
  receiver: WebhookReceiver;
  /** The test's own connection to the cluster's database. */
  db: pg.Pool;
  sites: string[];
  workers: Map<string, RobotsAuditProcess>;
  scheduler: RobotsAuditProcess;
  /** A command run on the scheduler host. */
  cli(args: string[]): Promise<CliResult>;
  /** Sets what every site serves (night `version`) and the web's latency. */
  serve(version: number, latency?: [number, number]): Promise<void>;
  /** Requests for /robots.txt per site since the web started. */
  requestCounts(): Promise<Record<string, number>>;
  /** Starts (or starts again) the worker of a worker host. */
  startWorker(host: Host): Promise<RobotsAuditProcess>;
  /** A process's metrics (read as Prometheus reads them: test/helpers/prometheus.ts), or null when it cannot be reached. */
  metrics(p: RobotsAuditProcess): Promise<Scrape | null>;
  close(): Promise<void>;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ra-cluster-'));
  fs.chmodSync(dir, 0o755);
  const net = createNetwork(1 + (process.pid % 250));
  // Run last: the hosts' logs and data go, unless ROBOTS_AUDIT_CLUSTER_KEEP asks to keep them.
  const cleanups: (() => Promise<void> | void)[] = [
    () => net.destroy(),
    () => {
      if (process.env.ROBOTS_AUDIT_CLUSTER_KEEP) console.info(`cluster files kept in ${dir}`);
      else fs.rmSync(dir, { recursive: true, force: true });
    },
  ];
  try {
    const data = net.addHost('data', [10, 11, 12, 13]);
    const web = net.addHost('web', [20]);
    const workerHosts = [1, 2, 3].map((i) => net.addHost(`w${i}`, [30 + i]));
    const schedulerHost = net.addHost('sched', [40]);

    const postgres = await startPostgres(net, data, path.join(dir, 'postgres'));
    cleanups.unshift(() => postgres.stop());
    const redis = await startRedis(net, data, path.join(dir, 'redis'));
    cleanups.unshift(() => redis.stop());
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const receiver = await startWebhookReceiver({ secret, host: net.gateway });
    cleanups.unshift(() => receiver.close());
    const webHost = await startWebHost(net, web, dir);
    cleanups.unshift(() => webHost.close());

    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/root',
      DATABASE_URL: postgres.url(),
      REDIS_URL: `redis+sentinel://${redis.sentinels.join(',')}/${SENTINEL_MASTER}`,
      ROBOTS_AUDIT_QUEUE_PREFIX: 'cluster',
      ROBOTS_AUDIT_LOG_LEVEL: 'info',
      ROBOTS_AUDIT_ALLOW_NETWORKS: `${net.subnet}.0/24`,
      ROBOTS_AUDIT_RESOLVE: `*.test=${web.address}`,
      ROBOTS_AUDIT_JOB_LOCK_MS: String(JOB_LOCK_MS),
      // Below the lock, as the setting's note asks: a frozen worker's transaction is ended before
      // its jobs are taken over, so the others' nights do not wait for it.
      ROBOTS_AUDIT_DB_IDLE_TRANSACTION_MS: String(JOB_LOCK_MS * 0.75),
      ROBOTS_AUDIT_CONNECT_TIMEOUT_MS: '2000',
      ROBOTS_AUDIT_HEADERS_TIMEOUT_MS: '3000',
      ROBOTS_AUDIT_BODY_TIMEOUT_MS: '3000',
      ROBOTS_AUDIT_TOTAL_TIMEOUT_MS: '8000',
      ROBOTS_AUDIT_RETRY_DELAYS: '0.2,0.5',
      ROBOTS_AUDIT_HOST_BUSY_DELAY_MS: '50',
      ROBOTS_AUDIT_CONFIRM_DELAY_MS: '20',
      ROBOTS_AUDIT_FETCH_RATE_PER_SECOND: '0',
      ROBOTS_AUDIT_SHUTDOWN_GRACE_MS: '2000',
      ROBOTS_AUDIT_FETCH_CONCURRENCY: '4',
      ROBOTS_AUDIT_BATCH_SIZE: '5',
      ROBOTS_AUDIT_BATCH_CONCURRENCY: '2',
      ROBOTS_AUDIT_OUTAGE_PROBE_MS: '500',
      ROBOTS_AUDIT_METRICS_PORT: String(METRICS_PORT),
      ROBOTS_AUDIT_SCHEDULER_METRICS_PORT: String(METRICS_PORT),
      ...options.env,
    };

    const cli = (args: string[]): Promise<CliResult> =>
      new Promise((resolve) => {
        const child = net.spawnIn(schedulerHost, process.execPath, ['--import', 'tsx', CLI_SOURCE_ENTRY, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
        child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
        child.once('exit', (code) => resolve({ code, stdout, stderr }));
      });
    const must = async (args: string[]) => {
      const r = await cli(args);
      if (r.code !== 0) throw new Error(`robots-audit ${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
      return r;
    };

    await must(['db', 'migrate']);
    const sites = Array.from({ length: options.sites }, (_, i) => `http://c${i}.test`);
    const list = path.join(dir, 'sites.csv');
    fs.writeFileSync(list, `url\n${sites.join('\n')}\n`);
    await must(['sites', 'import', list]);
    await must(['alerts', 'add', receiver.url, '--secret', secret, '--min-severity', 'info']);

    const db = new pg.Pool({ connectionString: postgres.url(), max: 4 });
    // An idle connection of the test's own dies with a Postgres restart: the next query opens another.
    db.on('error', () => {});
    cleanups.unshift(() => db.end());

    const spawnProcess = async (host: Host, command: 'worker' | 'scheduler'): Promise<RobotsAuditProcess> => {
      const child = net.spawnIn(host, process.execPath, ['--import', 'tsx', CLI_SOURCE_ENTRY, command], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
      let log = '';
      child.stderr!.on('data', (c: Buffer) => (log += c.toString('utf8')));
      const p: RobotsAuditProcess = { ...managed(child, path.join(dir, `${host.name}-${command}.log`)), host, log: () => log };
      const started = command === 'worker' ? '"worker started"' : '"scheduler started"';
      await waitFor(`${command} on ${host.name} to start`, async () => {
        if (child.exitCode !== null) throw new Error(`${command} on ${host.name} exited ${child.exitCode}:\n${log}`);
        return log.includes(started);
      }, 60_000);
      return p;
    };
    const workers = new Map<string, RobotsAuditProcess>();
    const startWorker = async (host: Host) => {
      const w = await spawnProcess(host, 'worker');
      workers.set(host.name, w);
      return w;
    };
    for (const host of workerHosts) await startWorker(host);
    const scheduler = await spawnProcess(schedulerHost, 'scheduler');
    cleanups.unshift(() => stopAll([...workers.values(), scheduler]));

    return {
      net,
      dir,
      data,
      web,
      workerHosts,
      schedulerHost,
      postgres,
      redis,
      receiver,
      db,
      sites,
      workers,
      scheduler,
      cli,
      serve: (version, latency) => webHost.command({ version, ...(latency ? { latency } : {}) }).then(() => undefined),
      requestCounts: () => webHost.command({ counts: true }) as Promise<Record<string, number>>,
      startWorker,
      async metrics(p) {
        try {
          const res = await fetch(`http://${p.host.address}:${METRICS_PORT}/metrics`, { signal: AbortSignal.timeout(3_000) });
          return parseScrape(await res.text());
        } catch {
          return null;
        }
      },
      close: () => runCleanups(cleanups),
    };
  } catch (err) {
    await runCleanups(cleanups);
    throw err;
  }
}

async function runCleanups(cleanups: (() => Promise<void> | void)[]): Promise<void> {
  for (const c of cleanups) {
    try {
      await c();
    } catch {
      // the rest still runs
    }
  }
}

async function stopAll(processes: RobotsAuditProcess[]): Promise<void> {
  for (const p of processes) {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  }
  await Promise.all(processes.map((p) => p.exited));
}

async function startWebHost(net: Network, web: Host, dir: string): Promise<{ command(c: object): Promise<unknown>; close(): void }> {
  const child: ChildProcess = net.spawnIn(web, process.execPath, ['--import', 'tsx', WEB_HOST_SCRIPT, web.address], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr!.pipe(fs.createWriteStream(path.join(dir, 'web.log')));
  const out = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = await out.next();
  if (first.done) throw new Error('the web host exited before it listened');
  // One command at a time: each answer is the next line.
  let chain: Promise<unknown> = Promise.resolve();
  return {
    command(c) {
      const next = chain.then(async () => {
        child.stdin!.write(`${JSON.stringify(c)}\n`);
        return JSON.parse((await out.next()).value as string) as unknown;
      });
      chain = next.catch(() => undefined);
      return next;
    },
    close: () => void child.kill('SIGKILL'),
  };
}
