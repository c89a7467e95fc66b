/**
 * Storage cost of the nightly record: bytes an UNCHANGED site adds per night (one fetch_attempts
 * row, one snapshots row, no new body), measured on a real Postgres with the real write path
 * (`snapshots.recordFetch`: body lookup, attempts and snapshot in one transaction). Also the
 * issue-4 verdict rows (root URL x agents). Not a test: it measures, prints a table and
 * rewrites the "Storage" section of docs/benchmarks.md (between its markers).
 *
 *   node --import tsx test/bench/storage.ts [--sites 2000] [--nights 30] [--agents 20] [--no-write]
 *
 * Method: a fresh database cloned from the migrated template; night 0 stores every site's body
 * (first seen); VACUUM ANALYZE; sizes (pg_total_relation_size: heap + TOAST + indexes + free
 * space and visibility maps) of every table; then `--nights` more nights with the same bodies;
 * VACUUM ANALYZE; sizes again. The difference divided by sites x nights is the figure. The
 * rows carry realistic values (URLs, validators, a remote address), not empty columns.
 */
import { BENCH_DOC, ROOT, sectionMarkers, writeBenchSection } from './bench-doc.js';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { AttemptInput } from '../../src/db/attempts.repo.js';
import { sha256Of } from '../../src/db/bodies.repo.js';
import { createRepos } from '../../src/db/index.js';
import type { SnapshotInput } from '../../src/db/snapshots.repo.js';
import { createTestDatabase } from '../helpers/test-db.js';

const DOC = BENCH_DOC;
const { start: START, end: END } = sectionMarkers('storage');

const DEFAULT_SITES = 2000;
const DEFAULT_NIGHTS = 30;
/** Default agents evaluated per tracked URL (the global list of issue 4 is about this long). */
const DEFAULT_AGENTS = 20;
/** Concurrent writers, like a fetch worker's concurrency. */
const WRITERS = 8;
/** The target the schema is designed for. */
const TARGET_SITES = 100_000;
const TARGET_NIGHTS = 365;
const DAY_MS = 24 * 3600 * 1000;

interface Args {
  sites: number;
  nights: number;
  agents: number;
  write: boolean;
}

function args(): Args {
  const argv = process.argv.slice(2);
  const num = (name: string, def: number) => {
    const i = argv.indexOf(name);
    if (i === -1) return def;
    const n = Number(argv[i + 1]);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} needs a whole number ≥ 1`);
    return n;
  };
  return { sites: num('--sites', DEFAULT_SITES), nights: num('--nights', DEFAULT_NIGHTS), agents: num('--agents', DEFAULT_AGENTS), write: !argv.includes('--no-write') };
}

interface BenchSite {
  id: number;
  index: number;
  origin: string;
  body: Buffer;
  sha: Buffer;
}

/** A plausible robots.txt of ~1.2 KB, different per site. */
function robotsBody(i: number): Buffer {
  const lines = ['User-agent: *'];
  for (let r = 0; r < 20; r++) lines.push(`Disallow: /section-${i}-${r}/private/`);
  lines.push('Allow: /public/', '', 'User-agent: Googlebot', 'Disallow: /search', '', `Sitemap: https://www.site-${i}.example.com/sitemap.xml`);
  return Buffer.from(`${lines.join('\n')}\n`);
}

function attemptOf(site: BenchSite, runId: number, at: Date, night: number): AttemptInput {
  const url = `${site.origin}/robots.txt`;
  return {
    runId,
    siteId: site.id,
    attempt: 1,
    startedAt: at,
    durationMs: 80 + ((site.index * 37 + night * 11) % 700),
    requestedUrl: url,
    finalUrl: url,
    hops: [],
    status: 200,
    outcome: 'ok',
    bodyBytes: site.body.length,
    fullSize: site.body.length,
    truncated: false,
    bodySha256: site.sha,
    remoteAddress: site.index % 4 === 0 ? `2001:db8:${(site.index % 65535).toString(16)}::1` : `203.0.113.${site.index % 250}`,
    contentType: 'text/plain; charset=utf-8',
    cacheControl: 'public, max-age=86400',
    lastModified: 'Tue, 14 Oct 2025 08:12:45 GMT',
    etag: `"${site.sha.toString('hex').slice(0, 16)}"`,
    contentEncoding: 'gzip',
    cacheLifetimeSeconds: 86400,
  };
}

function snapshotOf(site: BenchSite, runId: number, at: Date): SnapshotInput {
  return {
    runId,
    siteId: site.id,
    fetchedAt: at,
    outcome: 'ok',
    status: 200,
    attempts: 1,
    policy: 'rules',
    policyReason: 'R-10',
    policySnapshotId: 'self',
    bodySha256: site.sha,
    bodyBytes: site.body.length,
    truncated: false,
    groups: 2,
    rules: 22,
    sitemaps: 1,
    lintErrors: 0,
    lintWarnings: 1,
    lintInfos: 0,
  };
}

async function inParallel<T>(items: T[], workers: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

type Sizes = Map<string, { heap: number; indexes: number; total: number }>;

const fmtBytes = (n: number) =>
  n >= 1e12 ? `${(n / 1e12).toFixed(2)} TB` : n >= 1e9 ? `${(n / 1e9).toFixed(1)} GB` : n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${Math.round(n)} B`;


async function main(): Promise<void> {
  const { sites: siteCount, nights, agents, write } = args();
  const testDb = await createTestDatabase();
  try {
    const db = testDb.db;
    const repos = createRepos(db);
    const sizes = async (): Promise<Sizes> => {
      await db.execute(sql`vacuum (analyze)`);
      const rows = await db.execute<{ name: string; heap: string; indexes: string; total: string }>(sql`
        select c.relname as name, pg_relation_size(c.oid) as heap, pg_indexes_size(c.oid) as indexes,
               pg_total_relation_size(c.oid) as total
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind = 'r'`);
      return new Map(rows.rows.map((r) => [r.name, { heap: Number(r.heap), indexes: Number(r.indexes), total: Number(r.total) }]));
    };

    // Sites, and the default agents for the verdict phase.
    const origins = Array.from({ length: siteCount }, (_, i) => `https://www.site-${i}.example.com`);
    await repos.sites.upsertSites(origins.map((origin) => ({ origin })));
    const ids = new Map((await repos.sites.enabledSitesForRun()).map((s) => [s.origin, s.id]));
    const sites: BenchSite[] = origins.map((origin, index) => {
      const body = robotsBody(index);
      return { id: ids.get(origin)!, index, origin, body, sha: sha256Of(body) };
    });
    await db.execute(sql`insert into user_agents (token, family) select 'Agent' || g, 'search' from generate_series(1, ${agents}) g`);

    const firstNight = Date.UTC(2026, 0, 1, 3, 0, 0);
    const runNight = async (night: number) => {
      const runAt = new Date(firstNight + night * DAY_MS);
      const { run } = await repos.runs.createRun({ runKey: `nightly-bench-${night}`, trigger: 'scheduled', runAt, sitesTotal: siteCount });
      await inParallel(sites, WRITERS, (site) => {
        const at = new Date(runAt.getTime() + site.index * 10);
        return repos.snapshots.recordFetch({ bodies: [site.body], attempts: [attemptOf(site, run.id, at, night)], snapshot: snapshotOf(site, run.id, at) });
      });
      // Issue 4: one verdict per tracked URL (the root) x agent, as the diff worker writes them, site by site.
      await db.execute(sql`
        insert into verdicts (tracked_url_id, run_id, user_agent_id, rule_line, allowed)
        select t.id, ${run.id}, ua.id, case when ua.id % 4 = 0 then 3 end, ua.id % 4 <> 0
        from tracked_urls t cross join user_agents ua order by t.id, ua.id`);
      await repos.runs.finishRun(run.id, { status: 'completed', finishedAt: new Date(runAt.getTime() + 3600_000) });
    };

    await runNight(0); // first seen: every body stored
    const before = await sizes();
    const started = performance.now();
    for (let night = 1; night <= nights; night++) await runNight(night);
    const seconds = (performance.now() - started) / 1000;
    const after = await sizes();

    const siteNights = siteCount * nights;
    const delta = (table: string) => {
      const a = after.get(table)!;
      const b = before.get(table)!;
      return { heap: a.heap - b.heap, indexes: a.indexes - b.indexes, total: a.total - b.total };
    };
    const tables = ['fetch_attempts', 'snapshots', 'bodies', 'audit_runs', 'verdicts'];
    const perSiteNight = Object.fromEntries(tables.map((t) => [t, delta(t).total / siteNights]));
    const nightly = perSiteNight.fetch_attempts! + perSiteNight.snapshots! + perSiteNight.bodies! + perSiteNight.audit_runs!;
    const verdictRow = delta('verdicts').total / (siteNights * agents);
    const target = TARGET_SITES * TARGET_NIGHTS;

    const version = (await db.execute<{ v: string }>(sql`select current_setting('server_version') as v`)).rows[0]!.v;
    const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
    const machine = `${cpu}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, PostgreSQL ${version}, Node ${process.version}`;

    const row = (t: string) => {
      const d = delta(t);
      return `| ${t} | ${(d.heap / siteNights).toFixed(1)} | ${(d.indexes / siteNights).toFixed(1)} | ${(d.total / siteNights).toFixed(1)} |`;
    };
    const text = [
      START,
      '## Storage',
      '',
      `\`node --import tsx test/bench/storage.ts --sites ${siteCount} --nights ${nights} --agents ${agents}\``,
      '',
      `Machine: ${machine}. Date: ${new Date().toISOString().slice(0, 10)}.`,
      '',
      `What an **unchanged** site adds per night, measured: ${siteCount} sites, each fetched once a night for`,
      `${nights} nights after a first night that stored the bodies, through the real write path`,
      '(`snapshots.recordFetch`: body looked up by hash, attempt and snapshot in one transaction, ' + `${WRITERS} writers).`,
      'Rows carry realistic values: URL, status, validators (ETag, Last-Modified), Cache-Control, content',
      'type and encoding, remote address, body hash. Sizes are `pg_total_relation_size` differences after',
      '`VACUUM ANALYZE` (heap + TOAST + indexes + free-space and visibility maps), divided by sites x nights.',
      '',
      '| table | heap B/site/night | indexes B/site/night | total B/site/night |',
      '|---|---:|---:|---:|',
      row('fetch_attempts'),
      row('snapshots'),
      row('bodies'),
      row('audit_runs'),
      '',
      `**${nightly.toFixed(0)} bytes per unchanged site per night** (attempt + snapshot + their indexes; no body).`,
      `At ${TARGET_SITES.toLocaleString('en-US')} sites x ${TARGET_NIGHTS} nights (${(target / 1e6).toFixed(1)} M site-nights): **${fmtBytes(nightly * target)} a year**,`,
      `${fmtBytes(nightly * TARGET_SITES)} a night.`,
      '',
      `Verdicts (issue 4), one row per tracked URL x agent x night: ${verdictRow.toFixed(1)} bytes a row with its`,
      `primary key. With only the root URL and ${agents} agents that is ${fmtBytes(perSiteNight.verdicts!)} per site per night,`,
      `**${fmtBytes(perSiteNight.verdicts! * target)} a year** at ${TARGET_SITES.toLocaleString('en-US')} sites, ${(perSiteNight.verdicts! / nightly).toFixed(1)} times what snapshots and`,
      'attempts take together. Each extra tracked URL adds the same again.',
      '',
      `Write time on this (shared) machine: ${seconds.toFixed(1)} s for ${siteNights.toLocaleString('en-US')} site-nights with verdicts`,
      `(${Math.round(siteNights / seconds)} site-nights/s).`,
      '',
      'Not counted: changed bodies (a changed robots.txt adds one `bodies` row of its size, compressed by',
      'TOAST above 2 KB) and the issue-4 change, flip and alert rows (only when something changes).',
      '',
      'What keeps the rows narrow (src/db/schema.ts): integer keys, enums, columns ordered widest first',
      '(no alignment padding), the body referenced by hash and stored once, `final_url` and `hops` NULL',
      'when there was no redirect, attempts keyed by (site, run, attempt) with no surrogate id, no `run_id`',
      'index on snapshots (the unique (run_id, site_id) serves),',
      'verdicts keep the deciding line only (kind and pattern are on flips). Further levers if the volume',
      'matters more than per-night detail: keep verdicts only for nights whose policy snapshot changed',
      '(they are a pure function of policy snapshot, URL and agent), or partition the nightly tables by',
      'month and drop old partitions.',
      END,
    ].join('\n');

    process.stdout.write(`${text}\n`);
    if (write) {
      writeBenchSection('storage', text);
      process.stdout.write(`\nwrote the Storage section of ${path.relative(ROOT, DOC)}\n`);
    }
  } finally {
    await testDb.close();
  }
}

await main();
