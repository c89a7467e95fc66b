/**
 * Server time of every page of the dashboard, with every filter, on the year database (`npm run
 * bench:year`: 100,000 sites x 365 nights), and its CSV downloads: the dashboard starts in this
 * process on a read-only pool as `serve` opens it, each page is requested over HTTP on 127.0.0.1
 * a few times after a warm-up, and the server's own time of each answer (its Server-Timing
 * header: from the request's arrival to the reply's sending, queries and rendering included)
 * gives the median and the slowest. Then each CSV download whole (time to its first byte, to its
 * end, its size); four at once while the process's memory is sampled; and the pages' time while
 * downloads run against their time just before. Not a test: it prints a table and rewrites the
 * "dashboard" section of docs/benchmarks.md.
 *
 *   npm run bench:dashboard -- [--database robots_audit_year_100000x365] [--runs 7] [--only <label part>] [--no-write]
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
import { download, time, WARM_UP } from './dashboard-timing.js';
import type { Download, Timed } from './dashboard-timing.js';

/** The issue's budget per page and filter, milliseconds of server time. */
const BUDGET_MS = 200;
/** Process memory sampled this often while downloads run, ms. */
const SAMPLE_MS = 25;

function args() {
  const argv = process.argv.slice(2);
  const value = (name: string, def: string) => {
    const i = argv.indexOf(name);
    return i === -1 ? def : argv[i + 1]!;
  };
  const runs = Number(value('--runs', '7'));
  if (!Number.isInteger(runs) || runs < 3) throw new Error('--runs needs a whole number ≥ 3');
  return { database: value('--database', 'robots_audit_year_100000x365'), runs, only: value('--only', ''), write: !argv.includes('--no-write') };
}

interface Probe {
  page: string;
  /** The filter, as the table names it. */
  label: string;
  path: string;
}

const enc = encodeURIComponent;

/** Every page with every filter it has, alone and combined, on sites and nights picked from the data. */
async function probes(pool: pg.Pool): Promise<Probe[]> {
  const one = async (sql: string) => (await pool.query<{ v: string }>(sql)).rows[0]?.v ?? '';
  const busy = await one(`select s.origin as v from sites s join site_state x on x.site_id = s.id where x.outcome = 'ok' order by s.id limit 1 offset (select count(*) / 25 from sites)`);
  const middle = await one('select origin as v from sites order by origin limit 1 offset (select count(*) / 2 from sites)');
  const fallback = await one(`select s.origin as v from sites s join site_state x on x.site_id = s.id where x.policy_reason = 'D-3' order by s.id limit 1`);
  const down = await one(`select s.origin as v from sites s join site_state x on x.site_id = s.id where x.outcome = 'server_error' and x.policy_reason <> 'D-3' order by s.id limit 1`);
  const version = await one(`select c.run_id::text as v from snapshot_changes c join sites s on s.id = c.site_id where s.origin = '${busy.replaceAll("'", "''")}' and c.kinds @> '{rules}' order by c.run_id limit 1`);
  const latest = await one('select id::text as v from audit_runs order by run_at desc, id desc limit 1');
  const first = await one('select id::text as v from audit_runs order by run_at, id limit 1');
  const mid = await one('select id::text as v from audit_runs order by run_at limit 1 offset (select count(*) / 2 from audit_runs)');
  const outage = await one(`select run_id::text as v from alerts where severity = 'critical' order by run_id limit 1`);
  const portfolio = await one('select name as v from portfolios order by name limit 1 offset 2');
  const site = (origin: string, extra = '') => `/site?origin=${enc(origin)}${extra}`;
  const list: Probe[] = [];
  const add = (page: string, label: string, path: string) => list.push({ page, label, path });

  add('overview', 'page 1, by site', '/');
  for (const sort of ['site', 'status', 'policy', 'changed', 'failing', 'checked']) for (const dir of ['asc', 'desc']) add('overview', `sort ${sort} ${dir}`, `/?sort=${sort}&dir=${dir}`);
  add('overview', 'page 1,000', '/?page=1000');
  add('overview', 'page 1,000 by last change', '/?sort=changed&page=1000');
  add('overview', 'page size 200', '/?size=200');
  for (const show of ['audited', 'ok', 'failing', 'unavailable', 'disallow_all', 'fallback', 'changed', 'never']) add('overview', `card ${show}`, `/?show=${show}`);
  add('overview', 'card failing, by failing nights', '/?show=failing&sort=failing');
  add('overview', 'card changed, by last change', '/?show=changed&sort=changed');
  add('overview', 'portfolio', `/?portfolio=${portfolio}`);
  add('overview', 'search', '/?q=site-4242');
  add('overview', 'search, no match', '/?q=no-such-site');
  add('overview', 'portfolio + search + card + sort', `/?portfolio=${portfolio}&q=site-1&show=ok&sort=checked`);

  add('site', 'a site', site(busy));
  add('site', 'another', site(middle));
  add('site', 'a version', site(busy, `&version=${version}`));
  add('site', 'on the 30-day fallback', site(fallback));
  add('site', 'down (5xx)', site(down));
  add('site', 'check a URL (Googlebot)', site(busy, '&url=/products/a?x=1'));
  add('site', 'check a URL (GPTBot)', site(busy, '&url=/&ua=GPTBot'));

  add('night', 'last night', '/night');
  add('night', 'the first night (100,000 first sightings)', `/night?run=${first}`);
  add('night', 'the first night, page 20', `/night?run=${first}&page=20`);
  add('night', 'mid-year', `/night?run=${mid}`);
  add('night', 'the outage night', `/night?run=${outage}`);
  for (const sev of ['critical', 'warning', 'info']) add('night', `severity ${sev}`, `/night?run=${outage}&severity=${sev}`);
  add('night', 'portfolio', `/night?run=${mid}&portfolio=${portfolio}`);
  add('night', 'portfolio + severity', `/night?run=${outage}&portfolio=${portfolio}&severity=critical`);
  void latest;

  add('changes', 'newest', '/changes');
  for (const type of ['change', 'flip', 'alert']) add('changes', `type ${type}`, `/changes?type=${type}`);
  for (const kind of ['first_seen', 'rules', 'outcome', 'policy', 'fallback_started', 'comments_only', 'rules_changed', 'ai_access_changed', 'site_unreachable', 'outcome_changed'])
    add('changes', `kind ${kind}`, `/changes?kind=${kind}`);
  for (const sev of ['critical', 'warning', 'info']) add('changes', `severity ${sev}`, `/changes?severity=${sev}`);
  add('changes', 'crawler GPTBot', '/changes?crawler=GPTBot');
  add('changes', 'crawler ClaudeBot (no flip)', '/changes?crawler=ClaudeBot');
  add('changes', 'since 7d', '/changes?since=7d');
  add('changes', 'since 30d', '/changes?since=30d');
  add('changes', 'until the third night', '/changes?until=2025-01-03');
  add('changes', 'a month', '/changes?since=2025-06-01&until=2025-07-01');
  add('changes', 'portfolio', `/changes?portfolio=${portfolio}`);
  add('changes', 'portfolio + severity critical', `/changes?portfolio=${portfolio}&severity=critical`);
  add('changes', 'portfolio + kind outcome', `/changes?portfolio=${portfolio}&kind=outcome`);
  add('changes', 'portfolio + crawler', `/changes?portfolio=${portfolio}&crawler=GPTBot`);
  add('changes', 'alerts, critical', '/changes?type=alert&severity=critical');
  add('changes', 'flips of GPTBot, warning+, 30 days', '/changes?type=flip&crawler=GPTBot&severity=warning&since=30d');
  add('changes', 'every filter', `/changes?portfolio=${portfolio}&type=change&kind=rules&severity=warning&since=2025-03-01&until=2025-12-01`);

  add('ai', 'the default agents', '/ai');
  for (const category of ['ai-training', 'ai-search', 'ai-assistant']) add('ai', `category ${category}`, `/ai?category=${category}`);
  add('ai', 'two crawlers picked', '/ai?crawler=GPTBot&crawler=CCBot');
  add('ai', 'sites that block GPTBot', '/ai?blocks=GPTBot');
  add('ai', 'sites that block CCBot', '/ai?blocks=CCBot');
  add('ai', 'sites that block ClaudeBot', '/ai?blocks=ClaudeBot');
  add('ai', 'block GPTBot, a portfolio', `/ai?blocks=GPTBot&portfolio=${portfolio}`);
  add('ai', 'block GPTBot, page 100', '/ai?blocks=GPTBot&page=100');
  add('ai', 'search', '/ai?q=site-4242');
  add('ai', 'page 1,000', '/ai?page=1000');

  add('runs', 'runs', '/runs');
  add('runs', 'page 5', '/runs?page=5');
  add('runs', 'a run', `/runs/${mid}`);
  add('alerts', 'deliveries', '/alerts');
  for (const status of ['pending', 'delivered', 'failed']) add('alerts', status, `/alerts?status=${status}`);
  add('charts', 'charts', '/charts');
  add('charts', 'a portfolio', `/charts?portfolio=${portfolio}`);
  return list;
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

async function main(): Promise<void> {
  const { database, runs, only, write } = args();
  // As `serve` opens it: read-only, no JIT, the pages' connections and one per download.
  const handle = createDb(databaseUrl(database), { max: 8 + 4, readOnly: true, jit: false, applicationName: 'robots-audit bench:dashboard' });
  await assertMigrated(drizzle(handle.pool));
  const { rows: sizes } = await handle.pool.query<{ sites: number; nights: number }>(
    'select (select count(*)::int from sites) as sites, (select count(*)::int from audit_runs) as nights',
  );
  const app = await createDashboard({ pool: handle.pool, token: null, databaseName: database, downloads: 4 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const list = (await probes(handle.pool)).filter((p) => `${p.page} ${p.label}`.includes(only));
  // The "changes, next page" cursor from the first page's own link.
  const first = await (await fetch(`${base}/changes`)).text();
  const next = /href="(\/changes\?[^"]*after=[^"]+)"/.exec(first)?.[1]?.replaceAll('&amp;', '&');
  if (next && `changes next page`.includes(only)) list.splice(list.findIndex((p) => p.label === 'newest') + 1, 0, { page: 'changes', label: 'next page', path: next });
  const results: { probe: Probe; timed: Timed }[] = [];
  for (const probe of list) {
    const timed = await time(base, probe.path, runs);
    results.push({ probe, timed });
    console.log(`${`${probe.page}: ${probe.label}`.padEnd(56)} ${timed.median.toFixed(1).padStart(7)} ms (max ${timed.max.toFixed(1)})`);
  }

  // CSV downloads, one at a time, whole.
  const CSV: [string, string][] = [
    ['status', '/csv/status'],
    ['changes, 30 days', '/csv/changes?since=30d'],
    ['flips, 30 days', '/csv/flips?since=30d'],
    ['alerts, 30 days', '/csv/alerts?since=30d'],
    ['ai-access', '/csv/ai-access'],
    ['ai-access, sites that block GPTBot', '/csv/ai-access?blocks=GPTBot'],
    ['failing', '/csv/failing'],
    ['lint', '/csv/lint'],
    ['status, a search', '/csv/status?q=site-42'],
  ];
  const downloads: Download[] = [];
  if ('csv'.includes(only) || only === '') {
    for (const [name, path] of CSV) {
      const d = await download(base, name, path);
      downloads.push(d);
      console.log(`csv ${name.padEnd(40)} first byte ${d.firstByteMs.toFixed(0)} ms, all ${d.totalMs.toFixed(0)} ms, ${mb(d.bytes)}, ${d.rows} rows`);
    }
  }
  // Four status downloads at once, the process's memory sampled meanwhile; then the pages' time
  // while two run, against their time just before (same pages, same number of requests).
  let memory: { before: number; peak: number; seconds: number } | null = null;
  let responsive: { label: string; idle: number; busy: number }[] = [];
  if ('csv'.includes(only) || only === '') {
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), SAMPLE_MS);
    const t = performance.now();
    await Promise.all([0, 1, 2, 3].map(() => download(base, 'status', '/csv/status')));
    clearInterval(sampler);
    memory = { before, peak, seconds: (performance.now() - t) / 1000 };
    console.log(`four status downloads at once: RSS ${mb(before)} before, ${mb(peak)} at most, ${memory.seconds.toFixed(1)} s`);
    const pages: [string, string][] = [
      ['overview', '/'],
      ['changes, newest', '/changes'],
      ['site page', `/site?origin=${enc((await handle.pool.query<{ origin: string }>('select origin from sites order by id limit 1')).rows[0]!.origin)}`],
    ];
    const idle = await Promise.all(pages.map(async ([label, path]) => ({ label, t: await time(base, path, runs) })));
    let running = true;
    const background = (async () => {
      while (running) await Promise.all([download(base, 'status', '/csv/status'), download(base, 'lint', '/csv/lint')]);
    })();
    const busy: number[] = [];
    for (const [, path] of pages) busy.push((await time(base, path, runs)).median);
    running = false;
    await background;
    responsive = idle.map((r, i) => ({ label: r.label, idle: r.t.median, busy: busy[i]! }));
    for (const r of responsive) console.log(`while two downloads run: ${r.label.padEnd(20)} ${r.idle.toFixed(1)} ms idle, ${r.busy.toFixed(1)} ms busy`);
  }
  await app.close();
  await handle.close();

  const cpus = os.cpus();
  const over = results.filter((r) => r.timed.median > BUDGET_MS);
  const { start, end } = sectionMarkers('dashboard');
  const load = os.loadavg()[0]!.toFixed(1);
  const section = [
    start,
    '## Dashboard',
    '',
    `\`npm run bench:dashboard\` (test/bench/dashboard.ts) on ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores (shared; load average ${load} at the end), ${new Date().toISOString().slice(0, 10)}: the database \`${database}\` (${sizes[0]!.sites.toLocaleString('en-US')} sites, ${sizes[0]!.nights} nights, \`npm run bench:year\`), every page with every filter alone and several together, ${runs} requests each after ${WARM_UP} to warm up, one at a time, on a pool opened as \`serve\` opens it (read-only, JIT off). Server time is the dashboard's Server-Timing (request in to reply out: the queries and the rendering); wall is what the client waited, on loopback.`,
    '',
    `Budget: ${BUDGET_MS} ms of server time for every page and filter. ${over.length === 0 ? `All ${results.length} are within it.` : `Over it (${over.length} of ${results.length}): ${over.map((r) => `${r.probe.page}: ${r.probe.label}`).join(', ')}.`}`,
    '',
    '| page | filter | URL | server ms (median) | server ms (slowest) | wall ms (median) |',
    '|---|---|---|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.probe.page} | ${r.probe.label} | \`${r.probe.path.length > 60 ? `${r.probe.path.slice(0, 57)}...` : r.probe.path}\` | ${r.timed.median.toFixed(1)} | ${r.timed.max.toFixed(1)} | ${r.timed.wall.toFixed(1)} |`,
    ),
    '',
    ...(downloads.length === 0
      ? []
      : [
          'CSV downloads, one at a time, read whole (streamed from a cursor: the first byte comes before the last row is read):',
          '',
          '| download | URL | first byte ms | all ms | size | rows |',
          '|---|---|---:|---:|---:|---:|',
          ...downloads.map((d) => `| ${d.name} | \`${d.path}\` | ${d.firstByteMs.toFixed(0)} | ${d.totalMs.toFixed(0)} | ${mb(d.bytes)} | ${d.rows.toLocaleString('en-US')} |`),
          '',
        ]),
    ...(memory === null
      ? []
      : [
          `Four \`/csv/status\` downloads at once (the limit raised to four for it; \`ROBOTS_AUDIT_DASHBOARD_DOWNLOADS\` is 2 by default): the process (server and client) held ${mb(memory.before)} before and ${mb(memory.peak)} at most (RSS sampled every ${SAMPLE_MS} ms), for ${memory.seconds.toFixed(1)} s.`,
          '',
          'The pages while two downloads run (status and lint, again and again), against the same pages just before (medians of server time):',
          '',
          '| page | idle ms | while downloading ms |',
          '|---|---:|---:|',
          ...responsive.map((r) => `| ${r.label} | ${r.idle.toFixed(1)} | ${r.busy.toFixed(1)} |`),
        ]),
    end,
  ].join('\n');
  if (write && only === '') writeBenchSection('dashboard', section);
  console.log(over.length === 0 ? `every page and filter under ${BUDGET_MS} ms` : `over ${BUDGET_MS} ms: ${over.map((r) => `${r.probe.page}: ${r.probe.label}`).join(', ')}`);
}

await main();
