/**
 * The drizzle schema: the system of record (house style, habit 5). Sized for SQL reporting at
 * 100,000 sites x 365 nights, where two tables grow every night for every site: `snapshots`
 * and `fetch_attempts` (and, with issue 4, `verdicts`). Those rows are kept narrow:
 *
 * - integer surrogate keys (4 bytes) everywhere, bigint only for the per-night tables' own ids;
 * - enums as Postgres enums (4 bytes), timestamps as timestamptz;
 * - columns of the nightly tables ordered widest first (8, 4, 2, 1 bytes, then variable
 *   length), so Postgres adds no alignment padding between them;
 * - a body is stored once by content hash (`bodies`): an unchanged site adds no body;
 * - `fetch_attempts.final_url` and `hops` are NULL when there was no redirect (the common case),
 *   rather than repeating the requested URL and an empty array every night.
 *
 * Indexes are chosen for the queries the product runs and for deletes: every foreign key that
 * cascades from `sites` is backed by an index that leads with `site_id`, so removing a site does
 * not scan a year of rows. Two references are deliberately NOT foreign keys, because checking
 * them on every snapshot delete would need another index on the largest table:
 * `snapshots.policy_snapshot_id` and `snapshot_changes.previous_snapshot_id` (both always point
 * at a snapshot of the same site, written by the worker that knows it).
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
import type { PolicyKind } from '../policy/effective-policy.js';

/** Raw bytes (`bytea`); node-postgres reads and writes them as Buffers. */
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const createdAt = () => timestamptz('created_at').notNull().defaultNow();

// --- enums ---------------------------------------------------------------------------------

export const RUN_TRIGGERS = ['scheduled', 'manual'] as const;
export const RUN_STATUSES = ['running', 'completed', 'failed'] as const;
export const EFFECTIVE_POLICIES = ['rules', 'allow_all', 'disallow_all'] as const satisfies readonly PolicyKind[];
export const ALERT_SEVERITIES = ['critical', 'warning', 'info'] as const;
export const CHANNEL_KINDS = ['webhook', 'slack'] as const;
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

export const runTrigger = pgEnum('run_trigger', RUN_TRIGGERS);
export const runStatus = pgEnum('run_status', RUN_STATUSES);
/** R-10..R-15, D-4: the status class of a fetch (src/policy/fetch-outcome.ts). */
export const fetchOutcome = pgEnum('fetch_outcome', FETCH_OUTCOMES);
/** What a crawler applies after a fetch (src/policy/effective-policy.ts). */
export const effectivePolicy = pgEnum('effective_policy', EFFECTIVE_POLICIES);
export const alertSeverity = pgEnum('alert_severity', ALERT_SEVERITIES);
export const channelKind = pgEnum('channel_kind', CHANNEL_KINDS);
export const deliveryStatus = pgEnum('delivery_status', DELIVERY_STATUSES);

// --- what is monitored -----------------------------------------------------------------------

/** A named group of sites (a client, a brand) with agents evaluated on top of the global list. */
export const portfolios = pgTable('portfolios', {
  id: serial('id').primaryKey(),
  name: text('name').notNull().unique(),
  /** Extra user-agent tokens evaluated for this portfolio's sites, beside `user_agents` defaults. */
  extraUserAgents: text('extra_user_agents').array().notNull().default(sql`'{}'::text[]`),
  createdAt: createdAt(),
});

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
   * Snapshots of the run diffed so far, each counted once, by the diff transaction that sets its
   * `diffed_at`: the run can end when this plus the skipped sites reach sitesTotal, a check that
   * costs one row read instead of counting the run's snapshots after every diff.
   */
  sitesDiffed: integer('sites_diffed').notNull().default(0),
  /** Totals by group, e.g. `{"outcome":{"ok":98,"server_error":2},"change":{"rules":1}}`. */
  counts: jsonb('counts').$type<RunCounts>().notNull().default({}),
  createdAt: createdAt(),
});

export type RunCounts = Record<string, Record<string, number>>;

/** A robots.txt body, stored once per distinct content (R-18 / D-6: at most the kept bytes). */
export const bodies = pgTable(
  'bodies',
  {
    sha256: bytea('sha256').primaryKey(),
    content: bytea('content').notNull(),
    size: integer('size').notNull(),
    createdAt: createdAt(),
  },
  (t) => [check('bodies_sha256_length', sql`octet_length(${t.sha256}) = 32`)],
);

/** One redirect hop of a fetch. */
export interface RedirectHop {
  url: string;
  status: number;
  location: string | null;
}

/**
 * Every fetch attempt, kept (D-3: "every fetch attempt is recorded either way"), including
 * the retries within a run. The primary key is the natural one, (site, run, attempt):
 * nothing references an attempt by id, so a surrogate key would only add 8 bytes a row and a
 * second index. It makes a retried job add nothing, leads with `site_id` to serve a site's
 * attempt history and the cascade from `sites`, and answers "the attempts of site S in run R".
 */
export const fetchAttempts = pgTable(
  'fetch_attempts',
  {
    startedAt: timestamptz('started_at').notNull(),
    runId: integer('run_id')
      .notNull()
      .references(() => auditRuns.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    durationMs: integer('duration_ms').notNull(),
    outcome: fetchOutcome('outcome').notNull(),
    /** Bytes kept of the body (R-18 / D-6). */
    bodyBytes: integer('body_bytes').notNull().default(0),
    /** The full size when known (Content-Length or bytes read before the cut). */
    fullSize: integer('full_size'),
    /** the lifetime computed from Cache-Control / Expires / Age, seconds. */
    cacheLifetimeSeconds: integer('cache_lifetime_seconds'),
    /** 1-based attempt number within the run. */
    attempt: smallint('attempt').notNull(),
    /** The final HTTP status; null when no response arrived. */
    status: smallint('status'),
    truncated: boolean('truncated').notNull().default(false),
    requestedUrl: text('requested_url').notNull(),
    /** NULL when there was no redirect: the final URL is then `requested_url`. */
    finalUrl: text('final_url'),
    /** the redirect chain; NULL when there was no redirect. */
    hops: jsonb('hops').$type<RedirectHop[]>(),
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
    remoteAddress: text('remote_address'),
    bodySha256: bytea('body_sha256').references(() => bodies.sha256),
    contentType: text('content_type'),
    cacheControl: text('cache_control'),
    expires: text('expires'),
    age: text('age'),
    retryAfter: text('retry_after'),
    lastModified: text('last_modified'),
    etag: text('etag'),
    contentEncoding: text('content_encoding'),
  },
  (t) => [primaryKey({ name: 'fetch_attempts_pkey', columns: [t.siteId, t.runId, t.attempt] })],
);

/**
 * Exactly one row per site per run: the result the run settled on and the policy a crawler
 * applies (R-10..R-15, D-3, D-4). The per-night record of the product.
 */
export const snapshots = pgTable(
  'snapshots',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** Time of the final attempt. */
    fetchedAt: timestamptz('fetched_at').notNull(),
    /**
     * The snapshot whose rules apply: this one for `ok`, the last good one under the 30-day
     * fallback (D-3), NULL for allow_all / disallow_all. Same site; not a foreign key (see top).
     */
    policySnapshotId: bigint('policy_snapshot_id', { mode: 'number' }),
    /** Start of the current 5xx / network-failure streak (R-13, R-15, D-3); NULL when reached. */
    unreachableSince: timestamptz('unreachable_since'),
    /**
     * When the diff worker finished this snapshot (changes, verdicts, flips, alerts written in
     * the same transaction). NULL: still owed; a run is complete when none of its snapshots are.
     */
    diffedAt: timestamptz('diffed_at'),
    runId: integer('run_id')
      .notNull()
      .references(() => auditRuns.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    outcome: fetchOutcome('outcome').notNull(),
    policy: effectivePolicy('policy').notNull(),
    bodyBytes: integer('body_bytes').notNull().default(0),
    rules: integer('rules').notNull().default(0),
    status: smallint('status'),
    attempts: smallint('attempts').notNull(),
    groups: smallint('groups').notNull().default(0),
    sitemaps: smallint('sitemaps').notNull().default(0),
    lintErrors: smallint('lint_errors').notNull().default(0),
    lintWarnings: smallint('lint_warnings').notNull().default(0),
    lintInfos: smallint('lint_infos').notNull().default(0),
    truncated: boolean('truncated').notNull().default(false),
    /** The spec rule behind `policy`: 'R-10', 'R-11', 'R-12', 'D-4', 'R-13', 'R-15', 'D-3'. */
    policyReason: text('policy_reason').notNull(),
    bodySha256: bytea('body_sha256').references(() => bodies.sha256),
  },
  (t) => [
    // Also serves "everything of run R" (leading column): no separate run_id index.
    unique('snapshots_run_site_key').on(t.runId, t.siteId),
    // Snapshots still owed a diff: small (emptied as the run goes), read to detect a run's end.
    index('snapshots_undiffed_idx').on(t.runId).where(sql`${t.diffedAt} is null`),
    // A site's history, its latest snapshot, and the cascade from `sites`. Read backwards for
    // `order by fetched_at desc, id desc` (ascending NULLS LAST reversed is exactly DESC's default
    // NULLS FIRST; drizzle's `.desc()` would write DESC NULLS LAST, which that ORDER BY cannot
    // use). `id` breaks ties on time and lets "latest" stop at the first entry, not sort a year.
    index('snapshots_site_fetched_idx').on(t.siteId, t.fetchedAt, t.id),
  ],
);

/**
 * The latest snapshot of every site, for reports. A LATERAL probe of the (site_id, fetched_at)
 * index per site: 100,000 index lookups, instead of the full-index pass `DISTINCT ON` needs.
 */
export const siteLatest = pgView('site_latest', {
  siteId: integer('site_id').notNull(),
  origin: text('origin').notNull(),
  enabled: boolean('enabled').notNull(),
  snapshotId: bigint('snapshot_id', { mode: 'number' }).notNull(),
  runId: integer('run_id').notNull(),
  fetchedAt: timestamptz('fetched_at').notNull(),
  outcome: fetchOutcome('outcome').notNull(),
  status: smallint('status'),
  policy: effectivePolicy('policy').notNull(),
  policyReason: text('policy_reason').notNull(),
  policySnapshotId: bigint('policy_snapshot_id', { mode: 'number' }),
  unreachableSince: timestamptz('unreachable_since'),
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
         l.id as snapshot_id, l.run_id, l.fetched_at, l.outcome, l.status, l.policy, l.policy_reason,
         l.policy_snapshot_id, l.unreachable_since, l.body_sha256, l.body_bytes, l.truncated,
         l.groups, l.rules, l.sitemaps, l.lint_errors, l.lint_warnings, l.lint_infos
  from sites s
  cross join lateral (
    select * from snapshots x where x.site_id = s.id order by x.fetched_at desc, x.id desc limit 1
  ) l`);

// --- issue 4: nightly diffs, verdicts, alerts ------------------------------------------------

/**
 * What changed in a site's snapshot against its previous one; a row only when something did
 * (or the site is seen for the first time). `kinds`: 'first_seen', 'raw', 'rules',
 * 'comments_only', 'sitemaps', 'records', 'outcome', 'policy', 'fallback_started', 'fallback_ended'.
 */
export const snapshotChanges = pgTable(
  'snapshot_changes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    snapshotId: bigint('snapshot_id', { mode: 'number' })
      .notNull()
      .unique()
      .references(() => snapshots.id, { onDelete: 'cascade' }),
    /** The snapshot compared against; NULL for first_seen. Same site; not a foreign key (see top). */
    previousSnapshotId: bigint('previous_snapshot_id', { mode: 'number' }),
    runId: integer('run_id')
      .notNull()
      .references(() => auditRuns.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
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
  (t) => [index('snapshot_changes_run_idx').on(t.runId), index('snapshot_changes_site_idx').on(t.siteId, t.runId)],
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
    /** 'search', 'ai', 'seo', 'social', 'other'. */
    family: text('family'),
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
 * One verdict per tracked URL x agent x run: 4 fixed-width columns and a nullable line number.
 * The deciding rule's line is kept; its kind and pattern are recoverable from the policy
 * snapshot's body and are stored only where they matter, on `verdict_flips`. The key leads with
 * `tracked_url_id`: a URL's history and the cascade from `tracked_urls` use it, and the diff
 * worker looks verdicts up by (tracked URL, run).
 */
export const verdicts = pgTable(
  'verdicts',
  {
    trackedUrlId: integer('tracked_url_id')
      .notNull()
      .references(() => trackedUrls.id, { onDelete: 'cascade' }),
    runId: integer('run_id')
      .notNull()
      .references(() => auditRuns.id),
    userAgentId: integer('user_agent_id')
      .notNull()
      .references(() => userAgents.id),
    /** The deciding rule's line in the policy snapshot's body; NULL: no rule matched. */
    ruleLine: integer('rule_line'),
    allowed: boolean('allowed').notNull(),
  },
  (t) => [primaryKey({ columns: [t.trackedUrlId, t.runId, t.userAgentId] })],
);

/**
 * The verdicts under every site's latest snapshot (site_latest), once it is diffed: each tracked
 * URL x agent, allowed or not and the deciding line, for "what is blocked right now" reports.
 * Each row is a primary-key lookup in `verdicts` from the site's latest run.
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
  fetchedAt: timestamptz('fetched_at').notNull(),
  policy: effectivePolicy('policy').notNull(),
  allowed: boolean('allowed').notNull(),
  ruleLine: integer('rule_line'),
}).as(sql`
  select l.site_id, l.origin, t.id as tracked_url_id, t.url, t.is_root, a.id as user_agent_id, a.token, a.family,
         l.run_id, l.fetched_at, l.policy, v.allowed, v.rule_line
  from site_latest l
  join tracked_urls t on t.site_id = l.site_id
  join verdicts v on v.tracked_url_id = t.id and v.run_id = l.run_id
  join user_agents a on a.id = v.user_agent_id`);

/**
 * The rule behind a verdict, as shown in a flip: its line, kind, the value as written and the
 * pattern as matched (they differ after %-normalisation, T28/T49). NULL when none matched.
 */
export interface FlipRule {
  line: number;
  kind: 'allow' | 'disallow';
  value: string;
  pattern: string;
}

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
    index('verdict_flips_site_idx').on(t.siteId),
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
  (t) => [index('alerts_run_idx').on(t.runId), index('alerts_site_idx').on(t.siteId)],
);

/** Where alerts go: a webhook (signed with `secret` when set) or a Slack incoming webhook. */
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
 * (`ch<id>:alert<id>`, `ch<id>:run<id>:digest`) makes enqueueing idempotent.
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
