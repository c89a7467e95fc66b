/**
 * The drizzle schema: the system of record (house style, habit 5). Sized for SQL reporting at
 * 100,000 sites x 365 nights, where one table grows every night for every site: `snapshots`, a
 * row per site per run. A night that changes nothing adds that row and nothing else:
 *
 * - what repeats night after night is stored once and referenced by a 4-byte id: bodies with
 *   their parse summary (`bodies`), the headers, redirects and address of an answer (`responses`);
 * - verdicts are validity spans (`verdicts`): a verdict that did not change is not written again;
 * - the state the next night needs is one row per site (`site_state`), updated in place, so a
 *   night never reads a site's history;
 * - only retried attempts have rows of their own (`failed_attempts`); the final attempt is the
 *   snapshot;
 * - integer keys (4 bytes), enums as Postgres enums (4 bytes), timestamps as timestamptz; columns
 *   of the nightly table ordered widest first (8, 4, 2, 1 bytes, then variable length), so
 *   Postgres adds no alignment padding between them; no surrogate key on `snapshots`.
 *
 * Indexes are chosen for the queries the product runs and for deletes: every foreign key that
 * cascades from `sites` is backed by an index that leads with `site_id`, so removing a site does
 * not scan a year of rows. References between nights of the same site (`rules_run_id`,
 * `previous_run_id`) are not foreign keys: the worker that writes them knows they exist.
 *
 * Queries live in the `*.repo.ts` modules beside this file, not here.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  customType,
  index,
  inet,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  pgView,
  primaryKey,
  serial,
  smallint,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { FETCH_OUTCOMES } from '../policy/fetch-outcome.js';
import type { FlipRule, RedirectHop } from '../night/rows.js';
import type { UsageRule, UsageRules } from '../night/input.js';
import { DELIVERY_STATUSES, SEVERITIES } from '../night/vocabulary.js';
import type { StoredPreference, UsagePurpose } from '../night/vocabulary.js';
import type { UsagePreference } from '../robots/usage/vocabulary.js';
import { POLICY_KINDS } from '../policy/effective-policy.js';
import { IDENTITIES, IDENTITY_METHODS, JUDGEMENTS } from '../compliance/vocabulary.js';
import type { StoredPortability } from '../robots/profiles/portability.js';

/** Raw bytes (`bytea`); node-postgres reads and writes them as Buffers. */
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const createdAt = () => timestamptz('created_at').notNull().defaultNow();

// --- enums ---------------------------------------------------------------------------------

export const RUN_TRIGGERS = ['scheduled', 'manual'] as const;
export const RUN_STATUSES = ['running', 'completed', 'failed'] as const;
/** `email`: a `mailto:` channel, sent over SMTP (migration 0013). */
export const CHANNEL_KINDS = ['webhook', 'slack', 'email'] as const;

export const runTrigger = pgEnum('run_trigger', RUN_TRIGGERS);
export const runStatus = pgEnum('run_status', RUN_STATUSES);
/** R-10..R-15, D-4: the status class of a fetch (src/policy/fetch-outcome.ts). */
export const fetchOutcome = pgEnum('fetch_outcome', FETCH_OUTCOMES);
/** What a crawler applies after a fetch (src/policy/effective-policy.ts). */
export const effectivePolicy = pgEnum('effective_policy', POLICY_KINDS);
export const alertSeverity = pgEnum('alert_severity', SEVERITIES);
export const channelKind = pgEnum('channel_kind', CHANNEL_KINDS);
export const deliveryStatus = pgEnum('delivery_status', DELIVERY_STATUSES);

// --- what is monitored -----------------------------------------------------------------------

/** A named group of sites (a client, a brand) with agents evaluated on top of the global list. */
export const portfolios = pgTable(
  'portfolios',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull().unique(),
    /** Extra user-agent tokens evaluated for this portfolio's sites, beside `user_agents` defaults. */
    extraUserAgents: text('extra_user_agents').array().notNull().default(sql`'{}'::text[]`),
    createdAt: createdAt(),
    /**
     * A schedule of its own (`portfolios schedule`), beside the nightly run of every site: a cron
     * pattern (five fields, or six with seconds) and its IANA time zone; both null when it has none.
     * The scheduler keeps one BullMQ job scheduler per row that has one.
     */
    scheduleCron: text('schedule_cron'),
    scheduleTimezone: text('schedule_timezone'),
  },
  (t) => [check('portfolios_schedule_complete', sql`(${t.scheduleCron} is null) = (${t.scheduleTimezone} is null)`)],
);

/** One monitored origin (R-1..R-6): `origin` is always `normalizeOrigin()` output. */
export const sites = pgTable('sites', {
  id: serial('id').primaryKey(),
  origin: text('origin').notNull().unique(),
  /** Disabled sites keep their history but are left out of new runs. */
  enabled: boolean('enabled').notNull().default(true),
  /** Free-form `key -> value` tags (`team=seo`); re-adding a site merges them. */
  labels: jsonb('labels').$type<Record<string, string>>().notNull().default({}),
  createdAt: createdAt(),
});

/** Membership: a site may belong to several portfolios. */
export const portfolioSites = pgTable(
  'portfolio_sites',
  {
    portfolioId: integer('portfolio_id')
      .notNull()
      .references(() => portfolios.id, { onDelete: 'cascade' }),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.portfolioId, t.siteId] }), index('portfolio_sites_site_idx').on(t.siteId)],
);

// --- runs, fetches and snapshots -------------------------------------------------------------

/**
 * One audit run (a night, or a manual run). `run_key` is deterministic (`nightly-2026-11-22`,
 * `manual-<uuid>`) so a second scheduler firing for the same night adds nothing.
 */
export const auditRuns = pgTable('audit_runs', {
  id: serial('id').primaryKey(),
  runKey: text('run_key').notNull().unique(),
  trigger: runTrigger('trigger').notNull(),
  /** Set when the run is limited to one portfolio. */
  portfolioId: integer('portfolio_id').references(() => portfolios.id, { onDelete: 'set null' }),
  /** The policy clock of the run (`audit --at`): the 30-day fallback (D-3) counts with it. */
  runAt: timestamptz('run_at').notNull(),
  startedAt: timestamptz('started_at'),
  finishedAt: timestamptz('finished_at'),
  status: runStatus('status').notNull().default('running'),
  sitesTotal: integer('sites_total').notNull().default(0),
  /**
   * The sites of the run, as they were when it started (what reconciling a run after lost jobs
   * compares with). NULL for runs older than migration 0005.
   */
  siteIds: integer('site_ids').array(),
  /**
   * Sites whose night is stored, each counted once, by the transaction that stores it: the run
   * can end when this plus the skipped and failed sites reach sitesTotal, a check that costs one
   * row read.
   */
  sitesDone: integer('sites_done').notNull().default(0),
  /**
   * Totals by group, added to by the same transactions, e.g.
   * `{"outcome":{"ok":98,"server_error":2},"policy":{...},"change":{"rules":1}}`; `skipped` and
   * `failed` map the site ids left out of the run (removed while it ran, or failed for good);
   * `waiting`, `pending` and `late` map site ids to when their retry is due (RunCounts).
   */
  counts: jsonb('counts').$type<RunCounts>().notNull().default({}),
  createdAt: createdAt(),
});

/**
 * The groups of `audit_runs.counts` that map a site id to when its retry is due (ISO time), not
 * to a number (issue 26): `waiting`, every site whose retry is scheduled (its site job is
 * delayed); `pending`, those of them due past ROBOTS_AUDIT_RUN_HOLD_SECONDS, which the run does
 * not wait for; `late`, the sites that were pending when the run completed (kept after their
 * nights come: the run's late digest carries their alerts). A site leaves `waiting` and
 * `pending` in the transaction that stores its night, or when it is counted skipped or failed.
 */
export const RUN_WAIT_GROUPS = ['waiting', 'pending', 'late'] as const;

export interface RunCounts {
  outcome?: Record<string, number>;
  policy?: Record<string, number>;
  change?: Record<string, number>;
  skipped?: Record<string, number>;
  failed?: Record<string, number>;
  waiting?: Record<string, string>;
  pending?: Record<string, string>;
  late?: Record<string, string>;
  [group: string]: Record<string, number> | Record<string, string> | undefined;
}

/**
 * A robots.txt body, stored once per distinct content (R-18 / D-6: at most the kept bytes),
 * with what every night would otherwise recompute from it: the parse summary and lint counts.
 * Nightly rows reference it by `id` (4 bytes) rather than by its 33-byte hash.
 */
export const bodies = pgTable(
  'bodies',
  {
    id: serial('id').primaryKey(),
    sha256: bytea('sha256').notNull().unique(),
    content: bytea('content').notNull(),
    size: integer('size').notNull(),
    rules: integer('rules').notNull().default(0),
    groups: smallint('groups').notNull().default(0),
    sitemaps: smallint('sitemaps').notNull().default(0),
    lintErrors: smallint('lint_errors').notNull().default(0),
    lintWarnings: smallint('lint_warnings').notNull().default(0),
    lintInfos: smallint('lint_infos').notNull().default(0),
    /** The values of its `Content-Signal` lines (AI use preferences), in file order. */
    contentSignals: text('content_signals').array().notNull().default(sql`'{}'::text[]`),
    /** Its rules (`body_rules`) and root access per crawler (`body_agent_access`) are stored. */
    indexed: boolean('indexed').notNull().default(false),
    createdAt: createdAt(),
    /**
     * The rules other parsers read differently from Google's (src/robots/profiles/portability.ts),
     * computed once per body after the run that stored it, off the nights' path (issue 26:
     * src/services/portability-analysis.service.ts); NULL until then.
     */
    portability: jsonb('portability').$type<StoredPortability>(),
    /** PORTABILITY_VERSION of `portability`; 0: not analysed yet. Older than the current version: analysed again. */
    portabilityVersion: smallint('portability_version').notNull().default(0),
  },
  (t) => [
    check('bodies_sha256_length', sql`octet_length(${t.sha256}) = 32`),
    // "Which sites have lint errors" (docs/sql-reporting.md): the few bodies with any.
    index('bodies_lint_errors_idx').on(t.id).where(sql`${t.lintErrors} > 0`),
    // The analysis job's queue of bodies: those of an older version (0: never analysed) come first.
    index('bodies_portability_version_idx').on(t.portabilityVersion, t.id),
  ],
);

/**
 * The groups of a body, for SQL reports: each group's user-agent values as written, stored once
 * (a group of 15,000 user-agent lines is one row, not a copy in each of its rules' rows: house
 * style, habit 12). Written once per distinct body, with it.
 */
export const bodyGroups = pgTable(
  'body_groups',
  {
    bodyId: integer('body_id')
      .notNull()
      .references(() => bodies.id, { onDelete: 'cascade' }),
    /** 0-based index of the group in the file. */
    groupNo: smallint('group_no').notNull(),
    /** The user-agent values of the group as written. */
    userAgents: text('user_agents').array().notNull(),
  },
  (t) => [primaryKey({ name: 'body_groups_pkey', columns: [t.bodyId, t.groupNo] })],
);

/**
 * The rules of a body, flattened for SQL reports (the current rules of a site are its rules
 * body's): one row per allow/disallow line; its group's user-agents are in `body_groups`.
 * Written once per distinct body, with it.
 */
export const bodyRules = pgTable(
  'body_rules',
  {
    bodyId: integer('body_id')
      .notNull()
      .references(() => bodies.id, { onDelete: 'cascade' }),
    line: integer('line').notNull(),
    /** 0-based index of the group in the file (`body_groups`). */
    groupNo: smallint('group_no').notNull(),
    kind: text('kind').notNull(),
    /** As written. */
    value: text('value').notNull(),
    /** As matched (T28, T49: %-normalised). */
    pattern: text('pattern').notNull(),
  },
  (t) => [primaryKey({ name: 'body_rules_pkey', columns: [t.bodyId, t.line] })],
);

/**
 * Whether a crawler may fetch the root (`/`) under a body's rules, as the engine decides for it
 * (R-40..R-44): a row for `*` (what every crawler without a group of its own gets) and one for
 * each catalogued crawler whose answer differs from it. A crawler's access is its own row, else
 * the `*` row (`robots_audit_root_access()`). Written once per distinct body, with it.
 */
export const bodyAgentAccess = pgTable(
  'body_agent_access',
  {
    bodyId: integer('body_id')
      .notNull()
      .references(() => bodies.id, { onDelete: 'cascade' }),
    /** Lower-cased token, or `*`. */
    token: text('token').notNull(),
    ruleLine: integer('rule_line'),
    allowed: boolean('allowed').notNull(),
  },
  (t) => [
    primaryKey({ name: 'body_agent_access_pkey', columns: [t.bodyId, t.token] }),
    // "Which sites block GPTBot": the bodies that close the root to one token (or to `*`), read
    // without the others (the dashboard's AI page and its CSV).
    index('body_agent_access_token_idx').on(t.token, t.allowed, t.bodyId),
  ],
);

/**
 * What a server answered besides the body: the headers that matter, the redirect chain
 * and the address the answer came from. Stored once per distinct combination (`key`, a hash of
 * all of it), so the headers a site sends night after night are not stored again: a night
 * references the row by id.
 */
export const responses = pgTable(
  'responses',
  {
    id: serial('id').primaryKey(),
    /** First 16 bytes of the SHA-256 of the row's canonical JSON (src/db/responses.ts). */
    key: bytea('key').notNull().unique(),
    /** NULL when there was no redirect: the final URL is then the requested one. */
    finalUrl: text('final_url'),
    /** the redirect chain; NULL when there was no redirect. */
    hops: jsonb('hops').$type<RedirectHop[]>(),
    remoteAddress: text('remote_address'),
    contentType: text('content_type'),
    contentEncoding: text('content_encoding'),
    cacheControl: text('cache_control'),
    expires: text('expires'),
    age: text('age'),
    retryAfter: text('retry_after'),
    lastModified: text('last_modified'),
    etag: text('etag'),
    createdAt: createdAt(),
  },
  (t) => [check('responses_key_length', sql`octet_length(${t.key}) = 16`)],
);

/**
 * Exactly one row per site per run: the final fetch attempt of the night and the policy a
 * crawler applies (R-10..R-15, D-3, D-4). The per-night record of the product, kept narrow:
 * what repeats night after night lives elsewhere and is referenced by id (`bodies` with their
 * parse summary, `responses` with the headers); the requested URL is the site's origin +
 * `/robots.txt`. Earlier attempts of a night, retried after a 5xx or a network failure,
 * are in `failed_attempts`; the view `fetch_attempts` shows every attempt.
 *
 * The primary key orders a site's history by the run clock (`run_at`, what `audit --at` sets),
 * so "the night before N" and "the latest night" are index lookups even when nights were
 * replayed out of order; it also serves the cascade from `sites`. A BRIN index on `run_id`
 * answers "every snapshot of run R" (rows arrive in run order) for a few kilobytes.
 */
export const snapshots = pgTable(
  'snapshots',
  {
    /** The run's clock (audit_runs.run_at), repeated here to order a site's history. */
    runAt: timestamptz('run_at').notNull(),
    /** When the final attempt started. */
    fetchedAt: timestamptz('fetched_at').notNull(),
    /** Start of the current 5xx / network-failure streak (R-13, R-15, D-3); NULL when reached. */
    unreachableSince: timestamptz('unreachable_since'),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    runId: integer('run_id')
      .notNull()
      .references(() => auditRuns.id),
    durationMs: integer('duration_ms').notNull(),
    /** The kept body (R-18, D-6), for `ok` only. */
    bodyId: integer('body_id').references(() => bodies.id),
    /** Headers, redirects and address of the final answer; NULL when none arrived. */
    responseId: integer('response_id').references(() => responses.id),
    /**
     * Under the 30-day fallback (D-3) with rules: the run of the same site whose body applies.
     * NULL otherwise: an `ok` night applies its own body, and allow_all / disallow_all none.
     */
    rulesRunId: integer('rules_run_id'),
    /** the lifetime computed from Cache-Control / Expires / Age, seconds. */
    cacheLifetimeSeconds: integer('cache_lifetime_seconds'),
    /** The full size when known and different from the kept bytes (a cut body, a 4xx page). */
    fullSize: integer('full_size'),
    outcome: fetchOutcome('outcome').notNull(),
    policy: effectivePolicy('policy').notNull(),
    /** The final HTTP status; null when no response arrived. */
    status: smallint('status'),
    /** Attempts made in the run, the final one included. */
    attempts: smallint('attempts').notNull(),
    truncated: boolean('truncated').notNull().default(false),
    /** The spec rule behind `policy`: 'R-10', 'R-11', 'R-12', 'D-4', 'R-13', 'R-15', 'D-3'. */
    policyReason: text('policy_reason').notNull(),
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
    /** The site was flapping this night (src/policy/flapping.ts): its changes raised no alerts of their own. */
    flapping: boolean('flapping').notNull().default(false),
    /**
     * The confirmation fetch's body hash when it disagreed with the first answer (both versions
     * recorded; the site flaps from that night). NULL when there was none or it agreed.
     */
    confirmSha256: bytea('confirm_sha256'),
  },
  (t) => [
    primaryKey({ name: 'snapshots_pkey', columns: [t.siteId, t.runAt, t.runId] }),
    index('snapshots_run_brin').using('brin', t.runId),
    // Reports (docs/sql-reporting.md) on the few nights that are not ordinary, without reading a
    // year of the others: the nights that did not reach their site (5xx streaks, R-13, R-15), in
    // streak order and covering what the streak query reads; the nights whose body was cut.
    index('snapshots_unreachable_idx')
      .on(t.siteId, t.unreachableSince, t.runAt, t.outcome)
      .where(sql`${t.outcome} in ('server_error', 'network_error')`),
    index('snapshots_truncated_idx').on(t.siteId, t.runAt).where(sql`${t.truncated}`),
  ],
);

/**
 * The attempts of a night that were retried: every attempt but the final one, which
 * is the night's snapshot. Most nights have none. Keyed like a night, plus the attempt number.
 */
export const failedAttempts = pgTable(
  'failed_attempts',
  {
    startedAt: timestamptz('started_at').notNull(),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    runId: integer('run_id')
      .notNull()
      .references(() => auditRuns.id),
    durationMs: integer('duration_ms').notNull(),
    responseId: integer('response_id').references(() => responses.id),
    fullSize: integer('full_size'),
    outcome: fetchOutcome('outcome').notNull(),
    /** 1-based attempt number within the run. */
    attempt: smallint('attempt').notNull(),
    status: smallint('status'),
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
  },
  (t) => [primaryKey({ name: 'failed_attempts_pkey', columns: [t.siteId, t.runId, t.attempt] })],
);

/**
 * The latest state of every site, written in the transaction that stores its latest night: what
 * the next night needs (the previous outcome and policy, the 30-day streak, the last good body,
 * the headers last seen, whether the verdicts need evaluating again), so that a night reads one
 * row instead of the site's history. A night replayed out of order (an earlier `audit --at`)
 * reads the history instead and leaves this row alone.
 * Stored with fillfactor 50 (migration 0008, which drizzle does not model): every site's row is
 * updated every night and only site_id is indexed, so with room on its page each update is HOT.
 */
export const siteState = pgTable('site_state', {
  siteId: integer('site_id')
    .primaryKey()
    .references(() => sites.id, { onDelete: 'cascade' }),
  /** The latest night: its run and the run's clock. Also the row's version (optimistic writes). */
  runId: integer('run_id').notNull(),
  runAt: timestamptz('run_at').notNull(),
  outcome: fetchOutcome('outcome').notNull(),
  status: smallint('status'),
  policy: effectivePolicy('policy').notNull(),
  policyReason: text('policy_reason').notNull(),
  unreachableSince: timestamptz('unreachable_since'),
  /** The body whose rules apply now (policy `rules`): this night's, or the last good one (D-3). */
  rulesBodyId: integer('rules_body_id'),
  /** The run whose body applies now (policy `rules`). */
  rulesRunId: integer('rules_run_id'),
  /** The latest `ok` night: its body is what the next body is compared with, and D-3's copy. */
  lastGoodRunId: integer('last_good_run_id'),
  lastGoodRunAt: timestamptz('last_good_run_at'),
  lastGoodBodyId: integer('last_good_body_id'),
  lastGoodSha256: bytea('last_good_sha256'),
  /** D-3: the latest night that reached the site (not 5xx, not a network failure). */
  lastReachableRunId: integer('last_reachable_run_id'),
  lastReachableOutcome: fetchOutcome('last_reachable_outcome'),
  /** The responses row of the latest answer and its key, to reuse it when nothing changed. */
  responseId: integer('response_id'),
  responseKey: bytea('response_key'),
  /**
   * A hash of what decides the verdicts: the engine version, the policy, the rules body and the
   * tracked targets. Unchanged: the verdicts are not evaluated again (their spans stay open).
   */
  evalKey: bytea('eval_key'),
  /** Consecutive nights without reaching the site (5xx, network failure); 0 when reached. */
  failedNights: integer('failed_nights').notNull().default(0),
  /** The latest night with a change (snapshot_changes). */
  lastChangeRunId: integer('last_change_run_id'),
  /** The first night of the current run of bot challenges (outcome `challenged`): the policy is unverified since. */
  challengedSince: timestamptz('challenged_since'),
  /** The night the site started flapping between versions (src/policy/flapping.ts); NULL when it is not. */
  flappingSince: timestamptz('flapping_since'),
  /** Nights in a row the same version came back (settles a flapping site after M). */
  stableNights: integer('stable_nights').notNull().default(0),
  /** The last versions seen (K nights): `[{ sha256 (hex), runId, runAt }]`, newest last. */
  recentVersions: jsonb('recent_versions').$type<{ sha256: string; runId: number; runAt: string }[]>().notNull().default([]),
  updatedAt: timestamptz('updated_at').notNull().defaultNow(),
});

/**
 * The latest night of every site, for reports: one row per site that has one (site_state), with
 * its snapshot's details, the body's size and parse summary.
 */
export const siteLatest = pgView('site_latest', {
  siteId: integer('site_id').notNull(),
  origin: text('origin').notNull(),
  enabled: boolean('enabled').notNull(),
  runId: integer('run_id').notNull(),
  runAt: timestamptz('run_at').notNull(),
  fetchedAt: timestamptz('fetched_at').notNull(),
  outcome: fetchOutcome('outcome').notNull(),
  status: smallint('status'),
  policy: effectivePolicy('policy').notNull(),
  policyReason: text('policy_reason').notNull(),
  rulesRunId: integer('rules_run_id'),
  unreachableSince: timestamptz('unreachable_since'),
  failedNights: integer('failed_nights').notNull(),
  lastChangeRunId: integer('last_change_run_id'),
  bodyId: integer('body_id'),
  bodySha256: bytea('body_sha256'),
  bodyBytes: integer('body_bytes').notNull(),
  truncated: boolean('truncated').notNull(),
  groups: smallint('groups').notNull(),
  rules: integer('rules').notNull(),
  sitemaps: smallint('sitemaps').notNull(),
  lintErrors: smallint('lint_errors').notNull(),
  lintWarnings: smallint('lint_warnings').notNull(),
  lintInfos: smallint('lint_infos').notNull(),
}).as(sql`
  select s.id as site_id, s.origin, s.enabled,
         st.run_id, st.run_at, n.fetched_at, st.outcome, st.status, st.policy, st.policy_reason, st.rules_run_id,
         st.unreachable_since, st.failed_nights, st.last_change_run_id,
         n.body_id, b.sha256 as body_sha256, coalesce(b.size, 0) as body_bytes, n.truncated,
         coalesce(b.groups, 0::smallint) as groups, coalesce(b.rules, 0) as rules, coalesce(b.sitemaps, 0::smallint) as sitemaps,
         coalesce(b.lint_errors, 0::smallint) as lint_errors, coalesce(b.lint_warnings, 0::smallint) as lint_warnings,
         coalesce(b.lint_infos, 0::smallint) as lint_infos
  from sites s
  join site_state st on st.site_id = s.id
  join snapshots n on n.site_id = st.site_id and n.run_at = st.run_at and n.run_id = st.run_id
  left join bodies b on b.id = n.body_id`);

/**
 * Every fetch attempt, as one table: the retried ones (`failed_attempts`) and each night's final
 * one (`snapshots`), with the requested URL, the headers and the body's hash and size.
 */
export const fetchAttemptsView = pgView('fetch_attempts', {
  siteId: integer('site_id').notNull(),
  runId: integer('run_id').notNull(),
  attempt: smallint('attempt').notNull(),
  final: boolean('final').notNull(),
  startedAt: timestamptz('started_at').notNull(),
  durationMs: integer('duration_ms').notNull(),
  outcome: fetchOutcome('outcome').notNull(),
  status: smallint('status'),
  errorCode: text('error_code'),
  errorMessage: text('error_message'),
  requestedUrl: text('requested_url').notNull(),
  finalUrl: text('final_url').notNull(),
  hops: jsonb('hops').$type<RedirectHop[]>(),
  remoteAddress: text('remote_address'),
  bodySha256: bytea('body_sha256'),
  bodyBytes: integer('body_bytes').notNull(),
  fullSize: integer('full_size'),
  truncated: boolean('truncated').notNull(),
  cacheLifetimeSeconds: integer('cache_lifetime_seconds'),
  contentType: text('content_type'),
  contentEncoding: text('content_encoding'),
  cacheControl: text('cache_control'),
  expires: text('expires'),
  age: text('age'),
  retryAfter: text('retry_after'),
  lastModified: text('last_modified'),
  etag: text('etag'),
}).as(sql`
  select a.site_id, a.run_id, a.attempt, a.final, a.started_at, a.duration_ms, a.outcome, a.status, a.error_code, a.error_message,
         s.origin || '/robots.txt' as requested_url, coalesce(r.final_url, s.origin || '/robots.txt') as final_url, r.hops,
         r.remote_address, b.sha256 as body_sha256, coalesce(b.size, 0) as body_bytes,
         case when a.truncated then a.full_size else coalesce(a.full_size, b.size) end as full_size, a.truncated,
         a.cache_lifetime_seconds, r.content_type, r.content_encoding, r.cache_control, r.expires, r.age, r.retry_after,
         r.last_modified, r.etag
  from (
    select site_id, run_id, attempt, false as final, started_at, duration_ms, outcome, status, error_code, error_message,
           response_id, null::integer as body_id, full_size, false as truncated, null::integer as cache_lifetime_seconds
    from failed_attempts
    union all
    select site_id, run_id, attempts, true, fetched_at, duration_ms, outcome, status, error_code, error_message,
           response_id, body_id, full_size, truncated, cache_lifetime_seconds
    from snapshots
  ) a
  join sites s on s.id = a.site_id
  left join responses r on r.id = a.response_id
  left join bodies b on b.id = a.body_id`);

// --- issue 4: nightly diffs, verdicts, alerts ------------------------------------------------

/**
 * What changed in a site's night against its previous one; a row only when something did (or
 * the site is seen for the first time). `kinds`: 'first_seen', 'raw', 'rules', 'comments_only',
 * 'sitemaps', 'records', 'outcome', 'policy', 'fallback_started', 'fallback_ended'. One per
 * (site, run), written in the transaction that stores the night.
 */
export const snapshotChanges = pgTable(
  'snapshot_changes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    runId: integer('run_id')
      .notNull()
      .references(() => auditRuns.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    /** The run of the night compared against; NULL for first_seen. */
    previousRunId: integer('previous_run_id'),
    outcomeFrom: fetchOutcome('outcome_from'),
    outcomeTo: fetchOutcome('outcome_to').notNull(),
    policyFrom: effectivePolicy('policy_from'),
    policyTo: effectivePolicy('policy_to').notNull(),
    kinds: text('kinds').array().notNull(),
    /** Unified diff of the bodies, when the raw text changed. */
    textDiff: text('text_diff'),
    /** Rules added / removed per group, when the rules changed. */
    ruleDiff: jsonb('rule_diff'),
    createdAt: createdAt(),
  },
  (t) => [
    index('snapshot_changes_run_idx').on(t.runId),
    uniqueIndex('snapshot_changes_site_run_key').on(t.siteId, t.runId),
    // The dashboard: a night's changes by site with their kinds, without the rows (probes of
    // "does this night have a change that matches", counts, charts); and the nights of a rare kind.
    index('snapshot_changes_run_site_idx').on(t.runId, t.siteId, t.kinds),
    index('snapshot_changes_kinds_idx').using('gin', t.kinds),
    // The runs page (run_summary's changes of a run): the changes that are not a first sighting. A
    // run's first night at 1,000,000 sites has as many first sightings, which the count read whole.
    index('snapshot_changes_run_changed_idx').on(t.runId).where(sql`${t.kinds} <> '{first_seen}'::text[]`),
  ],
);

/**
 * The user-agent tokens evaluated for every tracked URL (`is_default`), editable. Tokens are
 * stored as given and compared lower-case (C10: Google lower-cases the token), hence the unique
 * index on lower(token). Retire an agent by clearing `is_default`: its verdicts reference it.
 */
export const userAgents = pgTable(
  'user_agents',
  {
    id: serial('id').primaryKey(),
    token: text('token').notNull(),
    /** 'search', 'ai', 'seo', 'social', 'other' (what alerts use). */
    family: text('family'),
    /** The crawler catalogue (src/crawlers): 'search', 'ai-training', 'ai-search', 'ai-assistant', 'seo', 'archive', 'other'. */
    category: text('category'),
    /** Who runs the crawler, from the catalogue. */
    operator: text('operator'),
    isDefault: boolean('is_default').notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('user_agents_token_lower_key').on(sql`lower(${t.token})`)],
);

/**
 * URLs whose verdicts are evaluated every night, in canonical form (D-5, `canonicalUrl()`).
 * The site root is an ordinary row with `url = '<origin>/'` and `is_root = true`, created when
 * the site is added (sites.repo), so the worker evaluates every site's root without special
 * cases; at most one root per site (partial unique index).
 */
export const trackedUrls = pgTable(
  'tracked_urls',
  {
    id: serial('id').primaryKey(),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    /** Path + query as matched against the rules (D-5). */
    path: text('path').notNull(),
    isRoot: boolean('is_root').notNull().default(false),
    /** Agents evaluated for this URL on top of the defaults and the portfolio's extras. */
    extraAgents: text('extra_agents').array().notNull().default(sql`'{}'::text[]`),
    createdAt: createdAt(),
  },
  (t) => [
    unique('tracked_urls_site_url_key').on(t.siteId, t.url),
    uniqueIndex('tracked_urls_one_root_per_site').on(t.siteId).where(sql`${t.isRoot}`),
  ],
);

/**
 * Verdicts as validity spans: one row per tracked URL x agent for each stretch of nights over
 * which its verdict (allowed, deciding line) stayed the same. A night that changes nothing writes
 * nothing; a flip closes the open span (`to_run_id`, `valid_to`) and opens a new one. "The
 * verdict on night N" is the span with `valid_from <= N < valid_to` (`valid_to` NULL: still
 * holds); "now" is the open span, at most one per URL x agent (partial unique index). The key
 * leads with `tracked_url_id`: a URL's history and the cascade from `tracked_urls` use it.
 * `valid_from` / `valid_to` are run clocks (audit_runs.run_at) of the nights that opened and
 * closed the span.
 */
export const verdicts = pgTable(
  'verdicts',
  {
    validFrom: timestamptz('valid_from').notNull(),
    validTo: timestamptz('valid_to'),
    trackedUrlId: integer('tracked_url_id')
      .notNull()
      .references(() => trackedUrls.id, { onDelete: 'cascade' }),
    userAgentId: integer('user_agent_id')
      .notNull()
      .references(() => userAgents.id),
    /** The run of the first night of the span. */
    fromRunId: integer('from_run_id').notNull(),
    /** The run of the first night it no longer held; NULL while it holds. */
    toRunId: integer('to_run_id'),
    /** The deciding rule's line in the policy's body; NULL: no rule matched. */
    ruleLine: integer('rule_line'),
    allowed: boolean('allowed').notNull(),
    /**
     * The crawler's known or assumed parser (a profile, src/robots/profiles) and its verdict from
     * the same bytes, set only where it differs from `allowed` (Google's parser's); both NULL
     * otherwise (the parsers agree, the parser is Google's or unknown, or the policy decides).
     * Part of the span: a change to it closes the span and opens another (not a flip).
     */
    parserProfile: text('parser_profile'),
    parserAllowed: boolean('parser_allowed'),
    /**
     * The usage preferences the crawler is told for a URL it may fetch (src/robots/usage,
     * docs/usage-preferences.md): each purpose allowed (true), refused (false) or unknown (NULL);
     * all NULL when it may not fetch it (D-9). Part of the span, like the parser verdict.
     */
    usageSearch: boolean('usage_search'),
    usageAiTrain: boolean('usage_ai_train'),
    usageAiInput: boolean('usage_ai_input'),
    /** The deciding line of each stated purpose, and since when it holds (UsageRules); NULL when none is stated. */
    usageRules: jsonb('usage_rules').$type<UsageRules>(),
    /** Written by a release that reads usage preferences (migration 0020); false on older spans, whose preferences were never read. */
    usageRead: boolean('usage_read').notNull().default(false),
  },
  (t) => [
    primaryKey({ name: 'verdicts_pkey', columns: [t.trackedUrlId, t.userAgentId, t.validFrom, t.fromRunId] }),
    uniqueIndex('verdicts_open_key').on(t.trackedUrlId, t.userAgentId).where(sql`${t.toRunId} is null`),
    // "Which sites block GPTBot now": the open spans of one agent, without reading the others.
    index('verdicts_open_agent_idx').on(t.userAgentId, t.allowed).where(sql`${t.toRunId} is null`),
    // The dashboard's chart of AI blocking over the year: every span that blocks, by agent.
    index('verdicts_blocked_agent_idx').on(t.userAgentId, t.trackedUrlId, t.validFrom, t.validTo).where(sql`not ${t.allowed}`),
  ],
);

/**
 * The verdicts under every site's latest night: each tracked URL x agent still evaluated,
 * allowed or not and the deciding line, for "what is blocked right now" reports. The open spans.
 */
export const verdictLatest = pgView('verdict_latest', {
  siteId: integer('site_id').notNull(),
  origin: text('origin').notNull(),
  trackedUrlId: integer('tracked_url_id').notNull(),
  url: text('url').notNull(),
  isRoot: boolean('is_root').notNull(),
  userAgentId: integer('user_agent_id').notNull(),
  token: text('token').notNull(),
  family: text('family'),
  runId: integer('run_id').notNull(),
  runAt: timestamptz('run_at').notNull(),
  policy: effectivePolicy('policy').notNull(),
  allowed: boolean('allowed').notNull(),
  ruleLine: integer('rule_line'),
  since: timestamptz('since').notNull(),
  sinceRunId: integer('since_run_id').notNull(),
  parserProfile: text('parser_profile'),
  parserAllowed: boolean('parser_allowed'),
  /** Each purpose's usage preference (docs/usage-preferences.md): allowed, refused, unknown or not-crawlable. */
  usageSearch: text('usage_search').$type<UsagePreference>().notNull(),
  usageAiTrain: text('usage_ai_train').$type<UsagePreference>().notNull(),
  usageAiInput: text('usage_ai_input').$type<UsagePreference>().notNull(),
  usageRules: jsonb('usage_rules').$type<UsageRules>(),
}).as(sql`
  select st.site_id, s.origin, t.id as tracked_url_id, t.url, t.is_root, a.id as user_agent_id, a.token, a.family,
         st.run_id, st.run_at, st.policy, v.allowed, v.rule_line, v.valid_from as since, v.from_run_id as since_run_id,
         v.parser_profile, v.parser_allowed,
         robots_audit_usage(v.allowed, v.usage_search) as usage_search,
         robots_audit_usage(v.allowed, v.usage_ai_train) as usage_ai_train,
         robots_audit_usage(v.allowed, v.usage_ai_input) as usage_ai_input,
         v.usage_rules
  from site_state st
  join sites s on s.id = st.site_id
  join tracked_urls t on t.site_id = st.site_id
  join verdicts v on v.tracked_url_id = t.id and v.to_run_id is null
  join user_agents a on a.id = v.user_agent_id`);

/**
 * Every verdict span with its site, URL and agent: the verdicts of any night, for reports
 * ("the verdict of URL X for agent Y on night N": `valid_from <= N and (valid_to is null or
 * valid_to > N)`).
 */
export const verdictHistory = pgView('verdict_history', {
  siteId: integer('site_id').notNull(),
  origin: text('origin').notNull(),
  trackedUrlId: integer('tracked_url_id').notNull(),
  url: text('url').notNull(),
  isRoot: boolean('is_root').notNull(),
  userAgentId: integer('user_agent_id').notNull(),
  token: text('token').notNull(),
  family: text('family'),
  validFrom: timestamptz('valid_from').notNull(),
  validTo: timestamptz('valid_to'),
  fromRunId: integer('from_run_id').notNull(),
  toRunId: integer('to_run_id'),
  allowed: boolean('allowed').notNull(),
  ruleLine: integer('rule_line'),
  parserProfile: text('parser_profile'),
  parserAllowed: boolean('parser_allowed'),
  usageSearch: text('usage_search').$type<UsagePreference>().notNull(),
  usageAiTrain: text('usage_ai_train').$type<UsagePreference>().notNull(),
  usageAiInput: text('usage_ai_input').$type<UsagePreference>().notNull(),
  usageRules: jsonb('usage_rules').$type<UsageRules>(),
}).as(sql`
  select t.site_id, s.origin, t.id as tracked_url_id, t.url, t.is_root, a.id as user_agent_id, a.token, a.family,
         v.valid_from, v.valid_to, v.from_run_id, v.to_run_id, v.allowed, v.rule_line, v.parser_profile, v.parser_allowed,
         robots_audit_usage(v.allowed, v.usage_search) as usage_search,
         robots_audit_usage(v.allowed, v.usage_ai_train) as usage_ai_train,
         robots_audit_usage(v.allowed, v.usage_ai_input) as usage_ai_input,
         v.usage_rules
  from verdicts v
  join tracked_urls t on t.id = v.tracked_url_id
  join sites s on s.id = t.site_id
  join user_agents a on a.id = v.user_agent_id`);

/**
 * A verdict that changed since the previous run. `cause`: 'rules_changed', 'outcome_changed',
 * 'fallback_started', 'fallback_ended', 'first_seen'.
 */
export const verdictFlips = pgTable(
  'verdict_flips',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    runId: integer('run_id')
      .notNull()
      .references(() => auditRuns.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    trackedUrlId: integer('tracked_url_id')
      .notNull()
      .references(() => trackedUrls.id, { onDelete: 'cascade' }),
    userAgentId: integer('user_agent_id')
      .notNull()
      .references(() => userAgents.id),
    /** NULL when there was no earlier verdict (first_seen). */
    fromAllowed: boolean('from_allowed'),
    toAllowed: boolean('to_allowed').notNull(),
    cause: text('cause').notNull(),
    ruleBefore: jsonb('rule_before').$type<FlipRule>(),
    ruleAfter: jsonb('rule_after').$type<FlipRule>(),
    createdAt: createdAt(),
  },
  (t) => [
    unique('verdict_flips_url_run_agent_key').on(t.trackedUrlId, t.runId, t.userAgentId),
    index('verdict_flips_run_idx').on(t.runId),
    // The dashboard: "does this night have a flip of this cause, this crawler, this portfolio's site".
    index('verdict_flips_run_cause_idx').on(t.runId, t.cause, t.userAgentId, t.siteId),
    index('verdict_flips_site_idx').on(t.siteId),
  ],
);

/**
 * A usage preference that changed for a tracked URL x agent, the crawler allowed to fetch the URL
 * on both nights (D-15): one row a purpose a night. `from` / `to`: allowed, refused or unknown.
 */
export const usageFlips = pgTable(
  'usage_flips',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    runId: integer('run_id')
      .notNull()
      .references(() => auditRuns.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    trackedUrlId: integer('tracked_url_id')
      .notNull()
      .references(() => trackedUrls.id, { onDelete: 'cascade' }),
    userAgentId: integer('user_agent_id')
      .notNull()
      .references(() => userAgents.id),
    purpose: text('purpose').$type<UsagePurpose>().notNull(),
    fromPreference: text('from_preference').$type<StoredPreference>().notNull(),
    toPreference: text('to_preference').$type<StoredPreference>().notNull(),
    ruleBefore: jsonb('rule_before').$type<UsageRule>(),
    ruleAfter: jsonb('rule_after').$type<UsageRule>(),
    createdAt: createdAt(),
  },
  (t) => [
    unique('usage_flips_url_run_agent_purpose_key').on(t.trackedUrlId, t.runId, t.userAgentId, t.purpose),
    index('usage_flips_run_idx').on(t.runId),
    index('usage_flips_site_idx').on(t.siteId),
  ],
);

/** An alert raised once: `dedupe_key` (e.g. `run12:site7:rules`) makes raising idempotent. */
export const alerts = pgTable(
  'alerts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    dedupeKey: text('dedupe_key').notNull().unique(),
    runId: integer('run_id').references(() => auditRuns.id),
    /** NULL for run-level alerts (a failed run). */
    siteId: integer('site_id').references(() => sites.id, { onDelete: 'cascade' }),
    severity: alertSeverity('severity').notNull(),
    kind: text('kind').notNull(),
    title: text('title').notNull(),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [
    index('alerts_run_idx').on(t.runId),
    index('alerts_site_idx').on(t.siteId),
    // The dashboard: a night's alerts at least so severe (by site), and the nights of one kind.
    index('alerts_run_severity_idx').on(t.runId, t.severity, t.siteId),
    index('alerts_kind_run_idx').on(t.kind, t.runId),
  ],
);

/**
 * Where alerts go: a webhook (signed with `secret` when set), a Slack incoming webhook, or e-mail
 * (`url` is `mailto:` and the addresses, sent through ROBOTS_AUDIT_SMTP_URL).
 */
export const alertChannels = pgTable(
  'alert_channels',
  {
    id: serial('id').primaryKey(),
    kind: channelKind('kind').notNull(),
    url: text('url').notNull(),
    secret: text('secret'),
    minSeverity: alertSeverity('min_severity').notNull().default('warning'),
    /** One message per run instead of one per alert. */
    digest: boolean('digest').notNull().default(false),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [unique('alert_channels_kind_url_key').on(t.kind, t.url)],
);

/**
 * One delivery of an alert (or of a run digest) to a channel. `dedupe_key`
 * (`ch<id>:alert<id>`, `ch<id>:run<id>:digest`, a late digest `ch<id>:run<id>:late-digest`)
 * makes enqueueing idempotent.
 */
export const alertDeliveries = pgTable(
  'alert_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    channelId: integer('channel_id')
      .notNull()
      .references(() => alertChannels.id, { onDelete: 'cascade' }),
    alertId: bigint('alert_id', { mode: 'number' }).references(() => alerts.id, { onDelete: 'cascade' }),
    /** Set for digests. */
    runId: integer('run_id').references(() => auditRuns.id),
    dedupeKey: text('dedupe_key').notNull().unique(),
    status: deliveryStatus('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    lastStatus: integer('last_status'),
    deliveredAt: timestamptz('delivered_at'),
    createdAt: createdAt(),
  },
  (t) => [index('alert_deliveries_channel_idx').on(t.channelId, t.status), index('alert_deliveries_alert_idx').on(t.alertId)],
);

// --- issue 10: reporting views ----------------------------------------------------------------

/**
 * Every site with nights, as it stands now: its latest night's outcome, policy and reason, since
 * when that outcome and policy hold, the failed nights in a row and the days unreachable, the
 * fetched body's size and lint counts, and the night of its last change.
 */
export const siteStatus = pgView('site_status', {
  siteId: integer('site_id').notNull(),
  origin: text('origin').notNull(),
  enabled: boolean('enabled').notNull(),
  portfolios: text('portfolios').array().notNull(),
  runId: integer('run_id').notNull(),
  checkedAt: timestamptz('checked_at').notNull(),
  outcome: fetchOutcome('outcome').notNull(),
  status: smallint('status'),
  policy: effectivePolicy('policy').notNull(),
  policyReason: text('policy_reason').notNull(),
  policySince: timestamptz('policy_since'),
  failedNights: integer('failed_nights').notNull(),
  unreachableSince: timestamptz('unreachable_since'),
  daysUnreachable: integer('days_unreachable'),
  bodyBytes: integer('body_bytes').notNull(),
  truncated: boolean('truncated').notNull(),
  groups: smallint('groups'),
  rules: integer('rules'),
  sitemaps: smallint('sitemaps'),
  lintErrors: smallint('lint_errors'),
  lintWarnings: smallint('lint_warnings'),
  lintInfos: smallint('lint_infos'),
  lastChangeRunId: integer('last_change_run_id'),
  lastChangeAt: timestamptz('last_change_at'),
  /** The first night of the current run of bot challenges: the policy is unverified since (migration 0015). */
  unverifiedSince: timestamptz('unverified_since'),
  flapping: boolean('flapping').notNull(),
  flappingSince: timestamptz('flapping_since'),
}).existing();

/** The rules in force on every site now (its rules body's), one row per allow/disallow line. */
export const currentRules = pgView('current_rules', {
  siteId: integer('site_id').notNull(),
  origin: text('origin').notNull(),
  policyReason: text('policy_reason').notNull(),
  groupNo: smallint('group_no').notNull(),
  userAgents: text('user_agents').array().notNull(),
  kind: text('kind').notNull(),
  value: text('value').notNull(),
  pattern: text('pattern').notNull(),
  line: integer('line').notNull(),
}).existing();

/** Changes, verdict flips and alerts of every site in one timeline. */
export const changeLog = pgView('change_log', {
  at: timestamptz('at').notNull(),
  runId: integer('run_id').notNull(),
  siteId: integer('site_id').notNull(),
  origin: text('origin').notNull(),
  event: text('event').notNull(),
  kind: text('kind').notNull(),
  severity: alertSeverity('severity'),
  url: text('url'),
  agent: text('agent'),
  allowed: boolean('allowed'),
  detail: text('detail'),
}).existing();

/** Every site x AI crawler of the catalogue: may it fetch the root now, since which night, and the file's Content-Signal lines. */
export const aiAccess = pgView('ai_access', {
  siteId: integer('site_id').notNull(),
  origin: text('origin').notNull(),
  userAgentId: integer('user_agent_id').notNull(),
  token: text('token').notNull(),
  category: text('category').notNull(),
  operator: text('operator'),
  allowed: boolean('allowed').notNull(),
  sinceRunId: integer('since_run_id'),
  since: timestamptz('since'),
  contentSignals: text('content_signals').array().notNull(),
}).existing();

/**
 * Every tracked URL x agent x purpose under each site's latest night: what the crawler is told
 * about the use of the URL's content (docs/usage-preferences.md), since when, by which line.
 * Migration 0020; queries in docs/sql-reporting.md.
 */
export const aiUse = pgView('ai_use', {
  siteId: integer('site_id').notNull(),
  origin: text('origin').notNull(),
  trackedUrlId: integer('tracked_url_id').notNull(),
  url: text('url').notNull(),
  isRoot: boolean('is_root').notNull(),
  userAgentId: integer('user_agent_id').notNull(),
  token: text('token').notNull(),
  family: text('family'),
  category: text('category'),
  purpose: text('purpose').$type<UsagePurpose>().notNull(),
  preference: text('preference').$type<UsagePreference>().notNull(),
  crawlAllowed: boolean('crawl_allowed').notNull(),
  /** The first night of the run of nights with this preference (NULL when unknown or not crawlable). */
  since: timestamptz('since'),
  line: integer('line'),
  mechanism: text('mechanism'),
  label: text('label'),
  value: text('value'),
}).existing();

/** One row per run: its clock, duration, sites done / skipped / failed, outcomes, changes, flips, alerts. */
export const runSummary = pgView('run_summary', {
  runId: integer('run_id').notNull(),
  runKey: text('run_key').notNull(),
  trigger: runTrigger('trigger').notNull(),
  status: runStatus('status').notNull(),
  portfolio: text('portfolio'),
  runAt: timestamptz('run_at').notNull(),
  startedAt: timestamptz('started_at'),
  finishedAt: timestamptz('finished_at'),
  seconds: integer('seconds'),
  sitesTotal: integer('sites_total').notNull(),
  sitesDone: integer('sites_done').notNull(),
  sitesSkipped: integer('sites_skipped').notNull(),
  sitesFailed: integer('sites_failed').notNull(),
  ok: integer('ok').notNull(),
  unavailable: integer('unavailable').notNull(),
  rateLimited: integer('rate_limited').notNull(),
  serverError: integer('server_error').notNull(),
  networkError: integer('network_error').notNull(),
  redirectLimit: integer('redirect_limit').notNull(),
  changes: integer('changes').notNull(),
  flips: integer('flips').notNull(),
  alerts: integer('alerts').notNull(),
  /** Nights a bot wall answered instead of the site (migration 0015). */
  challenged: integer('challenged').notNull(),
  /** Usage preferences that changed (usage_flips, migration 0020). */
  usageFlips: integer('usage_flips').notNull(),
}).existing();

/* Compliance from server logs (issue 29, docs/compliance.md). */

/** What a crawler request was judged (src/compliance/vocabulary.ts). */
export const crawlerJudgement = pgEnum('crawler_judgement', JUDGEMENTS);
/** Whether a request claiming a crawler passed its operator's check. */
export const crawlerIdentity = pgEnum('crawler_identity', IDENTITIES);
export const identityMethod = pgEnum('identity_method', IDENTITY_METHODS);

/**
 * A log import (`robots-audit logs import`): one row per source, keyed by the hash of its first
 * bytes, its format and its `--site`, with how far it got (`lines_done`, and the hash of that
 * line, so a resumed import checks it is reading the same file) and what it found.
 */
export const logImports = pgTable('log_imports', {
  id: serial('id').primaryKey(),
  sourceKey: bytea('source_key').notNull().unique(),
  /** The path as given (`-`: standard input). */
  name: text('name').notNull(),
  format: text('format').notNull(),
  siteId: integer('site_id').references(() => sites.id, { onDelete: 'cascade' }),
  /** Lines read and committed: a resumed import skips them. */
  linesDone: bigint('lines_done', { mode: 'number' }).notNull().default(0),
  /** sha256 of line `lines_done`; NULL before the first commit. */
  checkpoint: bytea('checkpoint'),
  /** Counts over every run of the import (a resumed one adds to them). */
  crawlerLines: bigint('crawler_lines', { mode: 'number' }).notNull().default(0),
  stored: bigint('stored', { mode: 'number' }).notNull().default(0),
  unreadable: bigint('unreadable', { mode: 'number' }).notNull().default(0),
  unmatched: bigint('unmatched', { mode: 'number' }).notNull().default(0),
  /** The first lines that could not be read: `{ line, reason, text }`, the text cut and escaped when shown. */
  errors: jsonb('errors').$type<{ line: number; reason: string; text: string }[]>().notNull().default([]),
  startedAt: createdAt(),
  finishedAt: timestamptz('finished_at'),
});

/** A user-agent string a crawler request sent, stored once (they reach 8 KiB). */
export const requestUserAgents = pgTable('request_user_agents', {
  id: serial('id').primaryKey(),
  sha256: bytea('sha256').notNull().unique(),
  text: text('text').notNull(),
});

/**
 * A crawler's request from a server log: only requests whose user-agent names a catalogued or
 * configured crawler are kept, never the rest of the traffic. `line_key` (the line's hash and its
 * ordinal among identical lines of the same second) makes a second import of the same lines add
 * nothing. `client_ip` only where a finding needs it (a violation, a spoofed claim), cleared by
 * `prune` after `ROBOTS_AUDIT_LOG_IP_RETENTION_DAYS`; the query string only where the deciding line
 * reads it (docs/compliance.md).
 */
export const crawlerRequests = pgTable(
  'crawler_requests',
  {
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    lineKey: bytea('line_key').notNull(),
    at: timestamptz('at').notNull(),
    /** The catalogue (or `user_agents`) token the user-agent claims. */
    crawler: text('crawler').notNull(),
    identity: crawlerIdentity('identity').notNull(),
    identityMethod: identityMethod('identity_method').notNull(),
    judgement: crawlerJudgement('judgement').notNull(),
    /** The night whose version was in force (its run); NULL when unjudged. */
    runId: integer('run_id'),
    /** `cache_window`: the earlier night whose version allowed it; `between_versions`: the next one. */
    allowedByRunId: integer('allowed_by_run_id'),
    method: text('method').notNull(),
    path: text('path').notNull(),
    status: smallint('status'),
    userAgentId: integer('user_agent_id')
      .notNull()
      .references(() => requestUserAgents.id),
    clientIp: inet('client_ip'),
    /** The deciding line of the version in force, for a request it disallowed. */
    ruleLine: integer('rule_line'),
    rule: text('rule'),
    importId: integer('import_id')
      .notNull()
      .references(() => logImports.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ name: 'crawler_requests_pkey', columns: [t.siteId, t.lineKey] }), index('crawler_requests_site_crawler_at_idx').on(t.siteId, t.crawler, t.at)],
);

/**
 * An operator's published IP range file (`robots-audit crawlers ranges import`), with its own
 * date: a request is judged by the file of its source in force on its day.
 */
export const crawlerRangeFiles = pgTable(
  'crawler_range_files',
  {
    id: serial('id').primaryKey(),
    /** The range source (src/crawlers/identity/crawler-identity.json: `googlebot`, `gptbot`, ...). */
    source: text('source').notNull(),
    /** The file's own date (`creationTime`), or the one given when it has none. */
    publishedAt: timestamptz('published_at').notNull(),
    sha256: bytea('sha256').notNull(),
    prefixes: text('prefixes').array().notNull(),
    importedAt: createdAt(),
  },
  (t) => [unique('crawler_range_files_source_sha256_key').on(t.source, t.sha256), index('crawler_range_files_source_published_idx').on(t.source, t.publishedAt)],
);
