/**
 * Replaying nights for the nightly-pipeline tests: set what a site serves tonight, run
 * `audit --wait --at <night>` through the CLI, and read back what the night wrote, with SQL.
 */
import { isTransientDbError } from '../../src/db/db-errors.js';
import { until } from './poll.js';
import { PORTABILITY_VERSION } from '../../src/robots/profiles/portability.js';
import { expect } from 'vitest';
import type { FixtureReply } from '../fixtures/web/index.js';
import type { Pipeline } from './pipeline.js';

export const DAY_MS = 24 * 3600 * 1000;

/** The night `days` after `start`, as the ISO string `audit --at` takes. */
export function nightAt(start: string, days: number): string {
  return new Date(new Date(start).getTime() + days * DAY_MS).toISOString();
}

/** `<name>.test`: the fixture web host behind `p.origin(name)`. */
export const hostOf = (name: string) => `${name}.test`;

/** Rows of a query on the test file's database. */
export async function rows<T extends Record<string, unknown> = Record<string, unknown>>(p: Pipeline, text: string, params: unknown[] = []): Promise<T[]> {
  return (await p.db.pool.query<T>(text, params)).rows;
}

/** Adds sites (by fixture name) to a portfolio, or to none; returns their ids by name. */
export async function addSites<N extends string>(p: Pipeline, names: N[], portfolio?: string): Promise<Record<N, number>> {
  const added = await p.cli(['sites', 'add', ...names.map((n) => p.origin(n)), ...(portfolio ? ['--portfolio', portfolio] : [])]);
  expect(added.code, added.stderr).toBe(0);
  const found = await rows<{ id: number; origin: string }>(p, 'select id, origin from sites where origin = any($1)', [names.map((n) => p.origin(n))]);
  return Object.fromEntries(names.map((n) => [n, found.find((r) => r.origin === p.origin(n))!.id])) as Record<N, number>;
}

export async function track(p: Pipeline, name: string, paths: string[]): Promise<void> {
  const tracked = await p.cli(['track', p.origin(name), ...paths]);
  expect(tracked.code, tracked.stderr).toBe(0);
}

export interface Night {
  runId: number;
  runKey: string;
  stdout: string;
}

/**
 * One night: each site (by fixture name) serves its reply (a string is a 200 text body), then
 * `audit --wait --at <at>` runs (limited to `portfolio` when given) and must complete.
 */
export async function replayNight(
  p: Pipeline,
  at: string,
  serve: Record<string, string | FixtureReply>,
  options: { portfolio?: string } = {},
): Promise<Night> {
  for (const [name, reply] of Object.entries(serve)) p.web.set(hostOf(name), typeof reply === 'string' ? { status: 200, body: reply } : reply);
  const run = await p.cli(['audit', '--wait', '--at', at, ...(options.portfolio ? ['--portfolio', options.portfolio] : [])]);
  expect(run.code, `audit --at ${at}\n${run.stderr}${run.stdout}`).toBe(0);
  const runKey = `at-${new Date(at).toISOString()}${options.portfolio ? `-${options.portfolio}` : ''}`;
  const [found] = await rows<{ id: number; status: string }>(p, 'select id, status from audit_runs where run_key = $1', [runKey]);
  expect(found?.status).toBe('completed');
  return { runId: found!.id, runKey, stdout: run.stdout };
}

/**
 * Polls `probe` until it returns true, failing after `timeoutMs`. A probe that meets a transient
 * database or Redis failure (a pooled connection the test itself terminated, found dead only when
 * used: the flake of postgres-restart.int.test.ts, issue 17) has not seen the state yet: it is
 * asked again, and the last such error is named if time runs out. Any other error fails at once.
 */
export function eventually(probe: () => Promise<boolean>, what: string, timeoutMs = 15_000, everyMs = 50): Promise<void> {
  return until(what, probe, timeoutMs, { everyMs, retryOn: isTransientDbError });
}

/** Waits until every delivery row has left `pending` and the alerts queue is idle. */
export async function settleDeliveries(p: Pipeline, timeoutMs = 15_000): Promise<void> {
  await eventually(
    async () => {
      const [pending] = await rows<{ n: string }>(p, "select count(*) as n from alert_deliveries where status = 'pending'");
      if (Number(pending!.n) > 0) return false;
      const counts = await p.rt.queues.alerts.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      return Object.values(counts).every((n) => n === 0);
    },
    'alert deliveries to settle',
    timeoutMs,
  );
}

/** The tables a night writes to, with their row counts. */
export const NIGHT_TABLES = [
  'audit_runs',
  'snapshots',
  'failed_attempts',
  'site_state',
  'bodies',
  'responses',
  'snapshot_changes',
  'verdicts',
  'verdict_flips',
  'alerts',
  'alert_deliveries',
] as const;

export async function tableCounts(p: Pipeline): Promise<Record<(typeof NIGHT_TABLES)[number], number>> {
  const out = {} as Record<(typeof NIGHT_TABLES)[number], number>;
  for (const table of NIGHT_TABLES) {
    const [r] = await rows<{ n: string }>(p, `select count(*) as n from ${table}`);
    out[table] = Number(r!.n);
  }
  return out;
}

export interface FlipRow {
  url: string;
  token: string;
  from_allowed: boolean | null;
  to_allowed: boolean;
  cause: string;
  rule_before: { line: number; kind: string; value: string; pattern: string } | null;
  rule_after: { line: number; kind: string; value: string; pattern: string } | null;
}

/** The verdict flips of a run for one site, by URL then agent token. */
export function flipsOf(p: Pipeline, runId: number, siteId: number): Promise<FlipRow[]> {
  return rows<FlipRow & Record<string, unknown>>(
    p,
    `select u.url, a.token, f.from_allowed, f.to_allowed, f.cause, f.rule_before, f.rule_after
       from verdict_flips f
       join tracked_urls u on u.id = f.tracked_url_id
       join user_agents a on a.id = f.user_agent_id
      where f.run_id = $1 and f.site_id = $2
      order by u.url, a.token`,
    [runId, siteId],
  );
}

export interface AlertRow {
  id: number;
  dedupe_key: string;
  severity: string;
  kind: string;
  title: string;
  details: Record<string, unknown> & { flips?: { url: string; agent: string; from: boolean | null; to: boolean; cause: string }[]; flipsTotal?: number };
}

/** The alerts of a run for one site, most severe first then by kind. */
export function alertsOf(p: Pipeline, runId: number, siteId: number): Promise<AlertRow[]> {
  return rows<AlertRow & Record<string, unknown>>(
    p,
    'select id::int, dedupe_key, severity::text, kind, title, details from alerts where run_id = $1 and site_id = $2 order by severity, kind',
    [runId, siteId],
  );
}

export interface ChangeRow {
  kinds: string[];
  text_diff: string | null;
  rule_diff: Record<string, unknown> | null;
  outcome_from: string | null;
  outcome_to: string;
  policy_from: string | null;
  policy_to: string;
}

/** The change record of a site's night, or undefined when nothing changed. */
export async function changeOf(p: Pipeline, runId: number, siteId: number): Promise<ChangeRow | undefined> {
  const [row] = await rows<ChangeRow & Record<string, unknown>>(
    p,
    'select kinds, text_diff, rule_diff, outcome_from::text, outcome_to::text, policy_from::text, policy_to::text from snapshot_changes where run_id = $1 and site_id = $2',
    [runId, siteId],
  );
  return row;
}

export interface SnapshotRow {
  run_id: number;
  outcome: string;
  policy: string;
  policy_reason: string;
  /** Under the 30-day fallback with rules: the run whose body applies. */
  rules_run_id: number | null;
  body_id: number | null;
  unreachable_since: Date | null;
}

export async function snapshotOf(p: Pipeline, runId: number, siteId: number): Promise<SnapshotRow> {
  const [row] = await rows<SnapshotRow & Record<string, unknown>>(
    p,
    'select run_id, outcome::text, policy::text, policy_reason, rules_run_id, body_id, unreachable_since from snapshots where run_id = $1 and site_id = $2',
    [runId, siteId],
  );
  expect(row, `snapshot of run ${runId}, site ${siteId}`).toBeDefined();
  return row!;
}

export interface VerdictRow {
  url: string;
  token: string;
  allowed: boolean;
  rule_line: number | null;
}

/**
 * The verdicts of a site on the night of a run: the spans in force on it (valid_from <= the
 * night < valid_to, on the run clock), by URL then agent token.
 */
export function verdictsOn(p: Pipeline, runId: number, siteId: number): Promise<VerdictRow[]> {
  return rows<VerdictRow & Record<string, unknown>>(
    p,
    `select u.url, a.token, v.allowed, v.rule_line
       from audit_runs r
       join tracked_urls u on u.site_id = $2
       join verdicts v on v.tracked_url_id = u.id
        and (v.valid_from, v.from_run_id) <= (r.run_at, r.id)
        and (v.to_run_id is null or (v.valid_to, v.to_run_id) > (r.run_at, r.id))
       join user_agents a on a.id = v.user_agent_id
      where r.id = $1
      order by u.url, a.token`,
    [runId, siteId],
  );
}

/** The default agents (migration 0002), by token, in the order `flipsOf` sorts them. */
export async function defaultAgentTokens(p: Pipeline): Promise<string[]> {
  return (await rows<{ token: string }>(p, 'select token from user_agents where is_default order by token')).map((r) => r.token);
}

/**
 * What a run holds for each of some sites, in the order given: snapshots, fetch attempts (the
 * view: retried ones and the final one) and the verdicts in force on the night. A complete run
 * without duplicates whose sites answered at once has [1, 1, agents] each.
 */
export async function runRowsPerSite(p: Pipeline, runId: number, siteIds: number[]): Promise<[number, number, number][]> {
  const found = await rows<{ site_id: number; snapshots: string; attempts: string; verdicts: string }>(
    p,
    `select s.id as site_id,
            (select count(*) from snapshots n where n.run_id = $1 and n.site_id = s.id) as snapshots,
            (select count(*) from fetch_attempts a where a.run_id = $1 and a.site_id = s.id) as attempts,
            (select count(*) from audit_runs r join tracked_urls t on t.site_id = s.id join verdicts v on v.tracked_url_id = t.id
               and (v.valid_from, v.from_run_id) <= (r.run_at, r.id) and (v.to_run_id is null or (v.valid_to, v.to_run_id) > (r.run_at, r.id))
              where r.id = $1) as verdicts
       from sites s where s.id = any($2)`,
    [runId, siteIds],
  );
  const bySite = new Map(found.map((r) => [Number(r.site_id), [Number(r.snapshots), Number(r.attempts), Number(r.verdicts)] as [number, number, number]]));
  return siteIds.map((id) => bySite.get(id) ?? [0, 0, 0]);
}

/** How many agents every tracked URL is evaluated for by default. */
export async function defaultAgentCount(p: Pipeline): Promise<number> {
  return Number((await rows<{ n: string }>(p, 'select count(*) as n from user_agents where is_default'))[0]!.n);
}

/**
 * Waits (bounded) until every stored body has its portability findings (issue 26): the analysis
 * job the completed runs queued has run on the pipeline's workers, and none is waiting.
 */
export async function settleAnalysis(p: Pipeline, timeoutMs = 60_000): Promise<void> {
  await eventually(
    async () => {
      const [pending] = await rows<{ n: string }>(p, 'select count(*) as n from bodies where portability_version < $1', [PORTABILITY_VERSION]);
      if (Number(pending!.n) > 0) return false;
      const counts = await p.rt.queues.analysis.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      return Object.values(counts).every((n) => n === 0);
    },
    'the bodies to be analysed',
    timeoutMs,
  );
}

