/**
 * Throughput of the nightly pipeline: how many sites a night the fetch, diff and alert workers
 * get through, end to end, on this machine. Not a test: it measures, prints a table and rewrites
 * the "Pipeline" section of docs/benchmarks.md (between its markers).
 *
 *   node --import tsx test/bench/pipeline.ts [--sites 2000] [--no-write]
 *
 * Method: a fresh database cloned from the migrated template, a unique BullMQ prefix on the local
 * Redis, and a loopback web serving one real robots.txt of the corpus per site (`s<i>.test`,
 * bodies taken in turn from the sample's robots files). The sites are imported through the CLI's
 * CSV path (`sites import`). Three nights run through the real workers in this process (default
 * concurrency): night 1 sees every file for the first time; night 2 serves the same bytes; night 3
 * changes 5% of the files (one rule added) and makes 1% answer 503 (retried, then full disallow).
 * Each night's time runs from the run's start to its completion (every site fetched, stored,
 * diffed, its verdicts written). Loopback answers in well under a millisecond, so this measures
 * the pipeline's own cost (parsing, Postgres, Redis), not the internet's latency: see the note on
 * real fetches below the table.
 */
import { BENCH_DOC, ROOT, sectionMarkers, writeBenchSection } from './bench-doc.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { loadRobotsSample } from '../helpers/corpus.js';
import { startPipeline } from '../helpers/pipeline.js';
import type { Pipeline } from '../helpers/pipeline.js';

const { start: START, end: END } = sectionMarkers('pipeline');
const DEFAULT_SITES = 2000;
const TARGET_SITES = 100_000;
const CHANGED_SHARE = 0.05;
const FAILING_SHARE = 0.01;
const DAY_MS = 24 * 3600 * 1000;
const FIRST_NIGHT = Date.UTC(2026, 2, 1, 3, 0, 0);
/** A real fetch's time to first byte and body, a typical figure for robots.txt over the internet. */
const REAL_FETCH_MS = 300;

interface Args {
  sites: number;
  write: boolean;
}

function args(): Args {
  const argv = process.argv.slice(2);
  const i = argv.indexOf('--sites');
  const sites = i === -1 ? DEFAULT_SITES : Number(argv[i + 1]);
  if (!Number.isInteger(sites) || sites < 10) throw new Error('--sites needs a whole number ≥ 10');
  return { sites, write: !argv.includes('--no-write') };
}

interface NightResult {
  label: string;
  seconds: number;
  sitesPerSecond: number;
  requests: number;
  changes: number;
  flips: number;
  alerts: number;
}

const count = async (p: Pipeline, query: string, runId: number) => Number((await p.db.pool.query<{ n: string }>(query, [runId])).rows[0]!.n);

async function waitForRun(p: Pipeline, runId: number): Promise<void> {
  for (;;) {
    const run = await p.rt.repos.runs.getRun(runId);
    if (run?.status === 'completed') return;
    if (run?.status === 'failed') throw new Error(`run ${runId} failed`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function night(p: Pipeline, n: number, label: string, sites: number): Promise<NightResult> {
  p.web.resetCounters();
  const started = process.hrtime.bigint();
  const { run } = await p.rt.lifecycle.startRun({ runKey: `bench-${n}`, trigger: 'manual', runAt: new Date(FIRST_NIGHT + n * DAY_MS), portfolio: null });
  await waitForRun(p, run.id);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return {
    label,
    seconds,
    sitesPerSecond: sites / seconds,
    requests: p.web.requestCount(),
    changes: await count(p, "select count(*) as n from snapshot_changes where run_id = $1 and not (kinds = '{first_seen}')", run.id),
    flips: await count(p, 'select count(*) as n from verdict_flips where run_id = $1', run.id),
    alerts: await count(p, 'select count(*) as n from alerts where run_id = $1', run.id),
  };
}

function fmt(n: number): string {
  return n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1);
}

async function main(): Promise<void> {
  const { sites, write } = args();
  const bodies = loadRobotsSample()
    .filter((f) => f.kind === 'robots')
    .map((f) => f.body);
  // Retries within the run stay short; everything else is the default configuration.
  const p = await startPipeline({ env: { ROBOTS_AUDIT_LOG_LEVEL: 'silent', ROBOTS_AUDIT_RETRY_DELAYS: '0.2,0.2', ROBOTS_AUDIT_FETCH_CONCURRENCY: '32', ROBOTS_AUDIT_DIFF_CONCURRENCY: '4' } });
  try {
    const names = Array.from({ length: sites }, (_, i) => `s${i}`);
    const bodyOf = (i: number) => bodies[i % bodies.length]!;
    names.forEach((name, i) => p.web.set(`${name}.test`, { status: 200, body: bodyOf(i) }));
    const csv = path.join(os.tmpdir(), `robots-audit-bench-${process.pid}.csv`);
    fs.writeFileSync(csv, `url\n${names.map((n) => p.origin(n)).join('\n')}\n`);
    const importStart = process.hrtime.bigint();
    const imported = await p.cli(['sites', 'import', csv]);
    const importSeconds = Number(process.hrtime.bigint() - importStart) / 1e9;
    fs.rmSync(csv);
    if (imported.code !== 0) throw new Error(`sites import failed: ${imported.stderr}`);
    const agents = Number((await p.db.pool.query<{ n: string }>('select count(*) as n from user_agents')).rows[0]!.n);

    const results: NightResult[] = [];
    results.push(await night(p, 1, 'night 1: every file new', sites));
    results.push(await night(p, 2, 'night 2: nothing changed', sites));
    const changed = Math.round(sites * CHANGED_SHARE);
    const failing = Math.round(sites * FAILING_SHARE);
    names.slice(0, changed).forEach((name, i) => p.web.set(`${name}.test`, { status: 200, body: Buffer.concat([bodyOf(i), Buffer.from('\nUser-agent: *\nDisallow: /bench-night-3/\n')]) }));
    names.slice(changed, changed + failing).forEach((name) => p.web.set(`${name}.test`, { status: 503, body: 'down' }));
    results.push(await night(p, 3, `night 3: ${CHANGED_SHARE * 100}% changed, ${FAILING_SHARE * 100}% answer 503`, sites));

    const dbBytes = Number((await p.db.db.execute<{ n: string }>(sql`select pg_database_size(current_database()) as n`)).rows[0]!.n);
    const steady = results[1]!;
    const rows = results.map((r) => `| ${r.label} | ${r.seconds.toFixed(1)} | ${fmt(r.sitesPerSecond)} | ${r.requests.toLocaleString('en-US')} | ${r.changes} | ${r.flips} | ${r.alerts} |`);
    const cpus = os.cpus();
    const fetchConcurrency = p.config.ROBOTS_AUDIT_FETCH_CONCURRENCY;
    const latencyBound = fetchConcurrency / (REAL_FETCH_MS / 1000);
    const section = [
      START,
      '## Pipeline',
      '',
      `\`node --import tsx test/bench/pipeline.ts --sites ${sites}\``,
      '',
      `Machine: ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores (shared), ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, the local PostgreSQL and Redis. Date: ${new Date().toISOString().slice(0, 10)}.`,
      '',
      `${sites.toLocaleString('en-US')} sites on a loopback web, each serving a real robots.txt of the corpus (bodies of the sample's robots files in turn), imported with \`sites import\` in ${importSeconds.toFixed(1)} s; every site tracks its root URL for the ${agents} default agents. One process runs the fetch (concurrency ${fetchConcurrency}), diff (concurrency ${p.config.ROBOTS_AUDIT_DIFF_CONCURRENCY}) and alert workers; rate limit off; retries after 0.2 s. A night's time runs from the run's start to its completion: every site fetched, stored, diffed, its verdicts written.`,
      '',
      '| night | seconds | sites/s | requests | changes | verdict flips | alerts |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
      `Database after three nights: ${(dbBytes / 2 ** 20).toFixed(0)} MiB.`,
      '',
      `At the steady-state rate (night 2, ${fmt(steady.sitesPerSecond)} sites/s), ${TARGET_SITES.toLocaleString('en-US')} sites take ${fmt(TARGET_SITES / steady.sitesPerSecond / 60)} minutes of pipeline work on this machine. Real fetches wait on the network: at about ${REAL_FETCH_MS} ms per robots.txt, one worker process with ${fetchConcurrency} concurrent fetches reaches at most ~${fmt(latencyBound)} sites/s, so ${TARGET_SITES.toLocaleString('en-US')} sites take about ${fmt(TARGET_SITES / Math.min(latencyBound, steady.sitesPerSecond) / 60)} minutes per worker process (more workers or a higher \`ROBOTS_AUDIT_FETCH_CONCURRENCY\` divide that; the per-host lock keeps each host to one request at a time).`,
      END,
    ].join('\n');
    console.log(section);
    if (write) {
      writeBenchSection('pipeline', section);
      console.log(`\nwrote ${path.relative(ROOT, BENCH_DOC)}`);
    }
  } finally {
    await p.close();
  }
}

await main();
