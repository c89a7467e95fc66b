/**
 * A year of nights: a database of `--sites` sites x `--nights` nights (100,000 x 365 by default:
 * 36.5 million nights), generated in Postgres as the pipeline would have filled it, then the
 * pipeline's own lookups and the queries of docs/sql-reporting.md run on it with EXPLAIN
 * (ANALYZE, BUFFERS). Not a test: it prints each plan's shape and timing, and rewrites the "year"
 * section of docs/benchmarks.md and the timings of docs/sql-reporting.md.
 *
 *   npm run bench:year -- [--sites 100000] [--nights 365] [--rebuild] [--no-write]
 *
 * The database (`robots_audit_year_<sites>x<nights>` on the DATABASE_URL server) is kept
 * between runs; `--rebuild` makes it again. What it holds, per site: a robots.txt that changes
 * two or three times a year (every 50th site answers 404 every night instead), a 503 on 1% of
 * its nights (after two retried attempts), its root tracked for the ten default agents (and
 * every 5th site a second URL), its verdict spans (one per stretch of unchanged verdict), a
 * change row per version, flips and alerts where GPTBot's verdict at the root changes. And, so
 * that every reporting question has answers to find, a few sites in a thousand each: a ten-night
 * 5xx streak, an outage of the last 40 nights (the 30-day fallback after 30 of them), a body over
 * 500 KiB, a file that refuses Bingbot, one that refuses every AI training crawler; one in a
 * hundred bodies with a lint error, one site in two hundred redirected to another host. The
 * bodies are indexed (their rules and root access per crawler) by the product's own code, as
 * `db migrate` does, and the tables vacuumed as autovacuum would have.
 */
import os from 'node:os';
import pg from 'pg';
import { config } from '../../src/config/env.js';
import { indexStoredBodies } from '../../src/services/body-index.service.js';
import { prepareDatabase } from '../../src/services/prepare-database.js';
import { readSqlDoc, runPsql, SQL_DOC } from '../helpers/sql-doc.js';
import { databaseUrl } from '../helpers/test-db.js';
import { sectionMarkers, writeBenchSection } from './bench-doc.js';

interface Args {
  sites: number;
  nights: number;
  rebuild: boolean;
  write: boolean;
}

function args(): Args {
  const argv = process.argv.slice(2);
  const num = (name: string, def: number) => {
    const i = argv.indexOf(name);
    const n = i === -1 ? def : Number(argv[i + 1]);
    if (!Number.isInteger(n) || n < 10) throw new Error(`${name} needs a whole number ≥ 10`);
    return n;
  };
  return { sites: num('--sites', 100_000), nights: num('--nights', 365), rebuild: argv.includes('--rebuild'), write: !argv.includes('--no-write') };
}

const FIRST_NIGHT = '2025-01-01T03:00:00Z';

/** The fill, one statement at a time, with :sites and :nights written in; the nights one run at a time. */
function fill(sites: number, nights: number): string[] {
  const v = (sql: string) => sql.replaceAll(':sites', String(sites)).replaceAll(':nights', String(nights));
  // The odd cases (see the header), by site number: none of them is a 404 site (s % 50 = 0) or
  // blocks GPTBot (s % 4 = 0), so each stays what it is meant to show.
  const streakFrom = Math.max(2, Math.floor(nights * 0.3)); // s % 1000 = 7: 5xx for ten nights
  const outageFrom = Math.max(2, nights - 39); // s % 1000 = 9: 5xx to the end; the fallback (D-3) after 30 days
  const fallbackFrom = outageFrom + 31;
  const night = (n: number) =>
    `insert into snapshots (run_at, fetched_at, unreachable_since, site_id, run_id, duration_ms, body_id, response_id, rules_run_id,
                            cache_lifetime_seconds, full_size, outcome, policy, status, attempts, truncated, policy_reason)
     select r.run_at, r.run_at + (s.s % 600) * interval '1 second',
            case when d.down then timestamptz '${FIRST_NIGHT}' + (d.down_from - 1) * interval '1 day' end, s.s, r.id, 80 + (s.s * r.id) % 700,
            case when not d.down then vb.body_id end, s.s, case when d.fallback then ${outageFrom - 1} end, 86400,
            case when d.cut then 600000 end,
            case when s.s % 50 = 0 then 'unavailable'::fetch_outcome when d.down then 'server_error' else 'ok' end,
            case when s.s % 50 = 0 then 'allow_all'::effective_policy when d.fallback then 'rules' when d.down then 'disallow_all' else 'rules' end,
            case when s.s % 50 = 0 then 404 when d.down then 503 else 200 end, case when d.down then 3 else 1 end, d.cut,
            case when s.s % 50 = 0 then 'R-12' when d.fallback then 'D-3' when d.down then 'R-13' else 'R-10' end
     from audit_runs r
     cross join generate_series(1, ${sites}) as s(s)
     cross join lateral (
       select case s.s % 1000 when 7 then r.id between ${streakFrom} and ${streakFrom + 9}
                              when 9 then r.id >= ${outageFrom}
                              else (s.s * 31 + r.id * 17) % 100 = 0 and s.s % 50 <> 0 end as down,
              case s.s % 1000 when 7 then ${streakFrom} when 9 then ${outageFrom} else r.id end as down_from,
              s.s % 1000 = 9 and r.id >= ${fallbackFrom} as fallback
     ) d0
     cross join lateral (select d0.*, s.s % 1000 = 11 and not d0.down as cut) d
     left join version_bodies vb on vb.s = s.s and vb.c <= r.id and (vb.until is null or vb.until > r.id)
     where r.id = ${n}`;
  // A version's file: 12 + v disallow lines for `*`; from version 2 a GPTBot group on every 4th
  // site; a Bingbot group on s % 500 = 19; every AI training crawler of the catalogue refused on
  // s % 1000 = 21, with a Content-Signal line.
  const body = `create function pg_temp.year_body(s integer, v integer) returns text language sql stable as $$
    select 'User-agent: *' || chr(10) || (select string_agg('Disallow: /section-' || s || '-' || r || '-v' || v || '/', chr(10)) from generate_series(1, 12 + v) r)
           || case when v >= 2 and s % 4 = 0 then chr(10) || 'User-agent: GPTBot' || chr(10) || 'Disallow: /' else '' end
           || case when s % 500 = 19 then chr(10) || 'User-agent: Bingbot' || chr(10) || 'Disallow: /' else '' end
           || case when s % 1000 = 21 then chr(10) || (select string_agg('User-agent: ' || token, chr(10) order by id) from user_agents where category = 'ai-training')
                   || chr(10) || 'Disallow: /' || chr(10) || 'Content-Signal: ai-train=no, search=yes' else '' end
  $$`;
  return [
    // The bulk load skips foreign-key triggers (everything it writes references rows it wrote first).
    `set session_replication_role = replica`,
    `insert into portfolios (name) select 'client-' || p from generate_series(1, 20) p`,
    `insert into sites (id, origin, created_at) select s, 'https://www.site-' || s || '.example', '${FIRST_NIGHT}' from generate_series(1, :sites) s`,
    `select setval(pg_get_serial_sequence('sites', 'id'), :sites)`,
    `insert into portfolio_sites (portfolio_id, site_id) select 1 + s % 20, s from generate_series(1, :sites) s`,
    `insert into tracked_urls (site_id, url, path, is_root) select s, 'https://www.site-' || s || '.example/', '/', true from generate_series(1, :sites) s`,
    `insert into tracked_urls (site_id, url, path, is_root) select s, 'https://www.site-' || s || '.example/products/a', '/products/a', false from generate_series(5, :sites, 5) s`,
    `insert into audit_runs (id, run_key, trigger, run_at, started_at, finished_at, status, sites_total, sites_done, counts)
     select n, 'nightly-' || to_char(timestamptz '${FIRST_NIGHT}' + (n - 1) * interval '1 day', 'YYYY-MM-DD'), 'scheduled',
            timestamptz '${FIRST_NIGHT}' + (n - 1) * interval '1 day', timestamptz '${FIRST_NIGHT}' + (n - 1) * interval '1 day',
            timestamptz '${FIRST_NIGHT}' + (n - 1) * interval '1 day' + interval '2 minutes', 'completed', :sites, :sites,
            jsonb_build_object('outcome', jsonb_build_object('ok', :sites - :sites / 50 - :sites / 100, 'unavailable', :sites / 50, 'server_error', :sites / 100))
     from generate_series(1, :nights) n`,
    `select setval(pg_get_serial_sequence('audit_runs', 'id'), :nights)`,
    // Versions: a site's file changes on its change nights c1 < c2 (and c3 for every 3rd site).
    `create temporary table versions as
     select s, v, c from (
       select s, 0 as v, 1 as c from generate_series(1, :sites) s where s % 50 <> 0
       union all select s, 1, 2 + (s::bigint * 7919) % greatest(1, :nights / 2 - 3) from generate_series(1, :sites) s where s % 50 <> 0
       union all select s, 2, :nights / 2 + 1 + (s::bigint * 104729) % greatest(1, :nights / 2 - 6) from generate_series(1, :sites) s where s % 50 <> 0
       union all select s, 3, :nights - 4 + s % 5 from generate_series(3, :sites, 3) s where s % 50 <> 0
     ) x
     -- no new file while a site is down (its outage's nights keep no body)
     where not (s % 1000 = 7 and c between ${streakFrom} and ${streakFrom + 10}) and not (s % 1000 = 9 and c >= ${outageFrom})`,
    `create index on versions (s, v)`,
    body,
    `insert into bodies (sha256, content, size, rules, groups, sitemaps, lint_errors)
     select sha256(convert_to(b.text, 'UTF8')), convert_to(b.text, 'UTF8'), octet_length(b.text), 12 + v, 2, 1, case when s % 100 = 13 then 1 else 0 end
     from (select s, v, pg_temp.year_body(s, v) as text from versions) b`,
    `create temporary table version_bodies as
     select x.s, x.v, x.c, lead(x.c) over (partition by x.s order by x.c) as until, b.id as body_id
     from versions x join bodies b on b.sha256 = sha256(convert_to(pg_temp.year_body(x.s, x.v), 'UTF8'))`,
    `create index on version_bodies (s, c)`,
    // One site in 200 redirects www to the bare domain, another host (R-11).
    `insert into responses (key, final_url, hops, remote_address, content_type, cache_control, etag)
     select substring(sha256(convert_to('site-' || s, 'UTF8')) from 1 for 16),
            case when s % 200 = 17 then 'https://site-' || s || '.example/robots.txt' end,
            case when s % 200 = 17 then jsonb_build_array(jsonb_build_object('url', 'https://www.site-' || s || '.example/robots.txt', 'status', 301,
                                                                             'location', 'https://site-' || s || '.example/robots.txt')) end,
            '203.0.113.' || (s % 250), 'text/plain', 'max-age=86400', '"' || s || '"'
     from generate_series(1, :sites) s`,
    // The nights, without the primary key while they load (it is built once, afterwards).
    `alter table snapshots drop constraint snapshots_pkey`,
    `drop index snapshots_run_brin`,
    ...Array.from({ length: nights }, (_, i) => night(i + 1)),
    `alter table snapshots add constraint snapshots_pkey primary key (site_id, run_at, run_id)`,
    `create index snapshots_run_brin on snapshots using brin (run_id)`,
    `insert into failed_attempts (started_at, site_id, run_id, duration_ms, response_id, outcome, attempt, status)
     select n.run_at - (3 - a) * interval '30 seconds', n.site_id, n.run_id, 90, n.response_id, 'server_error', a, 503
     from snapshots n cross join generate_series(1, 2) a where n.outcome = 'server_error'`,
    `insert into snapshot_changes (run_id, site_id, previous_run_id, outcome_from, outcome_to, policy_from, policy_to, kinds, text_diff)
     select c, s, case when c > 1 then c - 1 end, case when c > 1 then 'ok'::fetch_outcome end, 'ok', case when c > 1 then 'rules'::effective_policy end, 'rules',
            case when c = 1 then '{first_seen}'::text[] else '{raw,rules}' end, case when c > 1 then '-Disallow: /old/' || chr(10) || '+Disallow: /new/' end
     from versions`,
    // The outages: their start and end, the fallback's start.
    `insert into snapshot_changes (run_id, site_id, previous_run_id, outcome_from, outcome_to, policy_from, policy_to, kinds)
     select e.run_id, s, e.run_id - 1, e.outcome_from, e.outcome_to, e.policy_from, e.policy_to, e.kinds
     from generate_series(1, :sites) s
     cross join lateral (values
       (${streakFrom}, 'ok'::fetch_outcome, 'server_error'::fetch_outcome, 'rules'::effective_policy, 'disallow_all'::effective_policy, '{outcome,policy}'::text[], 7),
       (${streakFrom + 10}, 'server_error', 'ok', 'disallow_all', 'rules', '{outcome,policy}', 7),
       (${outageFrom}, 'ok', 'server_error', 'rules', 'disallow_all', '{outcome,policy}', 9),
       (${fallbackFrom}, 'server_error', 'server_error', 'disallow_all', 'rules', '{policy,fallback_started}', 9)
     ) as e(run_id, outcome_from, outcome_to, policy_from, policy_to, kinds, kind_of)
     where s % 1000 = e.kind_of and e.run_id <= :nights`,
    // Verdict spans: each tracked URL x default agent, one span per stretch of the same verdict;
    // GPTBot at the root of every 4th site is disallowed from its version 2 on.
    `insert into verdicts (valid_from, valid_to, tracked_url_id, user_agent_id, from_run_id, to_run_id, rule_line, allowed)
     -- Bingbot and the AI training crawlers refused at the root all year where the file says so.
     select timestamptz '${FIRST_NIGHT}', case when gpt_blocked then timestamptz '${FIRST_NIGHT}' + (c2 - 1) * interval '1 day' end,
            t.id, a.id, 1, case when gpt_blocked then c2 end, case when refused then 15 when t.is_root then null else 2 end, not refused
     from tracked_urls t cross join user_agents a
     cross join lateral (select a.token = 'GPTBot' and t.is_root and t.site_id % 4 = 0 and t.site_id % 50 <> 0 as gpt_blocked,
                                t.is_root and ((a.token = 'Bingbot' and t.site_id % 500 = 19) or (a.category = 'ai-training' and t.site_id % 1000 = 21)) as refused,
                                (select c from versions v where v.s = t.site_id and v.v = 2) as c2) g
     where a.is_default`,
    `insert into verdicts (valid_from, tracked_url_id, user_agent_id, from_run_id, rule_line, allowed)
     select timestamptz '${FIRST_NIGHT}' + (v.c - 1) * interval '1 day', t.id, a.id, v.c, 15, false
     from tracked_urls t join user_agents a on a.token = 'GPTBot' join versions v on v.s = t.site_id and v.v = 2
     where t.is_root and t.site_id % 4 = 0`,
    `insert into verdict_flips (run_id, site_id, tracked_url_id, user_agent_id, from_allowed, to_allowed, cause, rule_after)
     select v.from_run_id, t.site_id, v.tracked_url_id, v.user_agent_id, true, false, 'rules_changed',
            '{"line":15,"kind":"disallow","value":"/","pattern":"/"}'::jsonb
     from verdicts v join tracked_urls t on t.id = v.tracked_url_id where v.from_run_id > 1`,
    `insert into alerts (dedupe_key, run_id, site_id, severity, kind, title, details)
     select 'r' || c || ':s' || s || ':' || k, c, s, case k when 'ai_access_changed' then 'warning'::alert_severity else 'warning' end, k, k || ' on site ' || s, '{}'
     from versions cross join unnest(array['rules_changed', 'ai_access_changed']) k where c > 1 and (k = 'rules_changed' or (v = 2 and s % 4 = 0))`,
    `insert into alerts (dedupe_key, run_id, site_id, severity, kind, title, details)
     select 'r' || c.run_id || ':s' || c.site_id || ':' || k.kind, c.run_id, c.site_id, k.severity, k.kind, k.kind || ' on site ' || c.site_id, '{}'
     from snapshot_changes c
     cross join lateral (select case when 'fallback_started' = any (c.kinds) then 'fallback_started'
                                     when c.outcome_to = 'server_error' then 'site_unreachable' else 'site_recovered' end as kind) k0
     cross join lateral (select k0.kind, case k0.kind when 'site_unreachable' then 'critical'::alert_severity else 'info' end as severity) k
     where 'outcome' = any (c.kinds) or 'fallback_started' = any (c.kinds)`,
    // Each site's state after the last night; the last good night found as the pipeline keeps it.
    `insert into site_state (site_id, run_id, run_at, outcome, status, policy, policy_reason, unreachable_since, rules_body_id, rules_run_id,
                             last_good_run_id, last_good_run_at, last_good_body_id, last_good_sha256, last_reachable_run_id, last_reachable_outcome,
                             response_id, response_key, eval_key, failed_nights, last_change_run_id)
     select n.site_id, n.run_id, n.run_at, n.outcome, n.status, n.policy, n.policy_reason, n.unreachable_since,
            case when n.policy = 'rules' then coalesce(n.body_id, g.body_id) end, case when n.policy = 'rules' then coalesce(n.rules_run_id, n.run_id) end,
            g.run_id, g.run_at, g.body_id, b.sha256,
            case when n.outcome = 'server_error' then g.run_id else n.run_id end, case when n.outcome = 'server_error' then g.outcome else n.outcome end,
            n.response_id, x.key, '\\x00000000000000000000000000000000',
            case when n.outcome = 'server_error' then (extract(epoch from n.run_at - n.unreachable_since) / 86400)::integer + 1 else 0 end,
            (select max(c.run_id) from snapshot_changes c where c.site_id = n.site_id)
     from snapshots n
     left join lateral (select o.run_id, o.run_at, o.body_id, o.outcome from snapshots o
                        where o.site_id = n.site_id and o.outcome = 'ok' order by o.run_at desc limit 1) g on true
     left join bodies b on b.id = g.body_id
     join responses x on x.id = n.response_id
     where n.run_id = :nights`,
    `set session_replication_role = origin`,
  ].map(v);
}

interface Probe {
  label: string;
  sql: string;
  params?: unknown[];
  /** Run inside a transaction that is rolled back (writes). */
  write?: boolean;
}

function probes(sites: number, nights: number): Probe[] {
  const batch = Array.from({ length: 100 }, (_, i) => 1 + ((i * 997) % sites));
  const site = Math.floor(sites / 2);
  const lastRun = nights;
  const next = nights + 1;
  return [
    {
      label: 'plan a batch of 100 sites (night stored? attempts, state)',
      sql: `select ids.id, s.origin,
              exists (select 1 from snapshots n where n.site_id = ids.id and n.run_at = $2 and n.run_id = $3) as stored,
              (select count(*) from failed_attempts f where f.site_id = ids.id and f.run_id = $3) as failed, st.*
            from unnest($1::int[]) as ids(id) left join sites s on s.id = ids.id left join site_state st on st.site_id = ids.id`,
      params: [batch, new Date(Date.parse(FIRST_NIGHT) + (next - 1) * 86_400_000), next],
    },
    { label: 'their tracked URLs', sql: 'select site_id, id, url, is_root, extra_agents from tracked_urls where site_id = any($1::int[]) order by site_id, is_root desc, id', params: [batch] },
    {
      label: 'the verdict spans in force of a site (evaluation)',
      sql: 'select * from verdicts where tracked_url_id = any($1::int[]) and to_run_id is null',
      params: [[site, sites + Math.floor(site / 5)]],
    },
    {
      label: 'store 100 nights (the insert, its conflict check)',
      write: true,
      sql: `insert into snapshots (run_at, fetched_at, site_id, run_id, duration_ms, outcome, policy, attempts, policy_reason)
            select $2, $2, s, $3, 100, 'ok', 'rules', 1, 'R-10' from unnest($1::int[]) s on conflict do nothing`,
      params: [batch, new Date(Date.parse(FIRST_NIGHT) + (next - 1) * 86_400_000), lastRun],
    },
    {
      label: 'move 100 states on (optimistic update)',
      write: true,
      sql: `update site_state st set run_id = $2, failed_nights = 0 from unnest($1::int[]) v(site_id) where st.site_id = v.site_id and st.run_id = $3`,
      params: [batch, next, lastRun],
    },
    {
      label: 'a night replayed mid-year: the nights around it',
      sql: `with before as (select * from snapshots where site_id = $1 and (run_at, run_id) < ($2, $3))
            (select 'previous', run_id from before order by run_at desc, run_id desc limit 1)
            union all (select 'good', run_id from before where outcome = 'ok' order by run_at desc, run_id desc limit 1)
            union all (select 'next', run_id from snapshots where site_id = $1 and (run_at, run_id) > ($2, $3) order by run_at, run_id limit 1)`,
      params: [site, new Date(Date.parse(FIRST_NIGHT) + 180 * 86_400_000), 100_000],
    },
    {
      label: "reconcile: a run's sites without their night",
      sql: `select m.id from generate_series(1, $1::int) as m(id)
            where not exists (select 1 from snapshots n where n.site_id = m.id and n.run_at = $2 and n.run_id = $3)`,
      params: [sites, new Date(Date.parse(FIRST_NIGHT) + (lastRun - 1) * 86_400_000), lastRun],
    },
  ];
}

interface Measured {
  label: string;
  ms: number;
  rows: number;
  nodes: string;
  buffers: number;
  /** The indexes the plan reads, in plan order. */
  indexes: string[];
}

/** The plan's node types, outermost first, e.g. "Nested Loop > Index Scan on snapshots_pkey". */
function shape(plan: Record<string, unknown>): string[] {
  const here = `${String(plan['Node Type'])}${plan['Index Name'] ? ` (${String(plan['Index Name'])})` : plan['Relation Name'] ? ` (${String(plan['Relation Name'])})` : ''}`;
  return [here, ...((plan.Plans as Record<string, unknown>[] | undefined) ?? []).flatMap(shape)];
}

function indexesOf(plan: Record<string, unknown>): string[] {
  const here = plan['Index Name'] ? [String(plan['Index Name'])] : [];
  return [...here, ...((plan.Plans as Record<string, unknown>[] | undefined) ?? []).flatMap(indexesOf)];
}

function measured(label: string, plan: Record<string, unknown>, ms: number): Measured {
  const buffers = Number(plan['Shared Hit Blocks'] ?? 0) + Number(plan['Shared Read Blocks'] ?? 0);
  const nodes = [...new Set(shape(plan))].slice(0, 6).join(' › ');
  return { label, ms, rows: Number(plan['Actual Rows']), nodes, buffers, indexes: [...new Set(indexesOf(plan))] };
}

async function measure(client: pg.Client, probe: Probe): Promise<Measured> {
  if (probe.write) await client.query('begin');
  try {
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: Record<string, unknown>; 'Execution Time': number }] }>(
      `explain (analyze, buffers, format json) ${probe.sql}`,
      probe.params,
    );
    const [{ Plan: plan, 'Execution Time': ms }] = rows[0]!['QUERY PLAN'];
    return measured(probe.label, plan, ms);
  } finally {
    if (probe.write) await client.query('rollback');
  }
}

/**
 * Values of the doc's psql variables on this database; variables not named here (agent tokens)
 * keep the doc's examples. The site: one whose file changed three times and blocks GPTBot.
 */
function docVariables(sites: number, nights: number): Record<string, string> {
  let site = Math.floor(sites / 2);
  while (site % 12 !== 0 || site % 50 === 0) site++;
  return {
    origin: `https://www.site-${site}.example`,
    portfolio: 'client-5',
    night: new Date(Date.parse(FIRST_NIGHT) + Math.floor(nights * 0.75) * 86_400_000).toISOString(),
  };
}

/** A question of docs/sql-reporting.md, as a reader runs it: through psql, with its variables. */
async function measureQuestion(url: string, heading: string, sql: string, variables: Record<string, string>): Promise<Measured> {
  const { stdout } = await runPsql(url, `explain (analyze, buffers, format json)\n${sql}`, variables, { csv: false });
  const [{ Plan: plan, 'Execution Time': ms }] = JSON.parse(stdout) as [{ Plan: Record<string, unknown>; 'Execution Time': number }];
  return measured(heading, plan, ms);
}

async function main(): Promise<void> {
  const { sites, nights, rebuild, write } = args();
  const name = `robots_audit_year_${sites}x${nights}`;
  const admin = new pg.Client({ connectionString: config().DATABASE_URL });
  await admin.connect();
  const exists = (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  const url = databaseUrl(name);
  let buildSeconds: number | null = null;
  if (!exists || rebuild) {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
    // The migrations and the crawler catalogue, as `db migrate` leaves a new database.
    await prepareDatabase(url);
    const started = performance.now();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const timed = async (what: string, run: () => Promise<unknown>) => {
      const t = performance.now();
      await run();
      console.error(`${((performance.now() - t) / 1000).toFixed(1).padStart(7)} s  ${what.replace(/\s+/g, ' ').slice(0, 90)}`);
    };
    for (const statement of fill(sites, nights)) await timed(statement, () => client.query(statement));
    // Each body's rules and root access per crawler, by the code `db migrate` runs on old bodies.
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    await timed('index the bodies (indexStoredBodies)', () => indexStoredBodies(pool));
    await pool.end();
    await timed('vacuum analyze', () => client.query('vacuum analyze'));
    await client.end();
    buildSeconds = (performance.now() - started) / 1000;
  }
  await admin.end();

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const sizes = await client.query<{ table: string; rows: string; bytes: string }>(
    `select c.relname as table, c.reltuples::bigint as rows, pg_total_relation_size(c.oid) as bytes from pg_class c
     join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind = 'r' order by pg_total_relation_size(c.oid) desc`,
  );
  const pipeline: Measured[] = [];
  for (const probe of probes(sites, nights)) {
    await measure(client, probe); // warm the cache: the figures below are the second run
    pipeline.push(await measure(client, probe));
  }
  const variables = docVariables(sites, nights);
  const reports: Measured[] = [];
  for (const q of readSqlDoc().questions) {
    const values = { ...q.variables, ...Object.fromEntries(Object.entries(variables).filter(([k]) => k in q.variables)) };
    // A warm-up run, then the median of three: the machine is shared, one run can be unlucky.
    await measureQuestion(url, q.heading, q.sql, values);
    const runs: Measured[] = [];
    for (let i = 0; i < 3; i++) runs.push(await measureQuestion(url, q.heading, q.sql, values));
    reports.push(runs.sort((a, b) => a.ms - b.ms)[1]!);
  }
  await client.end();

  const gb = (b: number) => `${(b / 2 ** 30).toFixed(2)} GB`;
  const total = sizes.rows.reduce((n, r) => n + Number(r.bytes), 0);
  const table = (list: Measured[]) => [
    '| query | ms | rows | buffers | plan (outermost first) |',
    '|---|---:|---:|---:|---|',
    ...list.map((m) => `| ${m.label} | ${m.ms.toFixed(1)} | ${m.rows.toLocaleString('en-US')} | ${m.buffers.toLocaleString('en-US')} | ${m.nodes} |`),
  ];
  const cpus = os.cpus();
  const machine = `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores (shared), PostgreSQL ${(await pgVersion(url)) ?? '?'}, ${new Date().toISOString().slice(0, 10)}`;
  const command = `\`npm run bench:year -- --sites ${sites} --nights ${nights}\``;
  const year = sectionMarkers('year');
  const section = [
    year.start,
    '## A year of nights',
    '',
    `${command} on ${machine}.`,
    '',
    `${sites.toLocaleString('en-US')} sites x ${nights} nights, generated as the pipeline fills it${buildSeconds === null ? '' : ` (in ${(buildSeconds / 60).toFixed(1)} minutes)`}: ${gb(total)} in all. ` +
      'What a site holds, and the few sites in a thousand that give each reporting question answers to find: the header of `test/bench/year.ts`.',
    '',
    '| table | rows | size (with indexes) |',
    '|---|---:|---:|',
    ...sizes.rows.filter((r) => Number(r.bytes) > 1 << 20).map((r) => `| ${r.table} | ${Number(r.rows).toLocaleString('en-US')} | ${gb(Number(r.bytes))} |`),
    '',
    "The pipeline's own lookups (EXPLAIN ANALYZE, second run; writes rolled back):",
    '',
    ...table(pipeline),
    '',
    `The reporting queries, timed in the same run: docs/sql-reporting.md, [Timings](sql-reporting.md#timings).`,
    year.end,
  ].join('\n');
  const doc = sectionMarkers('sql-reporting');
  const timings = [
    doc.start,
    `Each question's query as written above, run by ${command} through psql on its database: ${sites.toLocaleString('en-US')} sites x ${nights} nights ` +
      `(${gb(total)}; what it holds: the header of \`test/bench/year.ts\`), on ${machine}. EXPLAIN (ANALYZE, BUFFERS): the median of three runs ` +
      `after a first one (a warm cache, as on a server that reports daily); buffers are 8 KiB pages read or found in memory. Parameters: ` +
      `${Object.entries(variables).map(([k, v]) => `\`${k}=${v}\``).join(', ')}; agents as in the examples.`,
    '',
    '| question | ms | rows | buffers | indexes read |',
    '|---|---:|---:|---:|---|',
    ...reports.map((m) => `| ${m.label} | ${m.ms.toFixed(1)} | ${m.rows.toLocaleString('en-US')} | ${m.buffers.toLocaleString('en-US')} | ${m.indexes.map((i) => `\`${i}\``).join(', ') || '(none)'} |`),
    doc.end,
  ].join('\n');
  console.log(section);
  console.log(timings);
  if (write) {
    writeBenchSection('year', section);
    writeBenchSection('sql-reporting', timings, SQL_DOC);
  }
}

async function pgVersion(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ server_version: string }>('show server_version')).rows[0]?.server_version.split(' ')[0] ?? null;
  } finally {
    await client.end();
  }
}

await main();
