/**
 * A million sites a night (issue "Beyond one machine, proven"): the nightly pipeline at N sites
 * (1,000,000 by default) as a user runs it, each process on its own, and the dashboard on the
 * database the nights leave. Not a test: it measures, prints a table and rewrites its section of
 * docs/benchmarks.md.
 *
 *   npm run bench:million -- [--sites 1000000] [--workers 1] [--peer-sites 100000] [--nights 3]
 *                            [--no-write] [--profile DIR] [--dashboard-only]
 *
 * Method, in one run:
 * - a database `robots_audit_million_<N>` from the migrated template (kept afterwards, for the
 *   dashboard and for a look by hand; `--dashboard-only` measures the dashboard on it again), and
 *   a queue prefix of its own;
 * - the sites seeded as a user would: `robots-audit sites import` of an N-line file, timed;
 * - the loopback web of bench:pipeline (load-web.ts) in a process of its own;
 * - the peer, before and after the nights: the plain node:http loop of bench:pipeline (64 at a
 *   time, a new connection each) over the first `--peer-sites` sites (100,000 by default: its rate
 *   does not depend on how many hosts the web names, and over a million it would take minutes);
 * - `--workers` `robots-audit worker` processes with the default configuration;
 * - each night started by `robots-audit audit --at <night>` in a process of its own: its time is
 *   the run's start (the site list read, the run's row with it, every batch job enqueued), split
 *   at the row's `started_at`; the night lasts from that command's start to the run's
 *   `finished_at`. Night 1: every site new, answers delayed 200-400 ms (real latency); night 2:
 *   nothing changed, delayed as well; night 3 (`--nights 3`): nothing changed, no delay, the
 *   night the issue compares with the peer;
 * - every 250 ms, the peak RSS (VmHWM) of every process: the worker(s), the `audit` and
 *   `sites import` commands, the web, and the Postgres backends connected to the database (their
 *   VmHWM counts the shared buffers they touched, so their private memory, RssAnon, is given too);
 *   Redis' `used_memory` (the server's, shared with whatever else uses it) and, once a night's jobs
 *   are enqueued, the memory of the queue's own keys (MEMORY USAGE over the prefix);
 * - bytes per site-night: every table and index after VACUUM, after the seed and after each night;
 * - the dashboard (started in this process as `serve` starts it: read-only pool, no JIT) on the
 *   million database after the nights: the overview with its sorts and filters, site pages, the
 *   night and changes pages, and the status CSV (server time from Server-Timing, as
 *   bench:dashboard measures it: dashboard-timing.ts).
 * Environment variables given to this process reach the workers (ROBOTS_AUDIT_FETCH_CONCURRENCY,
 * ROBOTS_AUDIT_WRITE_BATCH, ...), to measure a setting against the defaults.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { drizzle } from 'drizzle-orm/node-postgres';
import { Redis } from 'ioredis';
import pg from 'pg';
import { config } from '../../src/config/env.js';
import { createDb } from '../../src/db/client.js';
import { assertMigrated } from '../../src/db/migrate.js';
import { DEFAULT_PAGE_SIZE } from '../../src/reports/web-paging.js';
import { createDashboard } from '../../src/web/server.js';
import { databaseUrl, ensureTemplateDatabase } from '../helpers/test-db.js';
import { cleanupPrefix } from '../helpers/test-queue.js';
import { ROOT, sectionMarkers, writeBenchSection } from './bench-doc.js';
import { processCpuMs } from './bench-sides.js';
import { download, time } from './dashboard-timing.js';
import type { Download, Timed } from './dashboard-timing.js';
import { databaseBytes, LATENCY, RAW_CONCURRENCY, rawFetchRate, REDIS_URL, procStatus, startWeb, startWorker } from './pipeline-parts.js';
import type { LoadWeb, Worker } from './pipeline-parts.js';

const DAY_MS = 24 * 3600 * 1000;
const FIRST_NIGHT = Date.UTC(2026, 2, 1, 3, 0, 0);
const BIN = path.join(ROOT, 'bin/robots-audit.js');
/** Every process's memory read this often, ms. */
const SAMPLE_MS = 250;
/** Which Postgres backends serve the database, asked this often, ms. */
const BACKENDS_EVERY_MS = 2_000;
/** The run's progress read this often, ms. */
const POLL_MS = 500;
/** The issue's budgets: RSS per process, a dashboard page's server time. */
const RSS_BUDGET = 1024 ** 3;
const PAGE_BUDGET_MS = 200;
const PAGE_RUNS = 5;

interface Args {
  sites: number;
  workers: number;
  peerSites: number;
  nights: number;
  write: boolean;
  profile: string | null;
  dashboardOnly: boolean;
}

function args(): Args {
  const argv = process.argv.slice(2);
  const at = (name: string) => {
    const i = argv.indexOf(name);
    return i === -1 ? undefined : argv[i + 1];
  };
  const whole = (name: string, def: number, min: number) => {
    const n = Number(at(name) ?? def);
    if (!Number.isInteger(n) || n < min) throw new Error(`${name} needs a whole number ≥ ${min}`);
    return n;
  };
  const sites = whole('--sites', 1_000_000, 10);
  return {
    sites,
    workers: whole('--workers', 1, 1),
    peerSites: Math.min(sites, whole('--peer-sites', 100_000, 10)),
    nights: Math.min(whole('--nights', 3, 2), 3),
    write: !argv.includes('--no-write'),
    profile: at('--profile') ?? null,
    dashboardOnly: argv.includes('--dashboard-only'),
  };
}

/** The highest of each figure seen, by the role of the process it was read from. */
class Peaks {
  readonly hwm = new Map<string, number>();
  readonly anon = new Map<string, number>();
  raise(map: Map<string, number>, role: string, bytes: number): void {
    if (bytes > (map.get(role) ?? 0)) map.set(role, bytes);
  }
}

/**
 * Samples every process of the run while it lives: named processes (workers, web, commands)
 * and the Postgres backends connected to `database`; Redis' used_memory.
 */
class Sampler {
  readonly peaks = new Peaks();
  redisUsedMax = 0;
  private readonly procs = new Map<number, string>();
  private backends: number[] = [];
  private timer: NodeJS.Timeout | null = null;
  private backendTimer: NodeJS.Timeout | null = null;
  private redisTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly admin: pg.Pool,
    private readonly database: string,
    private readonly redis: Redis,
  ) {}

  watch(pid: number, role: string): void {
    this.procs.set(pid, role);
  }

  forget(pid: number): void {
    this.sample();
    this.procs.delete(pid);
  }

  start(): void {
    const findBackends = async () => {
      const { rows } = await this.admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [this.database]);
      this.backends = rows.map((r) => r.pid);
    };
    void findBackends();
    this.backendTimer = setInterval(() => void findBackends().catch(() => {}), BACKENDS_EVERY_MS);
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
    this.redisTimer = setInterval(() => void redisUsedMemory(this.redis).then((n) => (this.redisUsedMax = Math.max(this.redisUsedMax, n)), () => {}), BACKENDS_EVERY_MS);
  }

  sample(): void {
    for (const [pid, role] of this.procs) {
      this.peaks.raise(this.peaks.hwm, role, procStatus(pid, 'VmHWM'));
      this.peaks.raise(this.peaks.anon, role, procStatus(pid, 'RssAnon'));
    }
    let anonTogether = 0;
    for (const pid of this.backends) {
      const anon = procStatus(pid, 'RssAnon');
      anonTogether += anon;
      this.peaks.raise(this.peaks.hwm, 'postgres backend', procStatus(pid, 'VmHWM'));
      this.peaks.raise(this.peaks.anon, 'postgres backend', anon);
    }
    this.peaks.raise(this.peaks.anon, 'postgres backends together', anonTogether);
  }

  stop(): void {
    for (const t of [this.timer, this.backendTimer, this.redisTimer]) if (t) clearInterval(t);
    this.sample();
  }
}

async function redisInfoMemory(redis: Redis): Promise<Record<string, string>> {
  const text = await redis.info('memory');
  return Object.fromEntries(
    text
      .split('\r\n')
      .filter((l) => l.includes(':'))
      .map((l) => l.split(':') as [string, string]),
  );
}

async function redisUsedMemory(redis: Redis): Promise<number> {
  return Number((await redisInfoMemory(redis)).used_memory ?? 0);
}

/** The memory of every key under the queue prefix (MEMORY USAGE, SCAN over the prefix), and how many keys. */
async function prefixMemory(redis: Redis, prefix: string): Promise<{ bytes: number; keys: number }> {
  let cursor = '0';
  let bytes = 0;
  let keys = 0;
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    const pipeline = redis.pipeline();
    for (const key of found) pipeline.memory('USAGE', key);
    for (const [err, n] of (await pipeline.exec()) ?? []) if (!err) bytes += Number(n ?? 0);
    keys += found.length;
  } while (cursor !== '0');
  return { bytes, keys };
}

/** Runs the built CLI with `argv` to its end, watched by the sampler; its time, stdout and exit code. */
async function command(sampler: Sampler, role: string, argv: string[], env: Record<string, string>): Promise<{ ms: number; stdout: string }> {
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [BIN, ...argv], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  sampler.watch(child.pid!, role);
  const watch = setInterval(() => sampler.sample(), 50);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  // The last read before it exits: VmHWM is gone with the process.
  child.stdout!.once('end', () => sampler.sample());
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(watch);
  sampler.forget(child.pid!);
  if (code !== 0) throw new Error(`robots-audit ${argv.join(' ')} exited with ${code}: ${stderr}`);
  return { ms: performance.now() - started, stdout };
}

interface Night {
  label: string;
  seconds: number;
  sitesPerSecond: number;
  requests: number;
  /** The workers' CPU over the night, per site (ms). */
  cpuMsPerSite: number;
  /** The `audit` command: its whole time; before the run's row (start-up, the site list); after it (the row, the jobs). */
  startMs: number;
  beforeRowMs: number;
  /** Every key of the queue prefix just after the jobs were enqueued. */
  queueBytes: number;
  queueKeys: number;
  bytesAfter: number;
}

async function night(
  pool: pg.Pool,
  sampler: Sampler,
  redis: Redis,
  web: LoadWeb,
  workers: readonly Worker[],
  env: Record<string, string>,
  prefix: string,
  n: number,
  label: string,
  sites: number,
): Promise<Night> {
  await web.command({ count: true });
  const cpu = () => workers.reduce((sum, w) => sum + processCpuMs(w.child.pid!), 0);
  const cpuAtStart = cpu();
  const at = new Date(FIRST_NIGHT + n * DAY_MS).toISOString();
  const started = Date.now();
  const audit = await command(sampler, 'audit command (run start)', ['audit', '--at', at], env);
  const queue = await prefixMemory(redis, prefix);
  const runId = Number(/^run (\d+)/.exec(audit.stdout)?.[1]);
  if (!Number.isInteger(runId)) throw new Error(`audit said: ${audit.stdout}`);
  let run: { status: string; finished_at: Date | null; started_at: Date };
  for (;;) {
    run = (await pool.query<typeof run>('select status, finished_at, started_at from audit_runs where id = $1', [runId])).rows[0]!;
    if (run.status === 'completed' && run.finished_at) break;
    if (run.status === 'failed') throw new Error(`run ${runId} failed`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  const seconds = (run.finished_at!.getTime() - started) / 1000;
  const { answered } = (await web.command({ count: true })) as { answered: number };
  const cpuMsPerSite = (cpu() - cpuAtStart) / sites;
  const bytesAfter = await databaseBytes(pool);
  return {
    label,
    seconds,
    sitesPerSecond: sites / seconds,
    requests: answered,
    cpuMsPerSite,
    startMs: audit.ms,
    beforeRowMs: run.started_at.getTime() - started,
    queueBytes: queue.bytes,
    queueKeys: queue.keys,
    bytesAfter,
  };
}

interface PageTime {
  page: string;
  label: string;
  path: string;
  timed: Timed;
}

/** The dashboard on the million database: the overview, site pages, night and changes, the status CSV. */
async function measureDashboard(database: string, sites: number): Promise<{ pages: PageTime[]; csv: Download[] }> {
  const handle = createDb(databaseUrl(database), { max: 8 + 2, readOnly: true, jit: false, applicationName: 'robots-audit bench:million' });
  await assertMigrated(drizzle(handle.pool));
  const app = await createDashboard({ pool: handle.pool, token: null, databaseName: database, downloads: 2 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const one = async (sql: string) => (await handle.pool.query<{ v: string }>(sql)).rows[0]?.v ?? '';
  const busy = await one(`select s.origin as v from sites s join site_state x on x.site_id = s.id where x.outcome = 'ok' order by s.id limit 1 offset (select count(*) / 2 from sites)`);
  const missing = await one(`select s.origin as v from sites s join site_state x on x.site_id = s.id where x.outcome <> 'ok' order by s.id desc limit 1`);
  const lastPage = Math.ceil(sites / DEFAULT_PAGE_SIZE);
  const middlePage = Math.ceil(lastPage / 2);
  const site = (origin: string, extra = '') => `/site?origin=${encodeURIComponent(origin)}${extra}`;
  const probes: Omit<PageTime, 'timed'>[] = [
    { page: 'overview', label: 'page 1, by site', path: '/' },
    ...['status', 'policy', 'changed', 'failing', 'checked'].map((sort) => ({ page: 'overview', label: `sort ${sort} desc`, path: `/?sort=${sort}&dir=desc` })),
    { page: 'overview', label: `page ${middlePage.toLocaleString('en-US')} (the middle)`, path: `/?page=${middlePage}` },
    { page: 'overview', label: 'the last page', path: `/?page=${lastPage}` },
    { page: 'overview', label: 'the middle page by last change', path: `/?sort=changed&page=${middlePage}` },
    ...['ok', 'failing', 'unavailable', 'disallow_all', 'changed', 'never'].map((show) => ({ page: 'overview', label: `card ${show}`, path: `/?show=${show}` })),
    { page: 'overview', label: 'search', path: '/?q=s4242.' },
    { page: 'overview', label: 'search, no match', path: '/?q=no-such-site' },
    { page: 'site', label: 'a site', path: site(busy) },
    { page: 'site', label: 'a 404 site', path: site(missing) },
    { page: 'site', label: 'check a URL (GPTBot)', path: site(busy, '&url=/&ua=GPTBot') },
    { page: 'night', label: 'last night', path: '/night' },
    { page: 'changes', label: 'newest', path: '/changes' },
    { page: 'runs', label: 'runs', path: '/runs' },
  ];
  const pages: PageTime[] = [];
  for (const probe of probes) {
    const timed = await time(base, probe.path, PAGE_RUNS);
    pages.push({ ...probe, timed });
    console.log(`${`${probe.page}: ${probe.label}`.padEnd(48)} ${timed.median.toFixed(1).padStart(7)} ms (max ${timed.max.toFixed(1)})`);
  }
  const csv: Download[] = [];
  for (const [name, p] of [
    ['status', '/csv/status'],
    ['status, a search', '/csv/status?q=s4242'],
  ] as const) {
    const d = await download(base, name, p);
    csv.push(d);
    console.log(`csv ${name}: first byte ${d.firstByteMs.toFixed(0)} ms, all ${d.totalMs.toFixed(0)} ms, ${d.rows} rows`);
  }
  await app.close();
  await handle.close();
  return { pages, csv };
}

/** The pages' and the downloads' tables. */
function dashboardTables(dashboard: { pages: PageTime[]; csv: Download[] }): string[] {
  return [
    '| page | filter | URL | server ms (median) | server ms (slowest) |',
    '|---|---|---|---:|---:|',
    ...dashboard.pages.map((p) => `| ${p.page} | ${p.label} | \`${p.path.length > 60 ? `${p.path.slice(0, 57)}...` : p.path}\` | ${p.timed.median.toFixed(1)} | ${p.timed.max.toFixed(1)} |`),
    '',
    '| download | URL | first byte ms | all ms | size | rows |',
    '|---|---|---:|---:|---:|---:|',
    ...dashboard.csv.map((d) => `| ${d.name} | \`${d.path}\` | ${d.firstByteMs.toFixed(0)} | ${d.totalMs.toFixed(0)} | ${mb(d.bytes)} | ${d.rows.toLocaleString('en-US')} |`),
  ];
}

const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20).toLocaleString('en-US')} MB`;
const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));
const s1 = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<void> {
  const a = args();
  const database = `robots_audit_million_${a.sites}`;
  const dbUrl = databaseUrl(database);
  const admin = new pg.Pool({ connectionString: config().DATABASE_URL, max: 2, application_name: 'robots-audit bench:million admin' });
  if (a.dashboardOnly) {
    console.log(dashboardTables(await measureDashboard(database, a.sites)).join('\n'));
    await admin.end();
    return;
  }
  const template = await ensureTemplateDatabase();
  await admin.query(`drop database if exists "${database}" with (force)`);
  await admin.query(`create database "${database}" template "${template}"`);
  const pool = new pg.Pool({ connectionString: dbUrl, max: 2, application_name: 'robots-audit bench:million' });
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const prefix = `bench-million-${randomBytes(4).toString('hex')}`;
  const sampler = new Sampler(admin, database, redis);
  const web = await startWeb();
  sampler.watch(web.pid, 'load web');
  sampler.start();
  const redisBefore = await redisInfoMemory(redis);
  const env = {
    DATABASE_URL: dbUrl,
    REDIS_URL,
    ROBOTS_AUDIT_QUEUE_PREFIX: prefix,
    ROBOTS_AUDIT_ALLOW_NETWORKS: '127.0.0.0/8',
    ROBOTS_AUDIT_RESOLVE: '*.load.test=127.0.0.1',
  };
  const workers: Worker[] = [];
  try {
    const csvFile = path.join(os.tmpdir(), `robots-audit-million-${process.pid}.csv`);
    const out = fs.createWriteStream(csvFile);
    out.write('url\n');
    for (let i = 0; i < a.sites; i++) out.write(`http://s${i}.load.test:${web.port}\n`);
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    const seeded = await command(sampler, 'sites import command', ['sites', 'import', csvFile, '--database-url', dbUrl], env);
    fs.rmSync(csvFile);
    console.log(`sites import: ${s1(seeded.ms)}`);
    const bytesSeeded = await databaseBytes(pool);

    const rawBefore = await rawFetchRate(web.port, a.peerSites);
    console.log(`peer before: ${fmt(rawBefore)} robots.txt/s`);
    for (let i = 0; i < a.workers; i++) {
      const w = await startWorker(env, a.profile, BIN);
      workers.push(w);
      sampler.watch(w.child.pid!, a.workers === 1 ? 'worker' : `worker ${i + 1}`);
    }
    const delayed = `answers delayed ${LATENCY[0]}-${LATENCY[1]} ms`;
    const plan: [string, [number, number] | null][] = [
      [`night 1: every site new, ${delayed}`, LATENCY],
      [`night 2: nothing changed, ${delayed}`, LATENCY],
      ['night 3: nothing changed, no delay', null],
    ];
    const nights: Night[] = [];
    for (const [i, [label, latency]] of plan.slice(0, a.nights).entries()) {
      await web.command({ latency });
      const n = await night(pool, sampler, redis, web, workers, env, prefix, i + 1, label, a.sites);
      nights.push(n);
      console.log(`${label}: ${s1(n.seconds * 1000)}, ${fmt(n.sitesPerSecond)} sites/s, run start ${s1(n.startMs)}, ${n.requests} requests`);
    }
    await web.command({ latency: null });
    const rawAfter = await rawFetchRate(web.port, a.peerSites);
    console.log(`peer after: ${fmt(rawAfter)} robots.txt/s`);
    const redisAfter = await redisInfoMemory(redis);
    for (const w of workers.splice(0)) await w.stop();
    sampler.stop();
    web.close();
    const dashboard = await measureDashboard(database, a.sites);
    const raw = (rawBefore + rawAfter) / 2;

    const peaks = sampler.peaks;
    const roles = [...peaks.hwm.keys()].filter((r) => r !== 'postgres backends together');
    const over = roles.filter((r) => (peaks.hwm.get(r) ?? 0) > RSS_BUDGET && r !== 'postgres backend');
    const pagesOver = dashboard.pages.filter((p) => p.timed.median > PAGE_BUDGET_MS);
    const unchanged = nights.slice(1);
    const cpus = os.cpus();
    const key = `million-${a.sites}`;
    const { start, end } = sectionMarkers(key);
    const commandLine = `npm run bench:million -- --sites ${a.sites}${a.workers > 1 ? ` --workers ${a.workers}` : ''}${a.nights !== 3 ? ` --nights ${a.nights}` : ''}`;
    const perNight = (n: Night, before: number) => Math.round((n.bytesAfter - before) / a.sites).toLocaleString('en-US');
    const section = [
      start,
      `### ${a.sites.toLocaleString('en-US')} sites a night`,
      '',
      `\`${commandLine}\` (test/bench/million.ts; its header gives the method) on ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores (shared), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}; one run; ${a.workers} worker process${a.workers > 1 ? 'es' : ''} with the default configuration${Object.keys(process.env).some((k) => k.startsWith('ROBOTS_AUDIT_')) ? ` and ${Object.keys(process.env).filter((k) => k.startsWith('ROBOTS_AUDIT_')).map((k) => `${k}=${process.env[k]}`).join(', ')}` : ''}.`,
      '',
      `Seeding: \`sites import\` of a ${a.sites.toLocaleString('en-US')}-line file, ${s1(seeded.ms)}. Peer in the same run (a plain node:http loop, ${RAW_CONCURRENCY} at a time, a new connection each, over the first ${a.peerSites.toLocaleString('en-US')} sites): ${fmt(rawBefore)} before the nights, ${fmt(rawAfter)} after, **${fmt(raw)}** robots.txt/s on average.`,
      '',
      '| night | seconds | sites/s | × raw rate | workers\' CPU ms/site | requests | run start (`audit`): all / before its row | queue keys in Redis after the enqueue | bytes per site-night |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...nights.map(
        (n, i) =>
          `| ${n.label} | ${n.seconds.toFixed(1)} | ${fmt(n.sitesPerSecond)} | ${(n.sitesPerSecond / raw).toFixed(2)} | ${n.cpuMsPerSite.toFixed(2)} | ${n.requests.toLocaleString('en-US')} | ${s1(n.startMs)} / ${s1(n.beforeRowMs)} | ${mb(n.queueBytes)} (${n.queueKeys.toLocaleString('en-US')} keys) | ${perNight(n, i === 0 ? bytesSeeded : nights[i - 1]!.bytesAfter)} |`,
      ),
      '',
      `Database: ${mb(bytesSeeded)} after the seed, ${mb(nights.at(-1)!.bytesAfter)} after the nights (every table and index, after VACUUM). Redis (the server's, shared): used_memory ${mb(Number(redisBefore.used_memory))} before, at most ${mb(sampler.redisUsedMax)} sampled during the nights, used_memory_peak ${mb(Number(redisAfter.used_memory_peak))} at the end.`,
      '',
      '| process | peak RSS (VmHWM) | peak private (RssAnon) |',
      '|---|---:|---:|',
      ...roles.map((r) => `| ${r} | ${mb(peaks.hwm.get(r) ?? 0)} | ${mb(peaks.anon.get(r) ?? 0)} |`),
      `| postgres backends together | | ${mb(peaks.anon.get('postgres backends together') ?? 0)} |`,
      '',
      `A Postgres backend's VmHWM counts the pages of shared buffers it touched (shared by all of them); its private memory is RssAnon.`,
      '',
      `Dashboard on this database after the nights (${PAGE_RUNS} requests each after 2 to warm up, server time from Server-Timing, as bench:dashboard):`,
      '',
      ...dashboardTables(dashboard),
      '',
      `Targets: unchanged night ≥ 1/2 of the raw rate: ${unchanged.map((n) => (n.sitesPerSecond / raw).toFixed(2)).join(', ')} (${unchanged.some((n) => n.sitesPerSecond / raw >= 0.5) ? 'met' : 'not met'}); no process over 1 GB RSS: ${over.length === 0 ? 'met' : `not met (${over.join(', ')})`}; every dashboard page under ${PAGE_BUDGET_MS} ms: ${pagesOver.length === 0 ? 'met' : `not met (${pagesOver.map((p) => `${p.page}: ${p.label}`).join(', ')})`}.`,
      end,
    ].join('\n');
    console.log(section);
    if (a.write) {
      writeBenchSection(key, section);
      console.log(`\nwrote docs/benchmarks.md (section ${key})`);
    }
  } finally {
    for (const w of workers) await w.stop();
    sampler.stop();
    web.close();
    await cleanupPrefix(REDIS_URL, prefix);
    await redis.quit();
    await pool.end();
    await admin.end();
  }
}

await main();
