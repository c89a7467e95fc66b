/**
 * Server time of the dashboard's pages on the year database (`npm run bench:year`: 100,000
 * sites x 365 nights): the dashboard starts in this process on a read-only pool, each page is
 * requested over HTTP on 127.0.0.1 a few times after a warm-up, and the server's own time of
 * each answer (its Server-Timing header: from the request's arrival to the reply's sending,
 * queries and rendering included) gives the median and the slowest. Not a test: it prints a
 * table and rewrites the "dashboard" section of docs/benchmarks.md.
 *
 *   npm run bench:dashboard -- [--database robots_audit_year_100000x365] [--runs 15] [--no-write]
 */
import os from 'node:os';
import type pg from 'pg';
import type { AddressInfo } from 'node:net';
import { drizzle } from 'drizzle-orm/node-postgres';
import { createDb } from '../../src/db/client.js';
import { assertMigrated } from '../../src/db/migrate.js';
import { createDashboard } from '../../src/web/server.js';
import { databaseUrl } from '../helpers/test-db.js';
import { sectionMarkers, writeBenchSection } from './bench-doc.js';

/** The issue's budget per page, milliseconds of server time. */
const BUDGET_MS = 200;
const WARM_UP = 2;

function args() {
  const argv = process.argv.slice(2);
  const value = (name: string, def: string) => {
    const i = argv.indexOf(name);
    return i === -1 ? def : argv[i + 1]!;
  };
  const runs = Number(value('--runs', '15'));
  if (!Number.isInteger(runs) || runs < 3) throw new Error('--runs needs a whole number ≥ 3');
  return { database: value('--database', 'robots_audit_year_100000x365'), runs, write: !argv.includes('--no-write') };
}

interface Probe {
  /** The page, as the table names it. */
  label: string;
  path: string;
  /** One of the three pages the issue times. */
  timed: boolean;
}

async function probes(pool: pg.Pool): Promise<Probe[]> {
  // Two sites picked from the data: a fetched one 4% into the ids, one in the middle of the origin order.
  const busy = await pool.query<{ origin: string }>(
    `select s.origin from sites s join site_state x on x.site_id = s.id where x.outcome = 'ok'
     order by s.id limit 1 offset (select count(*) / 25 from sites)`,
  );
  const middle = await pool.query<{ origin: string }>('select origin from sites order by origin limit 1 offset (select count(*) / 2 from sites)');
  const origin = (r: { rows: { origin: string }[] }) => encodeURIComponent(r.rows[0]?.origin ?? 'https://none.example');
  return [
    { label: 'overview, page 1 (by site)', path: '/', timed: true },
    { label: 'overview, page 1,000 (by site)', path: '/?page=1000', timed: true },
    { label: 'overview, by failing nights', path: '/?sort=failing', timed: true },
    { label: 'overview, by last change', path: '/?sort=changed', timed: true },
    { label: 'overview, one portfolio', path: '/?portfolio=client-3', timed: true },
    { label: 'overview, search', path: '/?q=site-4242', timed: true },
    { label: 'site page', path: `/site?origin=${origin(busy)}`, timed: true },
    { label: 'site page (another)', path: `/site?origin=${origin(middle)}`, timed: true },
    { label: 'changes, newest', path: '/changes', timed: true },
    { label: 'changes, flips of GPTBot', path: '/changes?type=flip&crawler=GPTBot', timed: true },
    { label: 'changes, severity warning+', path: '/changes?severity=warning', timed: true },
    { label: 'changes, one portfolio, 30 days', path: '/changes?portfolio=client-3&since=30d', timed: true },
    { label: 'AI access', path: '/ai', timed: false },
    { label: 'runs', path: '/runs', timed: false },
    { label: 'alerts', path: '/alerts', timed: false },
    { label: 'charts', path: '/charts', timed: false },
  ];
}

async function main(): Promise<void> {
  const { database, runs, write } = args();
  const handle = createDb(databaseUrl(database), { max: 8, readOnly: true, applicationName: 'robots-audit bench:dashboard' });
  await assertMigrated(drizzle(handle.pool));
  const { rows: sizes } = await handle.pool.query<{ sites: number; nights: number }>(
    'select (select count(*)::int from sites) as sites, (select count(*)::int from audit_runs) as nights',
  );
  const app = await createDashboard({ pool: handle.pool, token: null, databaseName: database });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const list = await probes(handle.pool);
  const results: { probe: Probe; median: number; max: number; wall: number }[] = [];
  // Resolve the "changes, next page" cursor from the first page's own link.
  const first = await (await fetch(`${base}/changes`)).text();
  const next = /href="(\/changes\?[^"]*after=[^"]+)"/.exec(first)?.[1]?.replaceAll('&amp;', '&');
  if (next) list.splice(list.findIndex((p) => p.label === 'changes, newest') + 1, 0, { label: 'changes, next page', path: next, timed: true });
  for (const probe of list) {
    const server: number[] = [];
    const wall: number[] = [];
    for (let i = 0; i < WARM_UP + runs; i++) {
      const t = performance.now();
      const response = await fetch(base + probe.path);
      await response.arrayBuffer();
      const elapsed = performance.now() - t;
      if (response.status !== 200) throw new Error(`${probe.path}: HTTP ${response.status}`);
      const dur = /app;dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1];
      if (dur === undefined) throw new Error(`${probe.path}: no Server-Timing header`);
      if (i >= WARM_UP) {
        server.push(Number(dur));
        wall.push(elapsed);
      }
    }
    server.sort((a, b) => a - b);
    wall.sort((a, b) => a - b);
    const median = (xs: number[]) => xs[Math.floor(xs.length / 2)]!;
    results.push({ probe, median: median(server), max: server.at(-1)!, wall: median(wall) });
    console.log(`${probe.label.padEnd(40)} ${median(server).toFixed(1).padStart(7)} ms (max ${server.at(-1)!.toFixed(1)})`);
  }
  await app.close();
  await handle.close();

  const cpus = os.cpus();
  const timed = results.filter((r) => r.probe.timed);
  const over = timed.filter((r) => r.median > BUDGET_MS);
  const { start, end } = sectionMarkers('dashboard');
  const section = [
    start,
    '## Dashboard',
    '',
    `\`npm run bench:dashboard\` on ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores (shared), ${new Date().toISOString().slice(0, 10)}: the database \`${database}\` (${sizes[0]!.sites.toLocaleString('en-US')} sites, ${sizes[0]!.nights} nights), ${runs} requests per page after ${WARM_UP} to warm up, one at a time. Server time is the dashboard's Server-Timing (request in to reply out: the queries and the rendering); wall is what the client waited, on loopback.`,
    '',
    `Budget: ${BUDGET_MS} ms of server time for the overview, the site page and the changes. ${over.length === 0 ? 'Every timed page is within it.' : `Over it: ${over.map((r) => r.probe.label).join(', ')}.`}`,
    '',
    '| page | URL | server ms (median) | server ms (slowest) | wall ms (median) |',
    '|---|---|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.probe.label}${r.probe.timed ? '' : ' (not in the budget)'} | \`${r.probe.path.length > 60 ? `${r.probe.path.slice(0, 57)}...` : r.probe.path}\` | ${r.median.toFixed(1)} | ${r.max.toFixed(1)} | ${r.wall.toFixed(1)} |`,
    ),
    end,
  ].join('\n');
  if (write) writeBenchSection('dashboard', section);
  console.log(over.length === 0 ? `every timed page under ${BUDGET_MS} ms` : `over ${BUDGET_MS} ms: ${over.map((r) => r.probe.label).join(', ')}`);
}

await main();
