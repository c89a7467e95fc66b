/**
 * `npm run bench:logs` (issue 29): a server's access log imported and judged, against a plain read
 * of the same file in the same run. Not a test: it measures, prints a table and rewrites its
 * section of docs/benchmarks.md.
 *
 *   npm run bench:logs -- [--lines 10000000] [--sites 1000] [--reads 3] [--imports 2] [--no-write]
 *
 * The log: nginx's vhost combined (`$host $remote_addr - - [$time_local] "$request" $status
 * $body_bytes_sent "$http_referer" "$http_user_agent"`), `--lines` lines over 30 days in time
 * order, 2% of them crawlers' (Googlebot and GPTBot from their operators' real ranges, bingbot,
 * ClaudeBot, SEO and AI crawlers, GPTBot and Googlebot spoofed from other addresses), the rest
 * browsers' (current Chrome, Firefox, Safari, Edge strings); paths that the sites' rules allow
 * and disallow, robots.txt fetches among the crawlers'. Seeded, so the same parameters give the
 * same file: it is written once into os.tmpdir(), named by its parameters, and reused.
 *
 * The database: a fresh one per import (cloned from the migrated template), `--sites` sites each
 * with a history of nightly audits over the log's days (one night a day from five days before it):
 * 3 to 5 robots.txt versions a site, groups for the crawlers of the log among them, and a 5xx
 * night for one site in five, inserted directly in SQL as the nights store them (the import reads
 * them through `site_rule_nights`). OpenAI's and Google's range files (test/fixtures) are stored
 * so that identities are checked by ranges; no reverse DNS (those crawlers are unverifiable).
 *
 * Method, in one process, the two taking turns: (a) the ceiling: node:readline over
 * fs.createReadStream counting lines; (b) `importLog` with the real Postgres, from its first
 * query to its alerts. Lines/s of each, medians of the runs, and each import's rate over the read
 * that ran just before it. RSS is sampled every 100 ms during an import, and read again as the
 * import passes each tenth of the lines, with the live heap after a full collection there (run with
 * --expose-gc, as the npm script does): flat memory is the same live heap at 10% and at 100%. Then,
 * after VACUUM ANALYZE, the rows and bytes stored (crawler_requests, request_user_agents,
 * log_imports, indexes and TOAST included).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type pg from 'pg';
import { parseRangeFile } from '../../src/crawlers/identity/index.js';
import { storeRangeFile } from '../../src/db/compliance.repo.js';
import { pgArray } from '../../src/db/pg-array.js';
import { importLog } from '../../src/services/logs/log-import.service.js';
import type { LogImportSummary } from '../../src/services/logs/log-import.service.js';
import { createTestDatabase } from '../helpers/test-db.js';
import { ROOT, sectionMarkers, writeBenchSection } from './bench-doc.js';
import { median } from './median.js';

/** Bump when the generator's output changes: the file's name carries it, so an old file is not reused. */
const GENERATOR_VERSION = 1;
const SEED = 29;
const LOG_START = Date.UTC(2026, 2, 1);
const LOG_DAYS = 30;
/** Nights audited before the log starts: its first requests have a version in force. */
const NIGHTS_BEFORE = 5;
const NIGHT_HOUR_MS = 2 * 3_600_000;
const DAY_MS = 86_400_000;
const CRAWLER_SHARE = 0.02;
/** Lines joined and written at once while generating. */
const WRITE_LINES = 20_000;
const RSS_SAMPLE_MS = 100;
/** The import's target: this share of the plain read's rate (the issue). */
const TARGET_RATIO = 0.25;

interface Args {
  lines: number;
  sites: number;
  reads: number;
  imports: number;
  write: boolean;
}

function args(): Args {
  const argv = process.argv.slice(2);
  const at = (name: string, fallback: number) => {
    const i = argv.indexOf(name);
    const value = i === -1 ? fallback : Number(argv[i + 1]);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} needs a whole number ≥ 1`);
    return value;
  };
  return { lines: at('--lines', 10_000_000), sites: at('--sites', 1_000), reads: at('--reads', 3), imports: at('--imports', 2), write: !argv.includes('--no-write') };
}

/** mulberry32: a small seeded generator, so the same parameters give the same log and histories. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const hostOf = (site: number) => `shop${String(site).padStart(4, '0')}.bench.example`;
const originOf = (site: number) => `https://${hostOf(site)}`;

// ---------------------------------------------------------------------------------------------
// The sites' robots.txt histories

/** Groups a version may hold beside its `User-agent: *` group: the crawlers of the log among them. */
const CRAWLER_GROUPS = [
  'User-agent: GPTBot\nDisallow: /',
  'User-agent: GPTBot\nDisallow: /products/\nDisallow: /blog/\nAllow: /blog/press/',
  'User-agent: ClaudeBot\nUser-agent: anthropic-ai\nDisallow: /blog/\nDisallow: /products/*?',
  'User-agent: Googlebot\nDisallow: /private/\nDisallow: /*?sessionid=\nAllow: /private/press/',
  'User-agent: bingbot\nCrawl-delay: 5\nDisallow: /search\nDisallow: /private/',
  'User-agent: CCBot\nUser-agent: Bytespider\nDisallow: /',
  'User-agent: AhrefsBot\nUser-agent: SemrushBot\nDisallow: /',
  'User-agent: PerplexityBot\nDisallow: /account/\nDisallow: /blog/',
] as const;

const STAR_RULES = [
  'Disallow: /admin/',
  'Disallow: /cart',
  'Disallow: /checkout/',
  'Disallow: /account/',
  'Disallow: /search',
  'Allow: /search/help',
  'Disallow: /*?sort=',
  'Disallow: /*.pdf$',
  'Disallow: /private/',
  'Disallow: /api/',
  'Allow: /api/v1/public/',
] as const;

function robotsBody(site: number, version: number, random: () => number): string {
  const star: string[] = STAR_RULES.filter(() => random() < 0.55);
  // Site-specific lines, as real files carry (old sections, campaign pages).
  for (let i = 0, n = 2 + Math.floor(random() * 12); i < n; i++) star.push(`Disallow: /${['old', 'tmp', 'promo', 'landing'][i % 4]}-${site}-${i}/`);
  const groups = CRAWLER_GROUPS.filter(() => random() < 0.3);
  return [
    `# robots.txt for ${hostOf(site)} (version ${version})`,
    '',
    'User-agent: *',
    ...star,
    '',
    ...groups.flatMap((g) => [g, '']),
    `Sitemap: ${originOf(site)}/sitemap.xml`,
    `Sitemap: ${originOf(site)}/sitemap-products.xml`,
    '',
  ].join('\n');
}

/** What a site's night saw: a body (by index into the bodies) or a 5xx. */
type NightSeen = { body: number } | { serverError: true };

interface Histories {
  bodies: string[];
  /** By site (0-based), one entry a night. */
  nights: NightSeen[][];
}

function histories(sites: number, nights: number): Histories {
  const random = seeded(SEED + 1);
  const bodies: string[] = [];
  const all: NightSeen[][] = [];
  for (let site = 0; site < sites; site++) {
    // 3 to 5 versions: the first on the first night, the others on nights within the log.
    const versions = 3 + Math.floor(random() * 3);
    const changeNights = new Set<number>();
    while (changeNights.size < versions - 1) changeNights.add(NIGHTS_BEFORE + 1 + Math.floor(random() * (nights - NIGHTS_BEFORE - 1)));
    const serverErrorNight = random() < 0.2 ? NIGHTS_BEFORE + 1 + Math.floor(random() * (nights - NIGHTS_BEFORE - 2)) : -1;
    let version = 0;
    let body = bodies.push(robotsBody(site, version, random)) - 1;
    const seen: NightSeen[] = [];
    for (let night = 0; night < nights; night++) {
      if (changeNights.has(night)) body = bodies.push(robotsBody(site, ++version, random)) - 1;
      seen.push(night === serverErrorNight ? { serverError: true } : { body });
    }
    all.push(seen);
  }
  return { bodies, nights: all };
}

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest();

interface Seeded {
  sites: number;
  versions: number;
  serverErrorNights: number;
  bodies: number;
  snapshots: number;
}

/** Sites, nights, bodies, snapshots and changes as the nights store them; the two range files. */
async function seedDatabase(pool: pg.Pool, siteCount: number): Promise<Seeded> {
  const nights = NIGHTS_BEFORE + LOG_DAYS;
  const h = histories(siteCount, nights);
  const { rows: siteRows } = await pool.query<{ id: number }>('insert into sites (origin) select unnest($1::text[]) returning id', [
    pgArray(Array.from({ length: siteCount }, (_, i) => originOf(i)), (o) => o),
  ]);
  const siteIds = siteRows.map((r) => r.id);
  const runAts = Array.from({ length: nights }, (_, n) => new Date(LOG_START - NIGHTS_BEFORE * DAY_MS + n * DAY_MS + NIGHT_HOUR_MS));
  const { rows: runRows } = await pool.query<{ id: number }>(
    `insert into audit_runs (run_key, trigger, run_at, started_at, finished_at, status, sites_total, sites_done)
     select 'bench-logs-' || n, 'scheduled', at, at, at + interval '20 minutes', 'completed', $2, $2
     from unnest($1::timestamptz[]) with ordinality as x(at, n) order by n returning id`,
    [pgArray(runAts, (d) => d.toISOString()), siteCount],
  );
  const runIds = runRows.map((r) => r.id);
  const bodyBytes = h.bodies.map((b) => Buffer.from(b));
  const { rows: bodyRows } = await pool.query<{ id: number }>(
    `insert into bodies (sha256, content, size) select s, c, octet_length(c) from unnest($1::bytea[], $2::bytea[]) with ordinality as x(s, c, n) order by n returning id`,
    [pgArray(bodyBytes, (b) => sha256(b)), pgArray(bodyBytes, (b) => b)],
  );
  const bodyIds = bodyRows.map((r) => r.id);

  const snapshots = { site: [] as number[], run: [] as number[], at: [] as string[], body: [] as (number | null)[], outcome: [] as string[], policy: [] as string[], status: [] as number[] };
  const changes = { site: [] as number[], run: [] as number[], previous: [] as (number | null)[], kinds: [] as string[], outcomeFrom: [] as (string | null)[], outcomeTo: [] as string[], policyFrom: [] as (string | null)[], policyTo: [] as string[] };
  let versions = 0;
  let serverErrorNights = 0;
  for (let site = 0; site < siteCount; site++) {
    let before: NightSeen | null = null;
    for (let night = 0; night < nights; night++) {
      const seen = h.nights[site]![night]!;
      const error = 'serverError' in seen;
      const outcome = error ? 'server_error' : 'ok';
      const policy = error ? 'disallow_all' : 'rules';
      snapshots.site.push(siteIds[site]!);
      snapshots.run.push(runIds[night]!);
      snapshots.at.push(runAts[night]!.toISOString());
      snapshots.body.push(error ? null : bodyIds[seen.body]!);
      snapshots.outcome.push(outcome);
      snapshots.policy.push(policy);
      snapshots.status.push(error ? 503 : 200);
      const wasError = before !== null && 'serverError' in before;
      let kinds: string | null = null;
      if (before === null) kinds = '{first_seen}';
      else if (error !== wasError) kinds = '{outcome,policy}';
      else if (!error && 'body' in before && before.body !== seen.body) kinds = '{rules}';
      if (kinds !== null) {
        changes.site.push(siteIds[site]!);
        changes.run.push(runIds[night]!);
        changes.previous.push(night === 0 ? null : runIds[night - 1]!);
        changes.kinds.push(kinds);
        changes.outcomeFrom.push(before === null ? null : wasError ? 'server_error' : 'ok');
        changes.outcomeTo.push(outcome);
        changes.policyFrom.push(before === null ? null : wasError ? 'disallow_all' : 'rules');
        changes.policyTo.push(policy);
        if (kinds !== '{outcome,policy}') versions++;
        else if (error) serverErrorNights++;
      }
      before = seen;
    }
  }
  const list = <T extends string | number | null>(xs: T[]) => pgArray(xs, (x) => x);
  await pool.query(
    `insert into snapshots (site_id, run_id, run_at, fetched_at, duration_ms, body_id, outcome, policy, status, attempts, policy_reason)
     select s, r, a, a, 120, b, o::fetch_outcome, p::effective_policy, st, 1, case when o = 'ok' then '2xx: the rules' else '5xx: full disallow (R-13)' end
     from unnest($1::int[], $2::int[], $3::timestamptz[], $4::int[], $5::text[], $6::text[], $7::smallint[]) as x(s, r, a, b, o, p, st)`,
    [list(snapshots.site), list(snapshots.run), list(snapshots.at), list(snapshots.body), list(snapshots.outcome), list(snapshots.policy), list(snapshots.status)],
  );
  await pool.query(
    `insert into snapshot_changes (site_id, run_id, previous_run_id, kinds, outcome_from, outcome_to, policy_from, policy_to)
     select s, r, pr, k::text[], of::fetch_outcome, ot::fetch_outcome, pf::effective_policy, pt::effective_policy
     from unnest($1::int[], $2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) as x(s, r, pr, k, of, ot, pf, pt)`,
    [list(changes.site), list(changes.run), list(changes.previous), list(changes.kinds), list(changes.outcomeFrom), list(changes.outcomeTo), list(changes.policyFrom), list(changes.policyTo)],
  );
  for (const [file, source] of RANGE_FILES) {
    const bytes = fs.readFileSync(path.join(ROOT, 'test/fixtures/crawler-ranges', file));
    const parsed = parseRangeFile(bytes.toString('utf8'));
    await storeRangeFile(pool, { source, publishedAt: parsed.publishedAt ?? new Date(LOG_START), prefixes: parsed.prefixes, sha256: sha256(bytes) });
  }
  await pool.query('vacuum analyze');
  return { sites: siteCount, versions, serverErrorNights, bodies: bodyIds.length, snapshots: snapshots.site.length };
}

const RANGE_FILES = [
  ['openai-gptbot.json', 'gptbot'],
  ['google-common-crawlers.json', 'googlebot'],
] as const;

// ---------------------------------------------------------------------------------------------
// The log

const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  'Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1',
] as const;

type Addresses = 'googlebot' | 'gptbot' | 'bingbot' | 'any';

/** The crawlers of the log: share of the crawler lines, header, where their requests come from. */
const CRAWLERS: readonly { share: number; userAgent: string; from: Addresses }[] = [
  { share: 0.25, from: 'googlebot', userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/131.0.6778.204 Safari/537.36' },
  { share: 0.1, from: 'googlebot', userAgent: 'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.204 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' },
  { share: 0.02, from: 'any', userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' },
  { share: 0.15, from: 'bingbot', userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/131.0.0.0 Safari/537.36' },
  { share: 0.15, from: 'gptbot', userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot' },
  { share: 0.03, from: 'any', userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot' },
  { share: 0.1, from: 'any', userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)' },
  { share: 0.05, from: 'any', userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)' },
  { share: 0.04, from: 'any', userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)' },
  { share: 0.05, from: 'any', userAgent: 'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)' },
  { share: 0.03, from: 'any', userAgent: 'Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)' },
  { share: 0.02, from: 'any', userAgent: 'CCBot/2.0 (https://commoncrawl.org/faq/)' },
  { share: 0.01, from: 'any', userAgent: 'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)' },
];

const WORDS = ['shoes', 'winter+jacket', 'gift+ideas', 'returns', 'size+guide', 'red+dress', 'laptop+bag', 'discount', 'delivery', 'warranty'];
const SLUGS = ['how-to-choose-running-shoes', 'spring-collection-2026', 'care-guide-for-leather', 'our-new-store', 'press/annual-results', 'sustainability-report'];

/** A request target: pages, assets, searches, and the paths the rules name. */
function targetOf(random: () => number, crawler: boolean): string {
  const r = random();
  const n = Math.floor(random() * 50_000);
  if (crawler && r < 0.03) return '/robots.txt';
  if (r < 0.08) return '/';
  if (r < 0.3) return `/products/${n}-${WORDS[n % WORDS.length]!.replace('+', '-')}`;
  if (r < 0.38) return `/products/${n}?sort=price&page=${1 + (n % 9)}`;
  if (r < 0.48) return `/blog/${SLUGS[n % SLUGS.length]}`;
  if (r < 0.55) return `/search?q=${WORDS[n % WORDS.length]}&page=${1 + (n % 4)}`;
  if (r < 0.6) return `/private/reports/${n}.pdf`;
  if (r < 0.62) return `/private/press/kit-${n % 40}.zip`;
  if (r < 0.64) return '/admin/login';
  if (r < 0.67) return '/cart';
  if (r < 0.7) return `/account/orders/${n}`;
  if (r < 0.72) return `/checkout/step-${1 + (n % 3)}?sessionid=${(n * 2654435761 >>> 0).toString(16)}`;
  if (r < 0.76) return `/api/v1/items/${n}`;
  if (r < 0.78) return `/api/v1/public/stock/${n}`;
  if (r < 0.82) return `/old-${n % 1000}-${n % 5}/page.html`;
  if (r < 0.9) return `/static/js/app.${(n * 40503 >>> 0).toString(16).padStart(8, '0')}.js`;
  return `/images/p/${n}/large.jpg`;
}

interface Prefix {
  first: number;
  size: number;
}

/** An operator's IPv4 prefixes from its range file: where its real requests come from. */
function ipv4Prefixes(file: string): Prefix[] {
  const parsed = parseRangeFile(fs.readFileSync(path.join(ROOT, 'test/fixtures/crawler-ranges', file), 'utf8'));
  return parsed.prefixes
    .filter((p) => !p.includes(':'))
    .map((p) => {
      const [address, length] = p.split('/') as [string, string];
      const first = address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
      return { first, size: 2 ** (32 - Number(length)) };
    });
}

const dotted = (n: number) => `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad2 = (n: number) => String(n).padStart(2, '0');

function clfTime(ms: number): string {
  const d = new Date(ms);
  return `${pad2(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} +0000`;
}

function logPath(lines: number, sites: number): string {
  return path.join(os.tmpdir(), `robots-audit-bench-logs-v${GENERATOR_VERSION}-${lines}-lines-${sites}-sites-${CRAWLER_SHARE * 100}pct.log`);
}

/** Writes the log unless a file of the same parameters is there; the seconds it took (0: reused). */
function generateLog(file: string, lines: number, sites: number): number {
  if (fs.existsSync(file)) return 0;
  const started = performance.now();
  const random = seeded(SEED);
  const ranges: Record<Addresses, Prefix[]> = {
    googlebot: ipv4Prefixes('google-common-crawlers.json'),
    gptbot: ipv4Prefixes('openai-gptbot.json'),
    // Bing's crawlers (checked by reverse DNS, which this bench does not ask).
    bingbot: [{ first: (157 << 24) + (55 << 16) + (39 << 8), size: 256 } as Prefix, { first: (40 << 24) + (77 << 16) + (167 << 8), size: 256 }].map((p) => ({ ...p, first: p.first >>> 0 })),
    any: [],
  };
  const cumulative: number[] = [];
  CRAWLERS.reduce((sum, c) => (cumulative.push(sum + c.share), sum + c.share), 0);
  const crawlerOf = (r: number) => CRAWLERS[Math.max(0, cumulative.findIndex((c) => r < c))] ?? CRAWLERS[0]!;
  const addressOf = (from: Addresses) => {
    const prefixes = ranges[from];
    if (prefixes.length === 0) return dotted((((1 + Math.floor(random() * 222)) << 24) >>> 0) + Math.floor(random() * 0xffffff));
    const p = prefixes[Math.floor(random() * prefixes.length)]!;
    return dotted(p.first + Math.floor(random() * p.size));
  };
  // A few sites draw most of the traffic, as in any hosting log.
  const siteOf = () => Math.floor(sites * random() ** 2);
  const tmp = `${file}.${process.pid}.partial`;
  const fd = fs.openSync(tmp, 'w');
  try {
    const spanMs = LOG_DAYS * DAY_MS;
    let second = -1;
    let time = '';
    const batch: string[] = [];
    for (let i = 0; i < lines; i++) {
      const at = LOG_START + Math.floor((i / lines) * spanMs);
      if (Math.floor(at / 1000) !== second) {
        second = Math.floor(at / 1000);
        time = clfTime(at);
      }
      const host = hostOf(siteOf());
      let line: string;
      if (random() < CRAWLER_SHARE) {
        const c = crawlerOf(random());
        const target = targetOf(random, true);
        const status = target.startsWith('/private/') && random() < 0.3 ? 404 : 200;
        line = `${host} ${addressOf(c.from)} - - [${time}] "GET ${target} HTTP/1.1" ${status} ${200 + Math.floor(random() * 90_000)} "-" "${c.userAgent}"`;
      } else {
        const target = targetOf(random, false);
        const r = random();
        const status = r < 0.88 ? 200 : r < 0.95 ? 304 : r < 0.99 ? 404 : 500;
        const referer = r < 0.4 ? `https://${host}/products/${Math.floor(random() * 50_000)}` : r < 0.7 ? 'https://www.google.com/' : '-';
        line = `${host} ${addressOf('any')} - - [${time}] "GET ${target} HTTP/1.1" ${status} ${status === 304 ? 0 : 200 + Math.floor(random() * 90_000)} "${referer}" "${BROWSERS[Math.floor(random() * BROWSERS.length)]}"`;
      }
      batch.push(line);
      if (batch.length === WRITE_LINES) {
        fs.writeSync(fd, `${batch.join('\n')}\n`);
        batch.length = 0;
      }
    }
    if (batch.length > 0) fs.writeSync(fd, `${batch.join('\n')}\n`);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  return (performance.now() - started) / 1000;
}

// ---------------------------------------------------------------------------------------------
// The measures

/** The ceiling: the file's lines through node:readline, counted. */
async function plainRead(file: string): Promise<{ lines: number; seconds: number }> {
  const started = performance.now();
  let lines = 0;
  const reader = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  for await (const line of reader) if (line.length >= 0) lines++;
  return { lines, seconds: (performance.now() - started) / 1000 };
}

interface ImportRun {
  seconds: number;
  /** This process's CPU over the import (user + system): Postgres's own is not in it. */
  cpuSeconds: number;
  summary: LogImportSummary;
  rssBefore: number;
  rssPeak: number;
  /** RSS as the import passed each tenth of the lines (index 0: 10%). */
  rssAtTenths: number[];
  /** The live heap there, after a full collection: what the import holds, apart from the garbage V8 has not collected yet. */
  heapAtTenths: number[];
  storage: Storage;
  seeded: Seeded;
  seedSeconds: number;
}

interface Storage {
  rows: number;
  crawlerRequestsBytes: number;
  userAgentRows: number;
  userAgentsBytes: number;
  importsBytes: number;
  /** Stored requests by judgement and by identity. */
  judgements: Map<string, number>;
  identities: Map<string, number>;
}

async function storageOf(pool: pg.Pool): Promise<Storage> {
  await pool.query('vacuum analyze crawler_requests, request_user_agents, log_imports');
  const { rows } = await pool.query<{ rows: string; requests: string; agents: string; agent_rows: string; imports: string }>(
    `select (select count(*) from crawler_requests) as rows, pg_total_relation_size('crawler_requests') as requests,
            (select count(*) from request_user_agents) as agent_rows, pg_total_relation_size('request_user_agents') as agents,
            pg_total_relation_size('log_imports') as imports`,
  );
  const r = rows[0]!;
  const counts = async (column: 'judgement' | 'identity') =>
    new Map((await pool.query<{ k: string; n: string }>(`select ${column}::text as k, count(*) as n from crawler_requests group by 1 order by 2 desc`)).rows.map((x) => [x.k, Number(x.n)]));
  return {
    rows: Number(r.rows),
    crawlerRequestsBytes: Number(r.requests),
    userAgentRows: Number(r.agent_rows),
    userAgentsBytes: Number(r.agents),
    importsBytes: Number(r.imports),
    judgements: await counts('judgement'),
    identities: await counts('identity'),
  };
}

async function importOnce(file: string, lines: number, sites: number): Promise<ImportRun> {
  const db = await createTestDatabase();
  try {
    const seedStarted = performance.now();
    const seeded = await seedDatabase(db.pool, sites);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    // The plain read's and the last import's garbage is not this import's memory (npm run bench:logs passes --expose-gc).
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), RSS_SAMPLE_MS);
    const rssAtTenths: number[] = [];
    const heapAtTenths: number[] = [];
    const started = performance.now();
    const cpuAtStart = process.cpuUsage();
    let summary: LogImportSummary;
    try {
      summary = await importLog(db.pool, {
        input: file,
        format: 'vhost-combined',
        reverseDns: null,
        onProgress: (p) => {
          while (rssAtTenths.length < 10 && p.lines >= ((rssAtTenths.length + 1) * lines) / 10) {
            rssAtTenths.push(process.memoryUsage().rss);
            global.gc?.();
            heapAtTenths.push(process.memoryUsage().heapUsed);
          }
        },
      });
    } finally {
      clearInterval(sampler);
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuAtStart);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    const storage = await storageOf(db.pool);
    return { seconds, cpuSeconds, summary, rssBefore, rssPeak, rssAtTenths, heapAtTenths, storage, seeded, seedSeconds };
  } finally {
    await db.close();
  }
}

const whole = (n: number) => Math.round(n).toLocaleString('en-US');
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const range = (xs: readonly number[], f: (n: number) => string) => (xs.length > 1 ? ` (${f(Math.min(...xs))}–${f(Math.max(...xs))})` : '');

async function main(): Promise<void> {
  const a = args();
  const file = logPath(a.lines, a.sites);
  const generatedIn = generateLog(file, a.lines, a.sites);
  const fileBytes = fs.statSync(file).size;
  console.log(`${file}: ${mb(fileBytes)}, ${generatedIn > 0 ? `generated in ${generatedIn.toFixed(1)} s` : 'reused'}`);

  // The read and the import take turns: each import is compared with the read just before it.
  const reads: number[] = [];
  const imports: ImportRun[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < Math.max(a.reads, a.imports); r++) {
    let readRate = Number.NaN;
    if (r < a.reads) {
      const read = await plainRead(file);
      if (read.lines !== a.lines) throw new Error(`the plain read counted ${read.lines} lines, not ${a.lines}`);
      readRate = read.lines / read.seconds;
      reads.push(readRate);
      console.log(`plain read ${r + 1}: ${read.seconds.toFixed(1)} s, ${whole(readRate)} lines/s`);
    }
    if (r < a.imports) {
      const run = await importOnce(file, a.lines, a.sites);
      if (run.summary.lines !== a.lines || run.summary.unreadable !== 0) throw new Error(`the import read ${run.summary.lines} lines, ${run.summary.unreadable} unreadable`);
      imports.push(run);
      const rate = run.summary.lines / run.seconds;
      if (!Number.isNaN(readRate)) ratios.push(rate / readRate);
      console.log(
        `import ${r + 1}: ${run.seconds.toFixed(1)} s (CPU ${run.cpuSeconds.toFixed(1)} s), ${whole(rate)} lines/s, ratio ${(rate / readRate).toFixed(2)}, ${whole(run.summary.crawlerRequests)} crawler requests, ${whole(run.summary.stored)} stored, peak RSS ${mb(run.rssPeak)} (before ${mb(run.rssBefore)}; seeded in ${run.seedSeconds.toFixed(1)} s)`,
      );
    }
  }

  const importRates = imports.map((run) => run.summary.lines / run.seconds);
  const ratio = median(ratios.length > 0 ? ratios : [median(importRates) / median(reads)]);
  const last = imports[imports.length - 1]!;
  const s = last.storage;
  const perRequest = (s.crawlerRequestsBytes + s.userAgentsBytes + s.importsBytes) / s.rows;
  const peak = Math.max(...imports.map((run) => run.rssPeak));
  const tenths = last.rssAtTenths;
  const cpus = os.cpus();
  const key = 'logs';
  const { start, end } = sectionMarkers(key);
  const options = `--lines ${a.lines} --sites ${a.sites} --reads ${a.reads} --imports ${a.imports}`;
  const section = [
    start,
    '## Log import (issue 29)',
    '',
    `\`npm run bench:logs -- ${options}\` (test/bench/logs.ts; its header gives the method) on ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores (shared; load average ${os.loadavg()[0]!.toFixed(1)} at the end), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
    '',
    `The log: ${whole(a.lines)} vhost-combined lines (${mb(fileBytes)}, ${(fileBytes / a.lines).toFixed(0)} bytes a line) over 30 days, ${CRAWLER_SHARE * 100}% of them crawlers' (${whole(last.summary.crawlerRequests)} requests), for ${whole(a.sites)} sites with ${whole(last.seeded.versions)} robots.txt versions and ${whole(last.seeded.serverErrorNights)} 5xx nights among ${whole(last.seeded.snapshots)} site-nights; OpenAI's and Google's range files; no reverse DNS. ${generatedIn > 0 ? `Generated in ${generatedIn.toFixed(0)} s.` : 'Generated by an earlier run (reused).'}`,
    '',
    `Rates are medians of the runs (range); the ratio is each import's rate over the plain read just before it, median of ${ratios.length}.`,
    '',
    '| measure | figure | target | met |',
    '|---|---:|---:|:-:|',
    `| plain read (readline over createReadStream), lines/s | ${whole(median(reads))}${range(reads, whole)} |  |  |`,
    `| import (read, claim, parse, judge, check, store, alerts), lines/s | ${whole(median(importRates))}${range(importRates, whole)} |  |  |`,
    `| import / plain read | ${ratio.toFixed(2)}${range(ratios, (x) => x.toFixed(2))} | ≥ ${TARGET_RATIO} | ${ratio >= TARGET_RATIO ? 'yes' : 'no'} |`,
    `| import, seconds (of which this process's CPU) | ${median(imports.map((run) => run.seconds)).toFixed(1)}${range(imports.map((run) => run.seconds), (x) => x.toFixed(1))} (${median(imports.map((run) => run.cpuSeconds)).toFixed(1)}) |  |  |`,
    `| peak RSS of the process during an import (sampled every ${RSS_SAMPLE_MS} ms) | ${mb(peak)} (before it: ${mb(last.rssBefore)}) |  |  |`,
    `| RSS at 10% / 50% / 100% of the lines | ${atTenths(tenths)} |  |  |`,
    `| live heap there, after a full collection | ${atTenths(last.heapAtTenths)} | flat | ${flat(last.heapAtTenths) ? 'yes' : 'no'} |`,
    `| crawler requests stored (rows of crawler_requests) | ${whole(s.rows)} |  |  |`,
    `| crawler_requests, with its indexes | ${mb(s.crawlerRequestsBytes)} |  |  |`,
    `| request_user_agents (${whole(s.userAgentRows)} rows) and log_imports | ${(s.userAgentsBytes / 1024).toFixed(0)} KiB and ${(s.importsBytes / 1024).toFixed(0)} KiB |  |  |`,
    `| bytes per stored request (the three tables) | ${perRequest.toFixed(0)} |  |  |`,
    `| per million crawler requests | ${mb(perRequest * 1e6)} |  |  |`,
    '',
    `What the last import stored: ${whole(last.summary.crawlerRequests)} crawler requests judged and stored, ${whole(last.summary.alerts)} alerts raised; by judgement ${listOf(s.judgements)}; by identity ${listOf(s.identities)}.`,
    end,
  ].join('\n');
  console.log(`\n${section}`);
  if (a.write) {
    writeBenchSection(key, section);
    console.log('\nwrote docs/benchmarks.md (section logs)');
  }
}

const atTenths = (xs: readonly number[]) => [0, 4, 9].map((i) => (xs[i] === undefined ? '–' : mb(xs[i]))).join(' / ');

/** Flat: at the end within 10% (or 32 MB) of the first tenth. */
function flat(tenths: readonly number[]): boolean {
  const first = tenths[0];
  const lastTenth = tenths[tenths.length - 1];
  if (first === undefined || lastTenth === undefined) return false;
  return lastTenth - first <= Math.max(first * 0.1, 32 * 2 ** 20);
}

const listOf = (counts: ReadonlyMap<string, number>) => [...counts].map(([k, n]) => `${k} ${whole(n)}`).join(', ');

await main();
