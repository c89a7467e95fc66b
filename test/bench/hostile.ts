/**
 * Issue 26, "Done means": the CPU each command and page spends on a hostile robots.txt, before and
 * after in the same run. Not a test: it prints a table and rewrites the "hostile" section of
 * docs/benchmarks.md.
 *
 *   npm run bench:hostile -- [--before <git ref>] [--runs 3] [--only <label part>] [--no-write]
 *
 * The files (test/helpers/hostile-bodies.ts), each legal and under the 500 KiB cut: `wildcards`
 * (~8,300 rules such as `Disallow: /*a*a*a*a*a*a*a*a*a*a*aaa*aa$`, the issue's), `wildcard-groups`
 * (50 named groups beside `*`, 8,500 distinct wildcard rules), `many-agents` (one group of 15,000
 * user-agents over 27,000 rules), `agent-groups` (14,000 one-agent groups with a Crawl-delay, all
 * renamed between two versions), `sitemaps` (9,000 Sitemap lines, all changed), `usage-lines` (issue 28:
 * ~7,000 Content-Usage lines with wildcard paths, `train-ai` flipped between versions). The URL checked
 * has a 300-character path.
 *
 * Method: the current sources are built (`npm run build`); with `--before`, the ref is checked out
 * in a worktree beside (node_modules linked, built the same way): it must share the current
 * database schema. One database (robots_audit_bench_hostile, recreated) holds a site per file, fed
 * by a web on 127.0.0.1 that serves each site its file, and two nights (the second serves the
 * variant: wildcards with one rule changed, wildcard-groups ↔ wildcards, agent-groups renamed,
 * sitemaps renamed). Each command then runs `--runs` times per side, sides taking turns, as a
 * process of the built CLI with test/bench/cpu-at-exit.mjs preloaded: its CPU (user + system,
 * every thread) from start to exit, start-up included (the `--version` row is that floor;
 * `sites list` the floor of a command that opens the database). The
 * dashboard runs as `serve`; a page's CPU is the server's (from /proc/<pid>/stat) across its answer.
 * A night is `audit --wait --work` of a portfolio holding the one site, its body changed since
 * the night before: fetch, diff, lint, verdicts, store, and the analysis job after the run.
 * Commands are killed at 60 s, and a command killed once is not run again on that side.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { databaseUrl } from '../helpers/test-db.js';
import { manyAgentGroups, manyAgentsOneGroup, manySitemaps, wildcardGroups, wildcardRules, wildcardUsageLines } from '../helpers/hostile-bodies.js';
import { ROOT, sectionMarkers, writeBenchSection } from './bench-doc.js';
import { afterSide, beforeSide, processCpuMs } from './bench-sides.js';
import type { Side } from './bench-sides.js';
import { median } from './median.js';

const DATABASE = 'robots_audit_bench_hostile';
const KILL_AFTER_MS = 60_000;
/** The issue's bound: each command and page under a second of CPU. */
const TARGET_MS = 1_000;
const PRELOAD = path.join(ROOT, 'test/bench/cpu-at-exit.mjs');
const LONG_PATH = `/${'a'.repeat(299)}`;
const NIGHT_1 = '2026-01-01T03:00:00Z';

interface Args {
  before: string | null;
  runs: number;
  only: string;
  write: boolean;
}

function args(): Args {
  const argv = process.argv.slice(2);
  const value = (name: string) => {
    const i = argv.indexOf(name);
    return i === -1 ? null : (argv[i + 1] ?? null);
  };
  const runs = Number(value('--runs') ?? '3');
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs needs a whole number ≥ 1');
  return { before: value('--before'), runs, only: value('--only') ?? '', write: !argv.includes('--no-write') };
}

/** The hostile files: the first version, and the one the second night serves. */
function hostileFiles(): Record<string, [Uint8Array, Uint8Array]> {
  const wildcards = wildcardRules();
  const text = new TextDecoder().decode(wildcards);
  const oneRuleChanged = new TextEncoder().encode(text.replace(/\nDisallow: [^\n]*\n/, '\nDisallow: /changed\n'));
  return {
    wildcards: [wildcards, oneRuleChanged],
    'wildcard-groups': [wildcardGroups(), wildcards],
    'many-agents': [manyAgentsOneGroup(), manyAgentsOneGroup(14_000, 27_000, 'z')],
    'agent-groups': [manyAgentGroups('x'), manyAgentGroups('y')],
    sitemaps: [manySitemaps('a'), manySitemaps('b')],
    'usage-lines': [wildcardUsageLines('y'), wildcardUsageLines('n')],
    plain: [new TextEncoder().encode('User-agent: *\nDisallow: /private/\n'), new TextEncoder().encode('User-agent: *\nDisallow: /private/\nDisallow: /tmp/\n')],
  };
}

/** The web the sites are fetched from: `<name>.test` answers the body set for `name`. */
async function startWeb(bodies: Map<string, Uint8Array>): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const body = bodies.get((req.headers.host ?? '').split('.')[0] ?? '');
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

let env: NodeJS.ProcessEnv = {};

interface Measure {
  cpuMs: number | null;
  wallMs: number;
  /** Killed at KILL_AFTER_MS, or exited with an error (not 0 or 1). */
  failed: string | null;
}

/**
 * One run of `robots-audit <argv>` of a side, its CPU from the preload. Asynchronous: the web the
 * sites are fetched from runs in this process and must answer meanwhile.
 */
async function runCommand(side: Side, argv: string[], stdin?: string): Promise<Measure> {
  const cpuFile = path.join(os.tmpdir(), `robots-audit-bench-cpu-${process.pid}`);
  fs.rmSync(cpuFile, { force: true });
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', PRELOAD, side.bin, ...argv], {
    env: { ...env, BENCH_CPU_FILE: cpuFile },
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-2000)));
  child.stdin.on('error', () => {});
  child.stdin.end(stdin ?? '');
  const killer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
  const [status, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (code, sig) => resolve([code, sig])));
  clearTimeout(killer);
  const wallMs = Date.now() - started;
  if (signal) return { cpuMs: null, wallMs, failed: `killed at ${KILL_AFTER_MS / 1000} s` };
  if (status !== 0 && status !== 1) return { cpuMs: null, wallMs, failed: `exit ${status}: ${stderr.slice(0, 300)}` };
  return { cpuMs: Number(fs.readFileSync(cpuFile, 'utf8')), wallMs, failed: null };
}

/** utime + stime of a live process and its threads, ms (Linux: /proc/<pid>/stat, clock ticks of 10 ms). */
async function startDashboard(side: Side): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [side.bin, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const seen = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const m = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (m) resolve(m[0]);
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${out}`)));
  });
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/** A page's server CPU: the dashboard process's CPU across the request, whole answer read. */
async function measurePage(pid: number, url: string): Promise<Measure> {
  const before = processCpuMs(pid);
  const started = Date.now();
  const res = await fetch(url, { signal: AbortSignal.timeout(KILL_AFTER_MS) }).catch((err: Error) => err);
  if (res instanceof Error) return { cpuMs: null, wallMs: Date.now() - started, failed: res.message };
  await res.arrayBuffer();
  const wallMs = Date.now() - started;
  if (res.status !== 200) return { cpuMs: null, wallMs, failed: `HTTP ${res.status}` };
  return { cpuMs: processCpuMs(pid) - before, wallMs, failed: null };
}


interface Row {
  label: string;
  sides: Partial<Record<Side['name'], Measure[]>>;
}

function cell(ms: Measure[] | undefined): string {
  if (!ms || ms.length === 0) return '';
  const failed = ms.find((m) => m.failed);
  if (failed) return failed.failed!.startsWith('killed') ? `> ${KILL_AFTER_MS / 1000} s (killed)` : `failed (${failed.failed!.slice(0, 60)})`;
  const cpu = median(ms.map((m) => m.cpuMs!));
  return `${(cpu / 1000).toFixed(2)} s`;
}

function over(ms: Measure[] | undefined): boolean {
  if (!ms || ms.length === 0) return false;
  return ms.some((m) => m.failed) || median(ms.map((m) => m.cpuMs!)) > TARGET_MS;
}

async function main(): Promise<void> {
  const a = args();
  console.error('bench:hostile: building the current sources');
  const current = afterSide();
  const sides: Side[] = [];
  if (a.before) {
    console.error(`bench:hostile: building ${a.before} in a worktree`);
    sides.push(beforeSide(a.before));
  }
  sides.push(current);

  const files = hostileFiles();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'robots-audit-bench-hostile-'));
  for (const [name, [v1, v2]] of Object.entries(files)) {
    fs.writeFileSync(path.join(dir, `${name}.txt`), v1);
    fs.writeFileSync(path.join(dir, `${name}-v2.txt`), v2);
  }
  const serving = new Map<string, Uint8Array>(Object.entries(files).map(([n, [v1]]) => [n, v1]));
  const web = await startWeb(serving);

  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  await admin.query(`drop database if exists ${DATABASE}`);
  await admin.query(`create database ${DATABASE}`);
  await admin.end();
  env = {
    ...process.env,
    DATABASE_URL: databaseUrl(DATABASE),
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    ROBOTS_AUDIT_QUEUE_PREFIX: `bench-hostile-${process.pid}`,
    ROBOTS_AUDIT_RESOLVE: '*.test=127.0.0.1',
    ROBOTS_AUDIT_ALLOW_NETWORKS: '127.0.0.0/8',
    ROBOTS_AUDIT_LOG_LEVEL: 'error',
    NO_COLOR: '1',
  };
  const after = sides.at(-1)!;
  const origin = (name: string) => `http://${name}.test:${web.port}`;
  const setup = async (argv: string[]) => {
    const r = await runCommand(after, argv);
    if (r.failed) throw new Error(`robots-audit ${argv.join(' ')}: ${r.failed}`);
  };
  await setup(['db', 'migrate']);
  await setup(['agents', 'add', 'Scrapy']);
  for (const name of Object.keys(files)) {
    await setup(['sites', 'add', origin(name), '--portfolio', `p-${name}`]);
    await setup(['track', origin(name), LONG_PATH]);
  }
  // Two nights: every site has a first version and a second, the diff's two ends.
  console.error('bench:hostile: two nights of every site');
  await setup(['audit', '--wait', '--work', '--at', NIGHT_1]);
  for (const [name, [, v2]] of Object.entries(files)) serving.set(name, v2);
  await setup(['audit', '--wait', '--work', '--at', '2026-01-02T03:00:00Z']);

  const rows: Row[] = [];
  const measure = async (label: string, run: (side: Side) => Measure | Promise<Measure>) => {
    if (a.only && !label.includes(a.only)) return;
    const row: Row = { label, sides: {} };
    for (let i = 0; i < a.runs; i++) {
      for (const side of sides) {
        const done = (row.sides[side.name] ??= []);
        // A command killed once is not run again: its figure is the kill.
        if (done.some((m) => m.failed)) continue;
        done.push(await run(side));
      }
    }
    rows.push(row);
    console.error(`${label.padEnd(60)} ${sides.map((s) => `${s.name} ${cell(row.sides[s.name])}`).join('  ')}`);
  };

  await measure('`robots-audit --version` (start-up, the floor)', (s) => runCommand(s, ['--version']));
  await measure('`robots-audit sites list` (start-up with the database, the floor of every database command)', (s) => runCommand(s, ['sites', 'list']));
  const names = Object.keys(files).filter((n) => n !== 'plain');
  const url = `https://example.com${LONG_PATH}`;
  for (const name of names) {
    const file = path.join(dir, `${name}.txt`);
    for (const profile of ['google', 'python-urllib', 'scrapy-protego', 'node-robots-parser', 'crawler-commons']) {
      await measure(`${name}: check --profile ${profile}`, (s) => runCommand(s, ['check', '--robots', file, '--ua', 'Googlebot', '--ua', 'Scrapy', '--profile', profile, url]));
    }
    await measure(`${name}: lint`, (s) => runCommand(s, ['lint', file]));
    const evalInput = ['Googlebot', 'Scrapy', 'GPTBot'].map((ua) => JSON.stringify({ robots_b64: Buffer.from(files[name]![0]).toString('base64'), ua, url })).join('\n') + '\n';
    for (const profile of ['google', 'scrapy-protego', 'node-robots-parser']) {
      await measure(`${name}: eval --profile ${profile} (3 lines)`, (s) => runCommand(s, ['eval', '--profile', profile], evalInput));
    }
    await measure(`${name}: explain (Scrapy)`, (s) => runCommand(s, ['explain', origin(name), LONG_PATH, '--ua', 'Scrapy']));
    await measure(`${name}: diff`, (s) => runCommand(s, ['diff', origin(name)]));
    await measure(`${name}: test-draft (draft: wildcard-groups)`, (s) => runCommand(s, ['test-draft', origin(name), path.join(dir, 'wildcard-groups.txt')]));
    await measure(`${name}: history`, (s) => runCommand(s, ['history', origin(name)]));
  }
  for (const report of ['status', 'changes', 'ai-access', 'lint', 'portability']) {
    await measure(`report ${report} (every site)`, (s) => runCommand(s, ['report', report]));
  }

  // The dashboard, one server per side.
  for (const side of sides) {
    const dash = await startDashboard(side);
    try {
      const page = async (label: string, pathAndQuery: string) => {
        if (a.only && !label.includes(a.only)) return;
        let row = rows.find((r) => r.label === label);
        if (!row) rows.push((row = { label, sides: {} }));
        // One warm-up: the first answer compiles templates and starts the page thread.
        await measurePage(dash.pid, `${dash.url}${pathAndQuery}`);
        for (let i = 0; i < a.runs; i++) (row.sides[side.name] ??= []).push(await measurePage(dash.pid, `${dash.url}${pathAndQuery}`));
        console.error(`${label.padEnd(60)} ${side.name} ${cell(row.sides[side.name])}`);
      };
      await page('dashboard: overview', '/');
      await page('dashboard: AI access', '/ai');
      await page('dashboard: changes', '/changes');
      for (const name of names) {
        await page(`dashboard: site page, ${name}`, `/site?origin=${encodeURIComponent(origin(name))}`);
        await page(`dashboard: site page, ${name}, "Check a URL" (Scrapy)`, `/site?origin=${encodeURIComponent(origin(name))}&ua=Scrapy&url=${encodeURIComponent(origin(name) + LONG_PATH)}`);
      }
    } finally {
      await dash.stop();
    }
  }

  // Nights last: each changes the database (a new version of the site).
  let night = 3;
  for (const name of [...names, 'plain']) {
    await measure(`night of one site: ${name}`, (s) => {
      const version = night % 2 === 1 ? 0 : 1;
      serving.set(name, files[name]![version]!);
      // One night a day from 2026-01-03, whatever the number of runs.
      const at = new Date(Date.UTC(2026, 0, night++, 3)).toISOString();
      return runCommand(s, ['audit', '--wait', '--work', '--portfolio', `p-${name}`, '--at', at]);
    });
  }
  await web.close();

  const cpu = `${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${os.cpus().length} cores`;
  const { start, end } = sectionMarkers('hostile');
  const header = `| command or page, hostile file | ${sides.map((s) => `${s.name} (${s.label})`).join(' | ')} |`;
  const lines = [
    start,
    '## Hostile files (issue 26)',
    '',
    `\`npm run bench:hostile --${a.before ? ` --before ${a.before}` : ''} --runs ${a.runs}\` on ${cpu}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
    `CPU time (user + system, every thread) of each command as a process of the built CLI, start-up included; of a page, the dashboard server's CPU across its answer. Medians of ${a.runs}; sides alternate. **Bold**: over the issue's second, or killed at ${KILL_AFTER_MS / 1000} s. The files and the method: test/bench/hostile.ts.`,
    '',
    header,
    `|---|${sides.map(() => '---:').join('|')}|`,
    ...rows.map((r) => `| ${r.label} | ${sides.map((s) => (over(r.sides[s.name]) ? `**${cell(r.sides[s.name])}**` : cell(r.sides[s.name]))).join(' | ')} |`),
    end,
  ];
  console.log(lines.join('\n'));
  if (a.write) writeBenchSection('hostile', lines.join('\n'));
}

await main();
