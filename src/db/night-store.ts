/**
 * The database side of a site's night, built for many sites at a time: one query plans a batch
 * (is the night stored, the attempts made, the site's state, its targets), and one transaction
 * stores the nights of many sites with multi-row statements over arrays (`unnest`), whose text
 * never changes, so each is prepared once per connection. Plain node-postgres here, not drizzle:
 * this is the pipeline's hot path, and building queries was most of its cost (docs/benchmarks.md).
 *
 * Writes are idempotent and safe against a racing writer: a night is stored only if its snapshot
 * row is new (ON CONFLICT DO NOTHING on (site, run)); its state is written only if the state is
 * still the one the night was computed from (an optimistic check on `site_state.run_id`). A night
 * computed from a state that moved on is reported `stale`, and nothing of the transaction stays.
 */
import type pg from 'pg';
import type { PolicyKind, PolicyReason } from '../policy/index.js';
import type { FetchOutcome } from '../policy/fetch-outcome.js';
import type { AlertDraft } from '../night/alerts.js';
import type { EvaluationTarget, PreviousNight, RecentVersion, VerdictSpan } from '../night/input.js';
import type { SiteNight } from '../night/rows.js';
import { targetsHash } from '../night/keys.js';
import type { BodyIndex } from '../night/body-index.js';
import { severitiesAtLeast, deliveryDedupeKey } from './alerts.repo.js';
import type { AlertSeverityName } from './alerts.repo.js';
import { pgArray } from './pg-array.js';
import { pgJson, pgText } from './pg-text.js';
import { mergeAgentTokens } from './tracked-urls.repo.js';
import { agentFamilyOf } from './agent-families.js';
import { clampSmallint } from './column-limits.js';
import { createLateDigests, updateRunCounters } from './run-counters.js';
import type { RunCounterUpdate, ScheduledWait } from './run-counters.js';

/** A query runner: the pool, or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

export interface RunClock {
  id: number;
  runAt: Date;
  status: 'running' | 'completed' | 'failed';
}

/** Every known crawler token, lower-cased: a new body's root access is stored for each. */
export async function loadCatalogueTokens(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ token: string }>({ name: 'night-catalogue', text: 'select lower(token) as token from user_agents order by id' });
  return rows.map((r) => r.token);
}

/** What planning one site's night needs. */
export interface SiteContext {
  siteId: number;
  /** Null: the site was removed. */
  origin: string | null;
  /** The run has this site's night already. */
  stored: boolean;
  /** Attempts recorded for the run (retried ones: the night is still open). */
  failedAttempts: number;
  lastAttemptAt: Date | null;
  /** The site's latest night (site_state), if any. */
  state: PreviousNight | null;
  targets: EvaluationTarget[];
  targetsHash: Buffer;
}

/** An attempt that will be retried: recorded now, the night stays open. */
export interface FailedAttemptRow {
  siteId: number;
  runId: number;
  attempt: number;
  startedAt: Date;
  durationMs: number;
  response: SiteNight['snapshot']['response'];
  newResponse: SiteNight['newResponse'];
  fullSize: number | null;
  outcome: FetchOutcome;
  status: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  /** When the retry is due, and whether the run waits for it (policy/run-hold.ts): the site's wait on its run. */
  retryUntil: Date;
  holdsRun: boolean;
}

export interface StoreResult {
  /** Nights written by this call, as `site:run`. */
  stored: Set<string>;
  /** Nights whose state moved on since they were computed: nothing of them was written. */
  stale: Set<string>;
  /** Deliveries created (pending) by this call, late digests included: to queue once committed. */
  deliveryIds: number[];
  /** Runs whose count says every site is done (or skipped, or failed): to finish. */
  runsToFinish: number[];
}

export const nightKey = (siteId: number, runId: number) => `${siteId}:${runId}`;

interface StateDbRow {
  site_id: number;
  run_id: number;
  run_at: Date;
  outcome: FetchOutcome;
  status: number | null;
  policy: PolicyKind;
  policy_reason: PolicyReason;
  unreachable_since: Date | null;
  rules_body_id: number | null;
  rules_run_id: number | null;
  last_good_run_id: number | null;
  last_good_run_at: Date | null;
  last_good_body_id: number | null;
  last_good_sha256: Buffer | null;
  last_reachable_run_id: number | null;
  last_reachable_outcome: FetchOutcome | null;
  response_id: number | null;
  response_key: Buffer | null;
  eval_key: Buffer | null;
  failed_nights: number;
  last_change_run_id: number | null;
  challenged_since: Date | null;
  flapping_since: Date | null;
  stable_nights: number;
  recent_versions: RecentVersion[];
}

export function previousNightOf(r: StateDbRow): PreviousNight {
  return {
    runId: r.run_id,
    runAt: r.run_at,
    outcome: r.outcome,
    status: r.status,
    policy: r.policy,
    policyReason: r.policy_reason,
    unreachableSince: r.unreachable_since,
    rulesBodyId: r.rules_body_id,
    rulesRunId: r.rules_run_id,
    lastGood:
      r.last_good_run_id !== null && r.last_good_body_id !== null && r.last_good_sha256 !== null
        ? { runId: r.last_good_run_id, runAt: r.last_good_run_at!, bodyId: r.last_good_body_id, sha256: r.last_good_sha256 }
        : null,
    lastReachable: r.last_reachable_run_id !== null ? { runId: r.last_reachable_run_id, outcome: r.last_reachable_outcome! } : null,
    responseId: r.response_id,
    responseKey: r.response_key,
    evalKey: r.eval_key,
    failedNights: r.failed_nights,
    lastChangeRunId: r.last_change_run_id,
    challengedSince: r.challenged_since,
    flappingSince: r.flapping_since,
    stableNights: r.stable_nights,
    recentVersions: r.recent_versions,
  };
}

const STATE_COLUMNS = `st.site_id, st.run_id, st.run_at, st.outcome, st.status, st.policy, st.policy_reason, st.unreachable_since,
  st.rules_body_id, st.rules_run_id, st.last_good_run_id, st.last_good_run_at, st.last_good_body_id, st.last_good_sha256,
  st.last_reachable_run_id, st.last_reachable_outcome, st.response_id, st.response_key, st.eval_key, st.failed_nights, st.last_change_run_id,
  st.challenged_since, st.flapping_since, st.stable_nights, st.recent_versions`;

export async function loadRunClock(db: Queryable, runId: number): Promise<RunClock | null> {
  const { rows } = await db.query<{ id: number; run_at: Date; status: RunClock['status'] }>({
    name: 'night-run-clock',
    text: 'select id, run_at, status from audit_runs where id = $1',
    values: [runId],
  });
  return rows[0] ? { id: rows[0].id, runAt: rows[0].run_at, status: rows[0].status } : null;
}

/**
 * Everything planning these sites' nights in `run` needs, in four queries whatever the number of
 * sites: the site, whether its night is stored, its retried attempts, its state, and its targets
 * (tracked URLs with the default agents, its portfolios' extras and each URL's own). Agent tokens
 * without a `user_agents` row get one (not default), so every verdict can reference its agent.
 */
export async function loadSiteContexts(db: Queryable, run: RunClock, siteIds: readonly number[]): Promise<Map<number, SiteContext>> {
  const ids = [...new Set(siteIds)];
  const contexts = new Map<number, SiteContext>();
  if (ids.length === 0) return contexts;
  const { rows } = await db.query<StateDbRow & { id: number; origin: string | null; stored: boolean; failed: number; last_attempt_at: Date | null; has_state: boolean }>({
    name: 'night-site-contexts',
    text: `select ids.id, s.origin,
        exists (select 1 from snapshots n where n.site_id = ids.id and n.run_at = $2 and n.run_id = $3) as stored,
        (select count(*)::int from failed_attempts f where f.site_id = ids.id and f.run_id = $3) as failed,
        (select max(f.started_at) from failed_attempts f where f.site_id = ids.id and f.run_id = $3) as last_attempt_at,
        st.site_id is not null as has_state, ${STATE_COLUMNS}
      from unnest($1::int[]) as ids(id)
      left join sites s on s.id = ids.id
      left join site_state st on st.site_id = ids.id`,
    values: [ids, run.runAt, run.id],
  });
  const present = rows.filter((r) => r.origin !== null).map((r) => r.id);
  const targets = await loadTargets(db, present);
  for (const r of rows) {
    const siteTargets = targets.get(r.id) ?? [];
    contexts.set(r.id, {
      siteId: r.id,
      origin: r.origin,
      stored: r.stored,
      failedAttempts: r.failed,
      lastAttemptAt: r.last_attempt_at,
      state: r.has_state ? previousNightOf(r) : null,
      targets: siteTargets,
      targetsHash: targetsHash(siteTargets),
    });
  }
  return contexts;
}

interface AgentRow {
  id: number;
  token: string;
  family: string | null;
}

/** The targets of each site: every tracked URL (root first) x its agents (T15: tokens compare lower-case). */
async function loadTargets(db: Queryable, siteIds: number[]): Promise<Map<number, EvaluationTarget[]>> {
  const out = new Map<number, EvaluationTarget[]>();
  if (siteIds.length === 0) return out;
  const [urls, extras, defaults] = await Promise.all([
    db.query<{ site_id: number; id: number; url: string; is_root: boolean; extra_agents: string[] }>({
      name: 'night-tracked-urls',
      text: 'select site_id, id, url, is_root, extra_agents from tracked_urls where site_id = any($1::int[]) order by site_id, is_root desc, id',
      values: [siteIds],
    }),
    db.query<{ site_id: number; extra: string[] }>({
      name: 'night-portfolio-extras',
      text: `select ps.site_id, p.extra_user_agents as extra from portfolio_sites ps join portfolios p on p.id = ps.portfolio_id
             where ps.site_id = any($1::int[]) and cardinality(p.extra_user_agents) > 0 order by ps.site_id, p.name`,
      values: [siteIds],
    }),
    db.query<AgentRow>({ name: 'night-default-agents', text: 'select id, token, family from user_agents where is_default order by id' }),
  ]);
  const refs = new Map(defaults.rows.map((a) => [a.token.toLowerCase(), a]));
  const defaultTokens = defaults.rows.map((a) => a.token);
  const extrasBySite = new Map<number, string[][]>();
  for (const e of extras.rows) (extrasBySite.get(e.site_id) ?? extrasBySite.set(e.site_id, []).get(e.site_id)!).push(e.extra);
  const unknown = mergeAgentTokens(...extras.rows.map((e) => e.extra), ...urls.rows.map((u) => u.extra_agents)).filter((t) => !refs.has(t.toLowerCase()));
  for (const a of await ensureAgents(db, unknown)) refs.set(a.token.toLowerCase(), a);
  // Most URLs have no extra agent anywhere: they share one list; others are merged once per combination.
  const agentLists = new Map<string, AgentRow[]>();
  for (const u of urls.rows) {
    const extraLists = [...(extrasBySite.get(u.site_id) ?? []), u.extra_agents];
    const key = JSON.stringify(extraLists);
    let agents = agentLists.get(key);
    if (!agents) {
      agents = mergeAgentTokens(defaultTokens, ...extraLists).map((t) => refs.get(t.toLowerCase())!);
      agentLists.set(key, agents);
    }
    (out.get(u.site_id) ?? out.set(u.site_id, []).get(u.site_id)!).push({ trackedUrlId: u.id, url: u.url, isRoot: u.is_root, agents });
  }
  return out;
}

/** Rows for tokens that have none yet (not default, their family when known). */
async function ensureAgents(db: Queryable, tokens: string[]): Promise<AgentRow[]> {
  if (tokens.length === 0) return [];
  await db.query(
    `insert into user_agents (token, family, is_default) select t, f, false from unnest($1::text[], $2::text[]) as x(t, f) on conflict do nothing`,
    [tokens, tokens.map((t) => agentFamilyOf(t))],
  );
  const { rows } = await db.query<AgentRow>('select id, token, family from user_agents where lower(token) = any($1::text[])', [tokens.map((t) => t.toLowerCase())]);
  return rows;
}

/**
 * A night replayed before the site's latest one (`audit --at` an earlier date): what it is
 * compared with comes from the history, by the run clock: the night before it (its policy, the
 * streak), the last good and last reachable nights before it, and the night after it.
 */
export async function loadReplayContext(
  db: Queryable,
  siteId: number,
  run: { id: number; runAt: Date },
): Promise<{ previous: PreviousNight | null; nextNight: { runId: number; runAt: Date } | null }> {
  const { rows } = await db.query<{
    which: 'previous' | 'next' | 'good' | 'reachable';
    run_id: number;
    run_at: Date;
    outcome: FetchOutcome;
    status: number | null;
    policy: PolicyKind;
    policy_reason: PolicyReason;
    unreachable_since: Date | null;
    body_id: number | null;
    rules_run_id: number | null;
    response_id: number | null;
    sha256: Buffer | null;
    response_key: Buffer | null;
  }>(
    `with before as (select * from snapshots where site_id = $1 and (run_at, run_id) < ($2, $3))
     select w.which, n.run_id, n.run_at, n.outcome, n.status, n.policy, n.policy_reason, n.unreachable_since, n.body_id, n.rules_run_id,
            n.response_id, b.sha256, r.key as response_key
     from (
       (select 'previous' as which, * from before order by run_at desc, run_id desc limit 1)
       union all (select 'good', * from before where outcome = 'ok' order by run_at desc, run_id desc limit 1)
       union all (select 'reachable', * from before where outcome not in ('server_error', 'network_error', 'night_failed') order by run_at desc, run_id desc limit 1)
       union all (select 'next', * from snapshots where site_id = $1 and (run_at, run_id) > ($2, $3) order by run_at, run_id limit 1)
     ) w (which, run_at, fetched_at, unreachable_since, site_id, run_id, duration_ms, body_id, response_id, rules_run_id)
     join snapshots n on n.site_id = $1 and n.run_at = w.run_at and n.run_id = w.run_id
     left join bodies b on b.id = n.body_id
     left join responses r on r.id = n.response_id`,
    [siteId, run.runAt, run.id],
  );
  const by = new Map(rows.map((r) => [r.which, r]));
  const prev = by.get('previous');
  const good = by.get('good');
  const reach = by.get('reachable');
  const next = by.get('next');
  let rulesBodyId: number | null = null;
  if (prev?.policy === 'rules') {
    if (prev.rules_run_id === null) rulesBodyId = prev.body_id;
    else {
      const { rows: src } = await db.query<{ body_id: number | null }>('select body_id from snapshots where site_id = $1 and run_id = $2', [siteId, prev.rules_run_id]);
      rulesBodyId = src[0]?.body_id ?? null;
    }
  }
  const previous: PreviousNight | null = prev
    ? {
        runId: prev.run_id,
        runAt: prev.run_at,
        outcome: prev.outcome,
        status: prev.status,
        policy: prev.policy,
        policyReason: prev.policy_reason,
        unreachableSince: prev.unreachable_since,
        rulesBodyId,
        rulesRunId: prev.policy === 'rules' ? (prev.rules_run_id ?? prev.run_id) : null,
        lastGood: good && good.body_id !== null && good.sha256 ? { runId: good.run_id, runAt: good.run_at, bodyId: good.body_id, sha256: good.sha256 } : null,
        lastReachable: reach ? { runId: reach.run_id, outcome: reach.outcome } : null,
        responseId: prev.response_id,
        responseKey: prev.response_key,
        evalKey: null,
        failedNights: 0,
        lastChangeRunId: null,
        // A replayed night leaves the site's state alone; it is computed against what the night before it was.
        challengedSince: prev.outcome === 'challenged' ? prev.run_at : null,
        flappingSince: null,
        stableNights: 0,
        recentVersions: [],
      }
    : null;
  return { previous, nextNight: next ? { runId: next.run_id, runAt: next.run_at } : null };
}

export async function loadBody(db: Queryable, bodyId: number): Promise<Buffer | null> {
  const { rows } = await db.query<{ content: Buffer }>({ name: 'night-body', text: 'select content from bodies where id = $1', values: [bodyId] });
  return rows[0]?.content ?? null;
}

/** A stored body by its hash (bodies are unique by sha256). */
export async function loadBodyBySha(db: Queryable, sha256: Buffer): Promise<Buffer | null> {
  const { rows } = await db.query<{ content: Buffer }>({ name: 'night-body-by-sha', text: 'select content from bodies where sha256 = $1', values: [sha256] });
  return rows[0]?.content ?? null;
}

/** The spans of these URLs open now, or (replayed) covering the night `at`. */
export async function loadSpansInForce(db: Queryable, trackedUrlIds: number[], at: { runId: number; runAt: Date }, replayed: boolean): Promise<VerdictSpan[]> {
  if (trackedUrlIds.length === 0) return [];
  const { rows } = replayed
    ? await db.query<SpanDbRow>(
        `select tracked_url_id, user_agent_id, valid_from, from_run_id, valid_to, to_run_id, allowed, rule_line, parser_profile, parser_allowed from verdicts
         where tracked_url_id = any($1::int[]) and (valid_from, from_run_id) <= ($2, $3)
           and (to_run_id is null or (valid_to, to_run_id) > ($2, $3))`,
        [trackedUrlIds, at.runAt, at.runId],
      )
    : await db.query<SpanDbRow>({
        name: 'night-open-spans',
        text: `select tracked_url_id, user_agent_id, valid_from, from_run_id, valid_to, to_run_id, allowed, rule_line, parser_profile, parser_allowed from verdicts
               where tracked_url_id = any($1::int[]) and to_run_id is null`,
        values: [trackedUrlIds],
      });
  return rows.map((r) => ({
    trackedUrlId: r.tracked_url_id,
    userAgentId: r.user_agent_id,
    validFrom: r.valid_from,
    fromRunId: r.from_run_id,
    validTo: r.valid_to,
    toRunId: r.to_run_id,
    allowed: r.allowed,
    ruleLine: r.rule_line,
    parserProfile: r.parser_profile,
    parserAllowed: r.parser_allowed,
  }));
}

interface SpanDbRow {
  tracked_url_id: number;
  user_agent_id: number;
  valid_from: Date;
  from_run_id: number;
  valid_to: Date | null;
  to_run_id: number | null;
  allowed: boolean;
  rule_line: number | null;
  parser_profile: string | null;
  parser_allowed: boolean | null;
}

// --- writing ----------------------------------------------------------------------------------

type Counts = Record<string, Record<string, number>>;

function bump(counts: Counts, group: string, key: string): void {
  const g = (counts[group] ??= {});
  g[key] = (g[key] ?? 0) + 1;
}

/** A column of the rows, as the array parameter of an `unnest` (pgArray: cheaper than pg's own conversion). */
const col = pgArray;

/**
 * Stores nights and retried attempts in one transaction on `client` (checked out of the pool by
 * the caller). Returns what was stored; throws (after rolling back) on any database error.
 */
export async function storeNights(client: pg.PoolClient, nights: readonly SiteNight[], attempts: readonly FailedAttemptRow[]): Promise<StoreResult> {
  await client.query('begin');
  try {
    const result = await storeInTransaction(client, nights, attempts);
    if (result.stale.size > 0) {
      // A racing writer moved some sites on: keep nothing, so the caller can store the rest alone.
      await client.query('rollback');
      return result;
    }
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  }
}

async function storeInTransaction(db: pg.PoolClient, nights: readonly SiteNight[], attempts: readonly FailedAttemptRow[]): Promise<StoreResult> {
  const result: StoreResult = { stored: new Set(), stale: new Set(), deliveryIds: [], runsToFinish: [] };

  // Bodies and answers seen for the first time (by this site): stored unless another site did.
  const bodyIds = await storeBodies(db, nights);
  const responseIds = await storeResponses(db, [...nights.map((n) => n.newResponse), ...attempts.map((a) => a.newResponse)]);
  const bodyId = (ref: { id: number } | { sha256: Buffer } | null) => (ref === null ? null : 'id' in ref ? ref.id : bodyIds.get(ref.sha256.toString('hex'))!);
  const responseId = (ref: { id: number } | { key: Buffer } | null) => (ref === null ? null : 'id' in ref ? ref.id : responseIds.get(ref.key.toString('hex'))!);

  if (attempts.length > 0) {
    await db.query({
      name: 'night-insert-failed-attempts',
      text: `insert into failed_attempts (started_at, site_id, run_id, duration_ms, response_id, full_size, outcome, attempt, status, error_code, error_message)
             select * from unnest($1::timestamptz[], $2::int[], $3::int[], $4::int[], $5::int[], $6::int[], $7::fetch_outcome[], $8::smallint[],
                                  $9::smallint[], $10::text[], $11::text[])
             on conflict do nothing`,
      values: [
        col(attempts, (a) => a.startedAt),
        col(attempts, (a) => a.siteId),
        col(attempts, (a) => a.runId),
        col(attempts, (a) => a.durationMs),
        col(attempts, (a) => responseId(a.response)),
        col(attempts, (a) => a.fullSize),
        col(attempts, (a) => a.outcome),
        col(attempts, (a) => a.attempt),
        col(attempts, (a) => a.status),
        col(attempts, (a) => pgText(a.errorCode)),
        col(attempts, (a) => pgText(a.errorMessage)),
      ],
    });
  }
  if (nights.length === 0) {
    await countRuns(db, [], attempts, result);
    return result;
  }

  const snaps = nights.map((n) => n.snapshot);
  const inserted = await db.query<{ site_id: number; run_id: number }>({
    name: 'night-insert-snapshots',
    text: `insert into snapshots (run_at, fetched_at, unreachable_since, site_id, run_id, duration_ms, body_id, response_id, rules_run_id,
                                  cache_lifetime_seconds, full_size, outcome, policy, status, attempts, truncated, policy_reason, error_code, error_message,
                                  flapping, confirm_sha256)
           select * from unnest($1::timestamptz[], $2::timestamptz[], $3::timestamptz[], $4::int[], $5::int[], $6::int[], $7::int[], $8::int[],
                                $9::int[], $10::int[], $11::int[], $12::fetch_outcome[], $13::effective_policy[], $14::smallint[], $15::smallint[],
                                $16::bool[], $17::text[], $18::text[], $19::text[], $20::bool[], $21::bytea[])
           on conflict do nothing
           returning site_id, run_id`,
    values: [
      col(snaps, (s) => s.runAt),
      col(snaps, (s) => s.fetchedAt),
      col(snaps, (s) => s.unreachableSince),
      col(snaps, (s) => s.siteId),
      col(snaps, (s) => s.runId),
      col(snaps, (s) => s.durationMs),
      col(snaps, (s) => bodyId(s.body)),
      col(snaps, (s) => responseId(s.response)),
      col(snaps, (s) => s.rulesRunId),
      col(snaps, (s) => s.cacheLifetimeSeconds),
      col(snaps, (s) => s.fullSize),
      col(snaps, (s) => s.outcome),
      col(snaps, (s) => s.policy),
      col(snaps, (s) => s.status),
      col(snaps, (s) => s.attempts),
      col(snaps, (s) => s.truncated),
      col(snaps, (s) => s.policyReason),
      col(snaps, (s) => pgText(s.errorCode)),
      col(snaps, (s) => pgText(s.errorMessage)),
      col(snaps, (s) => s.flapping),
      col(snaps, (s) => s.confirmSha256),
    ],
  });
  for (const r of inserted.rows) result.stored.add(nightKey(r.site_id, r.run_id));
  // Only the nights this call inserted go on, once each: a night stored before (a job run twice)
  // wrote the rest then, and two jobs of one process may hand in the same night together.
  const fresh: SiteNight[] = [];
  const taken = new Set<string>();
  for (const n of nights) {
    const key = nightKey(n.siteId, n.runId);
    if (result.stored.has(key) && !taken.has(key)) {
      taken.add(key);
      fresh.push(n);
    }
  }
  if (fresh.length === 0) {
    await countRuns(db, [], attempts, result);
    return result;
  }

  await storeStates(db, fresh, bodyId, responseId, result);
  if (result.stale.size > 0) return result;

  const changes = fresh.flatMap((n) => (n.change ? [n.change] : []));
  if (changes.length > 0) {
    await db.query({
      name: 'night-insert-changes',
      text: `insert into snapshot_changes (run_id, site_id, previous_run_id, outcome_from, outcome_to, policy_from, policy_to, kinds, text_diff, rule_diff)
             select r, s, p, o1, o2, p1, p2, string_to_array(k, ','), t, d::jsonb
             from unnest($1::int[], $2::int[], $3::int[], $4::fetch_outcome[], $5::fetch_outcome[], $6::effective_policy[], $7::effective_policy[],
                         $8::text[], $9::text[], $10::text[]) as x(r, s, p, o1, o2, p1, p2, k, t, d)
             on conflict do nothing`,
      values: [
        col(changes, (c) => c.runId),
        col(changes, (c) => c.siteId),
        col(changes, (c) => c.previousRunId),
        col(changes, (c) => c.outcomeFrom),
        col(changes, (c) => c.outcomeTo),
        col(changes, (c) => c.policyFrom),
        col(changes, (c) => c.policyTo),
        col(changes, (c) => c.kinds.join(',')),
        col(changes, (c) => pgText(c.textDiff)),
        col(changes, (c) => pgJson(c.ruleDiff)),
      ],
    });
  }

  const closes = fresh.flatMap((n) => n.spans.close);
  if (closes.length > 0) {
    await db.query({
      name: 'night-close-spans',
      text: `update verdicts v set valid_to = x.vt, to_run_id = x.tr
             from unnest($1::int[], $2::int[], $3::timestamptz[], $4::int[], $5::timestamptz[], $6::int[]) as x(t, a, vf, fr, vt, tr)
             where v.tracked_url_id = x.t and v.user_agent_id = x.a and v.valid_from = x.vf and v.from_run_id = x.fr`,
      values: [
        col(closes, (c) => c.trackedUrlId),
        col(closes, (c) => c.userAgentId),
        col(closes, (c) => c.validFrom),
        col(closes, (c) => c.fromRunId),
        col(closes, (c) => c.validTo),
        col(closes, (c) => c.toRunId),
      ],
    });
  }
  const opens = fresh.flatMap((n) => n.spans.open);
  if (opens.length > 0) {
    await db.query({
      name: 'night-open-spans-insert',
      text: `insert into verdicts (valid_from, valid_to, tracked_url_id, user_agent_id, from_run_id, to_run_id, rule_line, allowed, parser_profile, parser_allowed)
             select * from unnest($1::timestamptz[], $2::timestamptz[], $3::int[], $4::int[], $5::int[], $6::int[], $7::int[], $8::bool[], $9::text[], $10::bool[])
             on conflict do nothing`,
      values: [
        col(opens, (o) => o.validFrom),
        col(opens, (o) => o.validTo),
        col(opens, (o) => o.trackedUrlId),
        col(opens, (o) => o.userAgentId),
        col(opens, (o) => o.fromRunId),
        col(opens, (o) => o.toRunId),
        col(opens, (o) => o.ruleLine),
        col(opens, (o) => o.allowed),
        col(opens, (o) => o.parserProfile),
        col(opens, (o) => o.parserAllowed),
      ],
    });
  }

  const flips = fresh.flatMap((n) => n.flips);
  if (flips.length > 0) {
    await db.query({
      name: 'night-insert-flips',
      text: `insert into verdict_flips (run_id, site_id, tracked_url_id, user_agent_id, from_allowed, to_allowed, cause, rule_before, rule_after)
             select r, s, t, a, f, o, c, b::jsonb, af::jsonb
             from unnest($1::int[], $2::int[], $3::int[], $4::int[], $5::bool[], $6::bool[], $7::text[], $8::text[], $9::text[]) as x(r, s, t, a, f, o, c, b, af)
             on conflict do nothing`,
      values: [
        col(flips, (f) => f.runId),
        col(flips, (f) => f.siteId),
        col(flips, (f) => f.trackedUrlId),
        col(flips, (f) => f.userAgentId),
        col(flips, (f) => f.fromAllowed),
        col(flips, (f) => f.toAllowed),
        col(flips, (f) => f.cause),
        col(flips, (f) => pgJson(f.ruleBefore)),
        col(flips, (f) => pgJson(f.ruleAfter)),
      ],
    });
  }

  result.deliveryIds = await raiseAlerts(db, fresh);
  await countRuns(db, fresh, attempts, result);
  return result;
}

/**
 * The runs' counters and waits, once per run, under each run row's lock (runs in id order):
 * the nights stored, and the retries scheduled. A run this completes is to finish; a completed
 * run whose last late site came in gets its late digests, in this transaction.
 */
async function countRuns(db: pg.PoolClient, fresh: readonly SiteNight[], attempts: readonly FailedAttemptRow[], result: StoreResult): Promise<void> {
  const byRun = new Map<number, RunCounterUpdate & { stored: number[]; waits: ScheduledWait[] }>();
  const runOf = (runId: number) => byRun.get(runId) ?? byRun.set(runId, { runId, done: 0, counts: {}, stored: [], waits: [] }).get(runId)!;
  for (const n of fresh) {
    const run = runOf(n.runId);
    run.done += 1;
    run.stored.push(n.siteId);
    bump(run.counts, 'outcome', n.snapshot.outcome);
    bump(run.counts, 'policy', n.snapshot.policy);
    for (const kind of n.change?.kinds ?? []) bump(run.counts, 'change', kind);
  }
  // A site's later attempt (a higher number) is its wait now.
  for (const a of [...attempts].sort((x, y) => x.attempt - y.attempt)) {
    const { waits } = runOf(a.runId);
    const i = waits.findIndex((w) => w.siteId === a.siteId);
    const wait = { siteId: a.siteId, until: a.retryUntil, holdsRun: a.holdsRun };
    if (i >= 0) waits[i] = wait;
    else waits.push(wait);
  }
  for (const [runId, update] of [...byRun].sort((a, b) => a[0] - b[0])) {
    const { complete, lateSettled } = await updateRunCounters(db, update);
    if (complete) result.runsToFinish.push(runId);
    if (lateSettled) result.deliveryIds.push(...(await createLateDigests(db, runId)));
  }
}

async function storeBodies(db: pg.PoolClient, nights: readonly SiteNight[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const wanted = new Map<string, NonNullable<SiteNight['newBody']>>();
  for (const n of nights) {
    if (n.newBody) wanted.set(n.newBody.sha256.toString('hex'), n.newBody);
    if (n.confirmBody) wanted.set(n.confirmBody.sha256.toString('hex'), n.confirmBody);
  }
  // A body can also be referenced by hash without being new to this site's history (a night
  // replayed after a later one stored it): resolve every hash referenced.
  for (const n of nights) {
    for (const ref of [n.snapshot.body, n.state?.rulesBody ?? null, n.state?.lastGood?.body ?? null]) {
      if (ref && 'sha256' in ref && !wanted.has(ref.sha256.toString('hex'))) throw new Error(`body ${ref.sha256.toString('hex')} referenced but not given`);
    }
  }
  if (wanted.size === 0) return ids;
  const bodies = [...wanted.values()];
  await db.query({
    name: 'night-insert-bodies',
    text: `insert into bodies (sha256, content, size, rules, groups, sitemaps, lint_errors, lint_warnings, lint_infos, content_signals)
           select s, c, z, r, g, m, le, lw, li, array(select jsonb_array_elements_text(cs::jsonb))
           from unnest($1::bytea[], $2::bytea[], $3::int[], $4::int[], $5::smallint[], $6::smallint[], $7::smallint[], $8::smallint[], $9::smallint[], $10::text[])
             as x(s, c, z, r, g, m, le, lw, li, cs)
           on conflict (sha256) do nothing`,
    values: [
      col(bodies, (b) => b.sha256),
      col(bodies, (b) => b.content),
      col(bodies, (b) => b.content.length),
      col(bodies, (b) => b.summary.rules),
      col(bodies, (b) => b.summary.groups),
      col(bodies, (b) => b.summary.sitemaps),
      col(bodies, (b) => b.summary.lintErrors),
      col(bodies, (b) => b.summary.lintWarnings),
      col(bodies, (b) => b.summary.lintInfos),
      // A body's Content-Signal values as a JSON array: a parameter cannot be an array of arrays.
      col(bodies, (b) => pgJson(b.index.contentSignals)),
    ],
  });
  const { rows } = await db.query<{ id: number; sha256: Buffer; indexed: boolean }>({
    name: 'night-body-ids',
    text: 'select id, sha256, indexed from bodies where sha256 = any($1::bytea[])',
    values: [col(bodies, (b) => b.sha256)],
  });
  for (const r of rows) ids.set(r.sha256.toString('hex'), r.id);
  // A body's rules and root access go in with it (or, for a body stored before they existed, now).
  const unindexed = rows.filter((r) => !r.indexed).map((r) => ({ id: r.id, index: wanted.get(r.sha256.toString('hex'))!.index }));
  if (unindexed.length > 0) await storeBodyIndexes(db, unindexed);
  return ids;
}

/**
 * Stores bodies' rules and root access (idempotent) and marks them indexed. The access rows are
 * replaced whole: a body marked for indexing again (migration 0017) may hold exceptions computed
 * under older crawler rules. Callers run it in a transaction where the two must change together.
 */
export async function storeBodyIndexes(db: Queryable, bodies: readonly { id: number; index: BodyIndex }[]): Promise<void> {
  const groups = bodies.flatMap((b) => b.index.groups.map((g) => ({ bodyId: b.id, ...g })));
  const rules = bodies.flatMap((b) => b.index.rules.map((r) => ({ bodyId: b.id, ...r })));
  const access = bodies.flatMap((b) => b.index.access.map((a) => ({ bodyId: b.id, ...a })));
  await db.query({ name: 'body-index-access-clear', text: 'delete from body_agent_access where body_id = any($1::int[])', values: [col(bodies, (b) => b.id)] });
  for (let i = 0; i < groups.length; i += 1_000) {
    const chunk = groups.slice(i, i + 1_000);
    await db.query({
      name: 'body-index-groups',
      text: `insert into body_groups (body_id, group_no, user_agents)
             select b, g, array(select jsonb_array_elements_text(u::jsonb))
             from unnest($1::int[], $2::smallint[], $3::text[]) as x(b, g, u)
             on conflict do nothing`,
      values: [col(chunk, (g) => g.bodyId), col(chunk, (g) => clampSmallint(g.groupNo)), col(chunk, (g) => pgJson(g.userAgents))],
    });
  }
  for (let i = 0; i < rules.length; i += 5_000) {
    const chunk = rules.slice(i, i + 5_000);
    await db.query({
      name: 'body-index-rules',
      text: `insert into body_rules (body_id, line, group_no, kind, value, pattern)
             select * from unnest($1::int[], $2::int[], $3::smallint[], $4::text[], $5::text[], $6::text[])
             on conflict do nothing`,
      values: [
        col(chunk, (r) => r.bodyId),
        col(chunk, (r) => r.line),
        // smallint: a body past 500 KiB may have more groups; the last ones share the last number.
        col(chunk, (r) => clampSmallint(r.groupNo)),
        col(chunk, (r) => r.kind),
        col(chunk, (r) => pgText(r.value)),
        col(chunk, (r) => pgText(r.pattern)),
      ],
    });
  }
  for (let i = 0; i < access.length; i += 10_000) {
    const chunk = access.slice(i, i + 10_000);
    await db.query({
      name: 'body-index-access',
      text: `insert into body_agent_access (body_id, token, rule_line, allowed)
             select * from unnest($1::int[], $2::text[], $3::int[], $4::bool[]) on conflict do nothing`,
      values: [col(chunk, (a) => a.bodyId), col(chunk, (a) => a.token), col(chunk, (a) => a.ruleLine), col(chunk, (a) => a.allowed)],
    });
  }
  // The Content-Signal values go in with the mark: a body stored before migration 0006 has none yet.
  await db.query({
    name: 'body-index-mark',
    text: `update bodies b set indexed = true, content_signals = array(select jsonb_array_elements_text(x.cs::jsonb))
           from unnest($1::int[], $2::text[]) as x(id, cs) where b.id = x.id`,
    values: [col(bodies, (b) => b.id), col(bodies, (b) => pgJson(b.index.contentSignals))],
  });
}

async function storeResponses(db: pg.PoolClient, candidates: readonly (SiteNight['newResponse'] | null)[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const wanted = new Map<string, NonNullable<SiteNight['newResponse']>>();
  for (const r of candidates) if (r) wanted.set(r.key.toString('hex'), r);
  if (wanted.size === 0) return ids;
  const rows = [...wanted.values()];
  await db.query({
    name: 'night-insert-responses',
    text: `insert into responses (key, final_url, hops, remote_address, content_type, content_encoding, cache_control, expires, age, retry_after,
                                  last_modified, etag)
           select k, f, h::jsonb, a, ct, ce, cc, e, ag, ra, lm, et
           from unnest($1::bytea[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
                       $11::text[], $12::text[]) as x(k, f, h, a, ct, ce, cc, e, ag, ra, lm, et)
           on conflict (key) do nothing`,
    values: [
      col(rows, (r) => r.key),
      col(rows, (r) => pgText(r.finalUrl)),
      col(rows, (r) => pgJson(r.hops)),
      col(rows, (r) => r.remoteAddress),
      col(rows, (r) => pgText(r.contentType)),
      col(rows, (r) => pgText(r.contentEncoding)),
      col(rows, (r) => pgText(r.cacheControl)),
      col(rows, (r) => pgText(r.expires)),
      col(rows, (r) => pgText(r.age)),
      col(rows, (r) => pgText(r.retryAfter)),
      col(rows, (r) => pgText(r.lastModified)),
      col(rows, (r) => pgText(r.etag)),
    ],
  });
  const { rows: found } = await db.query<{ id: number; key: Buffer }>({
    name: 'night-response-ids',
    text: 'select id, key from responses where key = any($1::bytea[])',
    values: [col(rows, (r) => r.key)],
  });
  for (const r of found) ids.set(r.key.toString('hex'), r.id);
  return ids;
}

/** Writes the new states: an update where the state is still the one computed from, an insert where there was none. */
async function storeStates(
  db: pg.PoolClient,
  fresh: readonly SiteNight[],
  bodyId: (ref: { id: number } | { sha256: Buffer } | null) => number | null,
  responseId: (ref: { id: number } | { key: Buffer } | null) => number | null,
  result: StoreResult,
): Promise<void> {
  const withState = fresh.filter((n) => n.state !== null);
  if (withState.length === 0) return;
  const states = withState.map((n) => n.state!);
  const values = [
    col(states, (s) => s.siteId),
    col(withState, (n) => n.expectedStateRunId),
    col(states, (s) => s.runId),
    col(states, (s) => s.runAt),
    col(states, (s) => s.outcome),
    col(states, (s) => s.status),
    col(states, (s) => s.policy),
    col(states, (s) => s.policyReason),
    col(states, (s) => s.unreachableSince),
    col(states, (s) => bodyId(s.rulesBody)),
    col(states, (s) => s.rulesRunId),
    col(states, (s) => s.lastGood?.runId ?? null),
    col(states, (s) => s.lastGood?.runAt ?? null),
    col(states, (s) => bodyId(s.lastGood?.body ?? null)),
    col(states, (s) => s.lastGood?.sha256 ?? null),
    col(states, (s) => s.lastReachable?.runId ?? null),
    col(states, (s) => s.lastReachable?.outcome ?? null),
    col(states, (s) => responseId(s.response)),
    col(states, (s) => s.responseKey),
    col(states, (s) => s.evalKey),
    col(states, (s) => s.failedNights),
    col(states, (s) => s.lastChangeRunId),
    col(states, (s) => s.challengedSince),
    col(states, (s) => s.flappingSince),
    col(states, (s) => s.stableNights),
    col(states, (s) => JSON.stringify(s.recentVersions)),
  ];
  const { rows } = await db.query<{ site_id: number; run_id: number }>({
    name: 'night-store-states',
    text: `with v as (
             select * from unnest($1::int[], $2::int[], $3::int[], $4::timestamptz[], $5::fetch_outcome[], $6::smallint[], $7::effective_policy[],
                                  $8::text[], $9::timestamptz[], $10::int[], $11::int[], $12::int[], $13::timestamptz[], $14::int[], $15::bytea[],
                                  $16::int[], $17::fetch_outcome[], $18::int[], $19::bytea[], $20::bytea[], $21::int[], $22::int[],
                                  $23::timestamptz[], $24::timestamptz[], $25::int[], $26::jsonb[])
               as x(site_id, expected, run_id, run_at, outcome, status, policy, policy_reason, unreachable_since, rules_body_id, rules_run_id,
                    last_good_run_id, last_good_run_at, last_good_body_id, last_good_sha256, last_reachable_run_id, last_reachable_outcome,
                    response_id, response_key, eval_key, failed_nights, last_change_run_id,
                    challenged_since, flapping_since, stable_nights, recent_versions)
           ), updated as (
             update site_state st set run_id = v.run_id, run_at = v.run_at, outcome = v.outcome, status = v.status, policy = v.policy,
               policy_reason = v.policy_reason, unreachable_since = v.unreachable_since, rules_body_id = v.rules_body_id,
               rules_run_id = v.rules_run_id, last_good_run_id = v.last_good_run_id, last_good_run_at = v.last_good_run_at,
               last_good_body_id = v.last_good_body_id, last_good_sha256 = v.last_good_sha256, last_reachable_run_id = v.last_reachable_run_id,
               last_reachable_outcome = v.last_reachable_outcome, response_id = v.response_id, response_key = v.response_key,
               eval_key = v.eval_key, failed_nights = v.failed_nights, last_change_run_id = v.last_change_run_id,
               challenged_since = v.challenged_since, flapping_since = v.flapping_since, stable_nights = v.stable_nights,
               recent_versions = v.recent_versions, updated_at = now()
             from v where st.site_id = v.site_id and v.expected is not null and st.run_id = v.expected
             returning st.site_id, st.run_id
           ), inserted as (
             insert into site_state (site_id, run_id, run_at, outcome, status, policy, policy_reason, unreachable_since, rules_body_id, rules_run_id,
               last_good_run_id, last_good_run_at, last_good_body_id, last_good_sha256, last_reachable_run_id, last_reachable_outcome,
               response_id, response_key, eval_key, failed_nights, last_change_run_id,
               challenged_since, flapping_since, stable_nights, recent_versions)
             select site_id, run_id, run_at, outcome, status, policy, policy_reason, unreachable_since, rules_body_id, rules_run_id,
               last_good_run_id, last_good_run_at, last_good_body_id, last_good_sha256, last_reachable_run_id, last_reachable_outcome,
               response_id, response_key, eval_key, failed_nights, last_change_run_id,
               challenged_since, flapping_since, stable_nights, recent_versions
             from v where v.expected is null
             on conflict (site_id) do nothing
             returning site_id, run_id
           )
           select site_id, run_id from updated union all select site_id, run_id from inserted`,
    values,
  });
  const written = new Set(rows.map((r) => nightKey(r.site_id, r.run_id)));
  for (const n of withState) {
    const key = nightKey(n.siteId, n.runId);
    if (!written.has(key)) result.stale.add(key);
  }
}

/**
 * Raises the nights' alerts (idempotent on their dedupe key) and creates their deliveries to the
 * enabled per-alert channels at or above each channel's minimum severity. Returns the deliveries
 * created, to queue after the commit.
 */
async function raiseAlerts(db: pg.PoolClient, fresh: readonly SiteNight[]): Promise<number[]> {
  const drafts: { runId: number; siteId: number; draft: AlertDraft }[] = fresh.flatMap((n) => n.alerts.map((draft) => ({ runId: n.runId, siteId: n.siteId, draft })));
  if (drafts.length === 0) return [];
  const { rows: alerts } = await db.query<{ id: number; severity: AlertSeverityName }>({
    name: 'night-insert-alerts',
    text: `with x as (
             select * from unnest($1::text[], $2::int[], $3::int[], $4::alert_severity[], $5::text[], $6::text[], $7::text[])
               as x(dedupe_key, run_id, site_id, severity, kind, title, details)
           ), ins as (
             insert into alerts (dedupe_key, run_id, site_id, severity, kind, title, details)
             select dedupe_key, run_id, site_id, severity, kind, title, details::jsonb from x
             on conflict (dedupe_key) do nothing
             returning id, severity
           )
           select id, severity from ins
           union all
           select a.id, a.severity from alerts a join x on x.dedupe_key = a.dedupe_key`,
    values: [
      col(drafts, (d) => d.draft.dedupeKey),
      col(drafts, (d) => d.runId),
      col(drafts, (d) => d.siteId),
      col(drafts, (d) => d.draft.severity),
      col(drafts, (d) => d.draft.kind),
      col(drafts, (d) => pgText(d.draft.title)),
      col(drafts, (d) => pgJson(d.draft.details)),
    ],
  });
  const { rows: channels } = await db.query<{ id: number; min_severity: AlertSeverityName }>({
    name: 'night-alert-channels',
    text: 'select id, min_severity from alert_channels where enabled and not digest order by id',
  });
  const targets = channels.flatMap((c) => alerts.filter((a) => severitiesAtLeast(c.min_severity).includes(a.severity)).map((a) => ({ channelId: c.id, alertId: Number(a.id) })));
  if (targets.length === 0) return [];
  const { rows } = await db.query<{ id: string }>({
    name: 'night-insert-deliveries',
    text: `insert into alert_deliveries (channel_id, alert_id, dedupe_key)
           select * from unnest($1::int[], $2::bigint[], $3::text[])
           on conflict (dedupe_key) do nothing
           returning id`,
    values: [col(targets, (t) => t.channelId), col(targets, (t) => t.alertId), col(targets, (t) => deliveryDedupeKey(t))],
  });
  return rows.map((r) => Number(r.id));
}
