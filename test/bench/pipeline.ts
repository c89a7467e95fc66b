/**
 * Throughput, storage and memory of the nightly pipeline, end to end, as a user runs it: one
 * `robots-audit worker` process with its default configuration (only the loopback allowance and
 * the name pins set), the local Postgres and Redis, and a loopback web in a process of its own.
 * Not a test: it measures, prints a table and rewrites its section of docs/benchmarks.md.
 *
 *   npm run bench:pipeline -- --sites 10000 [--runs K] [--before <git ref>] [--no-write] [--profile DIR]
 *
 * Method: a fresh database cloned from the migrated template and a unique queue prefix; N sites
 * `s<i>.load.test` imported with `sites import` (test/bench/load-web.ts serves them: real corpus
 * bodies, every 50th a 404); each tracks its root for the default agents. Then, in the same run:
 * - the peer: a plain node:http loop fetching the same N robots.txt, 64 at a time, a new
 *   connection each (the raw rate of this web on this machine);
 * - night 1: every site new; night 2: nothing changed; night 3: nothing changed, every answer
 *   delayed 200-400 ms (real latency); night 4: nothing changed;
 * - a night's time runs from the run's start (before its row is created) to its completion
 *   (every site fetched, its night stored with changes, verdicts, flips and alerts): the run's
 *   `finished_at`, which the worker writes when it ends the run, so that the harness's polling
 *   (every 50 ms) adds nothing to it;
 * - bytes per unchanged site-night: every table and index (pg_total_relation_size) after
 *   VACUUM, after night 2 and after night 4, divided by 2 N;
 * - the worker's peak RSS (VmHWM) and its RSS sampled during each night.
 * - the worker's CPU (user + system, from /proc) over each night, per site.
 * `--before <ref>` builds that ref in a worktree (bench-sides.ts) and runs its worker too, the two
 * taking turns run by run (before, after, then after, before, ...), each with its own fresh
 * database and web, so that both meet the same machine; the section then compares them.
 * `--profile DIR` runs the worker with --cpu-prof into DIR. `--runs K` repeats all of it K times,
 * each with a fresh database, web and worker, and reports medians with their range (the machine is
 * shared: one run's figures move by 10-20%). `BENCH_WORKER_FLAGS='--max-semi-space-size=32'` passes
 * Node flags to the worker, to measure a runtime setting against the defaults.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config/env.js';
import { createLogger } from '../../src/log/logger.js';
import { createRuntime } from '../../src/services/runtime.js';
import type { Runtime } from '../../src/services/runtime.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase } from '../helpers/test-db.js';
import { cleanupPrefix } from '../helpers/test-queue.js';
import { sectionMarkers, writeBenchSection } from './bench-doc.js';
import { beforeSide, currentSide, processCpuMs } from './bench-sides.js';
import type { Side } from './bench-sides.js';
import { median } from './median.js';
import { databaseBytes, LATENCY, RAW_CONCURRENCY, rawFetchRate, REDIS_URL, startWeb, startWorker } from './pipeline-parts.js';
import type { LoadWeb, Worker } from './pipeline-parts.js';

const DAY_MS = 24 * 3600 * 1000;
const FIRST_NIGHT = Date.UTC(2026, 2, 1, 3, 0, 0);

interface Args {
  sites: number;
  write: boolean;
  profile: string | null;
  runs: number;
  before: string | null;
}

function args(): Args {
  const argv = process.argv.slice(2);
  const at = (name: string) => {
    const i = argv.indexOf(name);
    return i === -1 ? undefined : argv[i + 1];
  };
  const sites = Number(at('--sites') ?? 10_000);
  if (!Number.isInteger(sites) || sites < 10) throw new Error('--sites needs a whole number ≥ 10');
  const runs = Number(at('--runs') ?? 1);
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs needs a whole number ≥ 1');
  return { sites, write: !argv.includes('--no-write'), profile: at('--profile') ?? null, runs, before: at('--before') ?? null };
}

interface Night {
  label: string;
  seconds: number;
  sitesPerSecond: number;
  requests: number;
  rssMax: number;
  /** The worker's CPU over the night, per site (ms). */
  cpuMsPerSite: number;
}

async function night(rt: Runtime, web: LoadWeb, worker: Worker, n: number, label: string, sites: number): Promise<Night> {
  await web.command({ count: true });
  let rssMax = 0;
  const cpuAtStart = processCpuMs(worker.child.pid!);
  // Wall-clock time, as the worker's finished_at is (both processes read the same clock).
  const started = Date.now();
  const { run } = await rt.lifecycle.startRun({ runKey: `bench-${n}`, trigger: 'manual', runAt: new Date(FIRST_NIGHT + n * DAY_MS), portfolio: null });
  let finishedAt: Date;
  for (;;) {
    rssMax = Math.max(rssMax, worker.rss());
    const now = await rt.repos.runs.getRunProgress(run.id);
    if (now?.status === 'completed' && now.finishedAt) {
      finishedAt = now.finishedAt;
      break;
    }
    if (now?.status === 'failed') throw new Error(`run ${run.id} failed`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (finishedAt.getTime() - started) / 1000;
  const { answered } = (await web.command({ count: true })) as { answered: number };
  return { label, seconds, sitesPerSecond: sites / seconds, requests: answered, rssMax, cpuMsPerSite: (processCpuMs(worker.child.pid!) - cpuAtStart) / sites };
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));

/** One run of the benchmark: a fresh database, web, queue prefix and worker; the peer, then four nights. */
interface Measured {
  rawBefore: number;
  rawAfter: number;
  nights: Night[];
  perSiteNight: number;
  databaseAfter: number;
  peakRss: number;
}

async function measure(sites: number, profile: string | null, side: Side): Promise<Measured> {
  const db = await createTestDatabase();
  const prefix = `bench-${randomBytes(4).toString('hex')}`;
  const web = await startWeb();
  const env = {
    DATABASE_URL: db.url,
    REDIS_URL,
    ROBOTS_AUDIT_QUEUE_PREFIX: prefix,
    ROBOTS_AUDIT_ALLOW_NETWORKS: '127.0.0.0/8',
    ROBOTS_AUDIT_RESOLVE: '*.load.test=127.0.0.1',
  };
  const rt = await createRuntime(loadConfig({ ...env, ROBOTS_AUDIT_LOG_LEVEL: 'warn' }), createLogger('warn'));
  let worker: Worker | null = null;
  try {
    const csv = path.join(os.tmpdir(), `robots-audit-bench-${process.pid}.csv`);
    fs.writeFileSync(csv, `url\n${Array.from({ length: sites }, (_, i) => `http://s${i}.load.test:${web.port}`).join('\n')}\n`);
    const imported = await runCli(['sites', 'import', csv, '--database-url', db.url]);
    fs.rmSync(csv);
    if (imported.code !== 0) throw new Error(`sites import failed: ${imported.stderr}`);

    const rawBefore = await rawFetchRate(web.port, sites);
    worker = await startWorker(env, profile, side.bin);
    const nights: Night[] = [];
    nights.push(await night(rt, web, worker, 1, 'night 1: every site new', sites));
    nights.push(await night(rt, web, worker, 2, 'night 2: nothing changed', sites));
    const afterNight2 = await databaseBytes(db.pool);
    await web.command({ latency: LATENCY });
    nights.push(await night(rt, web, worker, 3, `night 3: nothing changed, answers delayed ${LATENCY[0]}-${LATENCY[1]} ms`, sites));
    await web.command({ latency: null });
    nights.push(await night(rt, web, worker, 4, 'night 4: nothing changed', sites));
    const afterNight4 = await databaseBytes(db.pool);
    const peakRss = worker.peakRss();
    const rawAfter = await rawFetchRate(web.port, sites);
    return { rawBefore, rawAfter, nights, perSiteNight: (afterNight4 - afterNight2) / (2 * sites), databaseAfter: afterNight4, peakRss };
  } finally {
    await worker?.stop();
    web.close();
    await rt.close();
    await cleanupPrefix(REDIS_URL, prefix);
    await db.close();
  }
}


/** The median, and the range when there are several runs: `1,234 (1,100–1,300)`. */
function spread(xs: number[], format: (n: number) => string): string {
  if (xs.length === 1) return format(xs[0]!);
  return `${format(median(xs))} (${format(Math.min(...xs))}–${format(Math.max(...xs))})`;
}

/** The table of one side's runs: its nights' medians, the peer, the bytes and the memory. */
function sideTable(sites: number, measured: readonly Measured[]): string[] {
  const several = measured.length > 1;
  const raw = measured.map((m) => (m.rawBefore + m.rawAfter) / 2);
  const rows = measured[0]!.nights.map((first, i) => {
    const of = (m: Measured) => m.nights[i]!;
    const rates = measured.map((m) => of(m).sitesPerSecond);
    const ratios = measured.map((m, r) => of(m).sitesPerSecond / raw[r]!);
    const seconds = measured.map((m) => of(m).seconds);
    const requests = measured.map((m) => of(m).requests);
    const cpu = measured.map((m) => of(m).cpuMsPerSite);
    return `| ${first.label} | ${median(seconds).toFixed(1)} | ${spread(rates, fmt)} | ${spread(ratios, (n) => n.toFixed(2))} | ${spread(cpu, (n) => n.toFixed(2))} | ${median(requests).toLocaleString('en-US')} | ${mb(Math.max(...measured.map((m) => of(m).rssMax)))} |`;
  });
  return [
    `Peer in the same run${several ? 's' : ''}: a plain node:http loop, ${RAW_CONCURRENCY} at a time, a new connection each, before and after the nights: ${spread(raw, fmt)} robots.txt/s.`,
    '',
    `| night | seconds | sites/s | × raw rate | worker CPU ms/site | requests | worker RSS (max sampled) |`,
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    `Bytes per unchanged site-night (every table and index, after VACUUM, nights 3 and 4): **${spread(measured.map((m) => m.perSiteNight), (n) => n.toFixed(0))}**. Database after four nights: ${mb(median(measured.map((m) => m.databaseAfter)))}. Worker peak RSS (VmHWM${several ? ', the highest of the runs' : ''}): **${mb(Math.max(...measured.map((m) => m.peakRss)))}**.`,
  ];
}

async function main(): Promise<void> {
  const { sites, write, profile, runs, before } = args();
  // `npm run bench:pipeline` has built this checkout; the earlier ref is built here.
  const sides: Side[] = before ? [beforeSide(before), currentSide()] : [currentSide()];
  const measured = new Map<Side, Measured[]>(sides.map((side) => [side, []]));
  for (let r = 0; r < runs; r++) {
    // Turn by turn, each side first every other run: neither always meets the warmer machine.
    for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
      const m = await measure(sites, profile, side);
      measured.get(side)!.push(m);
      console.log(`run ${r + 1} of ${runs}${before ? ` (${side.name} ${side.label})` : ''}: ${m.nights.map((n) => fmt(n.sitesPerSecond)).join(', ')} sites/s`);
    }
  }
  const several = runs > 1;
  const cpus = os.cpus();
  const key = before ? `pipeline-${sites}-before-after` : `pipeline-${sites}`;
  const { start, end } = sectionMarkers(key);
  const command = `npm run bench:pipeline -- --sites ${sites}${several ? ` --runs ${runs}` : ''}${before ? ` --before ${before}` : ''}`;
  const tables = sides.flatMap((side) => [...(before ? [`**${side.name}** (${side.label}):`, ''] : []), ...sideTable(sites, measured.get(side)!), '']);
  const section = [
    start,
    `### ${sites.toLocaleString('en-US')} sites${before ? ', before and after' : ''}`,
    '',
    `\`${command}\` on ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores (shared), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.${several ? ` ${runs} runs${before ? ' of each side, taking turns' : ''}, each with a fresh database, web and worker: medians, and in brackets the range; a ratio is a run's rate over that run's peer.` : ''}`,
    '',
    ...tables.slice(0, -1),
    end,
  ].join('\n');
  console.log(section);
  if (write) {
    writeBenchSection(key, section);
    console.log(`\nwrote docs/benchmarks.md (section ${key})`);
  }
}

await main();
