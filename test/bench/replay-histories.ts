/**
 * Issue 18, item 4: the demo's real daily histories (src/demo/data, 21 hosts, 29 July to 30
 * August 2025) replayed through the real pipeline twice, by `robots-audit demo` itself: once with
 * flapping off (`ROBOTS_AUDIT_FLAPPING_WINDOW_NIGHTS=0`: every change alerted night by night, as
 * before issue 18) and once with the defaults (K = 7, M = 3). Not a test: it counts the alerts per
 * host of each replay, lists every alert the second one no longer raises, checks that the lasting
 * changes (the 29 August blocks of GPTBot, ClaudeBot, PerplexityBot...) are still alerted with
 * their flips, and rewrites its section of docs/benchmarks.md.
 *
 *   npm run bench:replay [-- --no-write]
 *
 * Needs DATABASE_URL (a server where it may create two databases, dropped at the end) and Redis.
 */
import pg from 'pg';
import { runCli } from '../helpers/cli.js';
import { writeBenchSection } from './bench-doc.js';

const MODES = [
  { name: 'before', label: 'flapping off (K = 0)', env: { ROBOTS_AUDIT_FLAPPING_WINDOW_NIGHTS: '0' } },
  { name: 'after', label: 'defaults (K = 7, M = 3)', env: {} },
] as const;

/** The 2025 hosts: the 21 recorded ones and the two demo hosts of issue 18. */
const HOSTS_SQL = `select s.id, regexp_replace(s.origin, '^https?://([^:/]+).*$', '\\1') as host
  from sites s join portfolio_sites ps on ps.site_id = s.id join portfolios p on p.id = ps.portfolio_id
  where p.name = 'recorded-2025' or s.origin ~ '^https?://(walled|cdn-pair)\\.demo'`;

interface AlertRow {
  host: string;
  night: string;
  kind: string;
  severity: string;
  flips: number;
}

async function replay(mode: (typeof MODES)[number], baseUrl: string): Promise<AlertRow[]> {
  const database = `demo_replay_${mode.name}`;
  const run = await runCli(['demo', '--database-name', database], { env: { ...mode.env, ROBOTS_AUDIT_LOG_LEVEL: 'silent' } });
  if (run.code !== 0) throw new Error(`demo (${mode.name}) failed: ${run.stderr}${run.stdout.slice(-2000)}`);
  const url = new URL(baseUrl);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rows } = await client.query<AlertRow>(
      `with hosts as (${HOSTS_SQL})
       select h.host, to_char(r.run_at at time zone 'UTC', 'YYYY-MM-DD') as night, a.kind, a.severity::text as severity,
              coalesce((a.details ->> 'flipsTotal')::int, 0) as flips
         from alerts a join hosts h on h.id = a.site_id join audit_runs r on r.id = a.run_id
        where r.run_at >= '2025-07-01'
        order by h.host, r.run_at, a.kind`,
    );
    return rows;
  } finally {
    await client.end();
  }
}

async function dropDatabases(baseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    for (const mode of MODES) await client.query(`drop database if exists demo_replay_${mode.name} with (force)`);
  } finally {
    await client.end();
  }
}

const key = (a: AlertRow) => `${a.host} ${a.night} ${a.kind}`;
const describe = (a: AlertRow) => `\`${a.kind}\` (${a.severity}${a.flips > 0 ? `, ${a.flips} ${a.flips === 1 ? 'flip' : 'flips'}` : ''})`;

/** One line per host and night: its alerts. */
function byHostAndNight(alerts: readonly AlertRow[]): string[] {
  const groups = new Map<string, AlertRow[]>();
  for (const a of alerts) groups.set(`${a.host}, ${a.night}`, [...(groups.get(`${a.host}, ${a.night}`) ?? []), a]);
  return [...groups.entries()].map(([where, rows]) => `- ${where}: ${rows.map(describe).join(', ')}`);
}

async function main(): Promise<void> {
  const write = !process.argv.includes('--no-write');
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) throw new Error('DATABASE_URL is not set');
  const results: Record<string, AlertRow[]> = {};
  try {
    for (const mode of MODES) {
      const started = Date.now();
      results[mode.name] = await replay(mode, baseUrl);
      console.log(`${mode.name}: ${results[mode.name]!.length} alerts (${Math.round((Date.now() - started) / 1000)} s)`);
    }
  } finally {
    await dropDatabases(baseUrl);
  }
  const before = results.before!;
  const after = results.after!;
  const hosts = [...new Set([...before, ...after].map((a) => a.host))].sort();
  const count = (rows: AlertRow[], host: string) => rows.filter((a) => a.host === host).length;
  const afterKeys = new Set(after.map(key));
  const gone = before.filter((a) => !afterKeys.has(key(a)));
  // The lasting changes: every alert of 29 August 2025 (GPTBot, ClaudeBot, PerplexityBot blocks).
  const lasting = before.filter((a) => a.night === '2025-08-29');
  const lastingKept = lasting.filter((a) => afterKeys.has(key(a)) && after.find((b) => key(b) === key(a))!.flips === a.flips);

  const lines = [
    '<!-- bench:replay-histories:start -->',
    '## Replaying the real histories: alerts per host (issue 18)',
    '',
    `\`npm run bench:replay\` (test/bench/replay-histories.ts; its header gives the method), ${new Date().toISOString().slice(0, 10)}: the demo's 21 recorded hosts (29 July to 30 August 2025, one night a day) and its two hosts of issue 18, replayed by \`robots-audit demo\` through the real pipeline, ${MODES.map((m) => `${m.name}: ${m.label}`).join('; ')}. Alerts from 1 July 2025.`,
    '',
    '| host | alerts before | alerts after | after: flapping alerts |',
    '|---|---:|---:|---:|',
    ...hosts.map((h) => `| ${h} | ${count(before, h)} | ${count(after, h)} | ${after.filter((a) => a.host === h && a.kind.startsWith('flapping_')).length} |`),
    `| **all** | **${before.length}** | **${after.length}** | **${after.filter((a) => a.kind.startsWith('flapping_')).length}** |`,
    '',
    `Alerts the defaults no longer raise (${gone.length}), by host and night: ${gone.length === 0 ? 'none.' : ''}`,
    '',
    ...byHostAndNight(gone),
    '',
    `Lasting changes: the ${lasting.length} alerts of 29 August 2025 are ${lastingKept.length === lasting.length ? 'all' : `NOT all (${lastingKept.length} of ${lasting.length})`} raised after as before, each with the same number of flips:`,
    '',
    ...lasting.map((a) => `- ${a.host}: ${describe(a)}${lastingKept.includes(a) ? '' : ' **(missing after)**'}`),
    '<!-- bench:replay-histories:end -->',
  ];
  const text = lines.join('\n');
  console.log(text);
  if (write) writeBenchSection('replay-histories', text);
  if (lastingKept.length !== lasting.length) process.exitCode = 1;
}

await main();
