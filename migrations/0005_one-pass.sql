-- 0005_one-pass (issue 9): one pass per site, and nights that cost a row.
--
-- What changes, and how the rows of the previous schema are carried over:
--   bodies          gains an integer id (what nights reference) and the parse summary that every
--                   snapshot used to repeat, taken from the latest snapshot of each body;
--   responses       new: the headers, redirects and address of an answer, stored once per distinct
--                   combination; filled from the old attempts (same key as the worker computes);
--   snapshots       rebuilt narrow, keyed (site_id, run_at, run_id): each night keeps its final
--                   attempt (duration, error, cache lifetime, response) and references its body by id;
--   failed_attempts every old attempt that was not a night's final one;
--   verdicts        one row per run becomes one row per stretch of nights with the same verdict;
--   site_state      new: each site's latest night and what the next night needs, computed from
--                   its history;
--   snapshot_changes and audit_runs: the previous night is named by its run; sites_diffed becomes
--                   sites_done (a stored night is a done night).
-- A run still running when this is applied keeps its snapshots; sites it has not fetched are
-- fetched by the reconcile loop. Changes of its nights stored but not yet diffed are not computed.
CREATE FUNCTION robots_audit_add_counts(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  -- Two count documents ({"group": {"key": n}}) added key by key: what the transaction that
  -- stores nights adds to its run's counts, atomically under the run row's lock.
  select coalesce(jsonb_object_agg(g.k, (
           select coalesce(jsonb_object_agg(i.k, coalesce((a -> g.k ->> i.k)::bigint, 0) + coalesce((b -> g.k ->> i.k)::bigint, 0)), '{}'::jsonb)
           from (select jsonb_object_keys(coalesce(a -> g.k, '{}'::jsonb)) union select jsonb_object_keys(coalesce(b -> g.k, '{}'::jsonb))) as i(k))), '{}'::jsonb)
  from (select jsonb_object_keys(coalesce(a, '{}'::jsonb)) union select jsonb_object_keys(coalesce(b, '{}'::jsonb))) as g(k)
$$;
--> statement-breakpoint
-- The key of a responses row: the first 16 bytes of the SHA-256 of its fields joined by U+001F,
-- NULL written as U+001E, hops as "status url location" joined by U+001D (src/db/responses.ts
-- computes the same for new answers, so a site's first night after this migration finds its row).
CREATE FUNCTION pg_temp.response_key(final_url text, hops jsonb, remote_address text, content_type text, content_encoding text,
  cache_control text, expires text, age text, retry_after text, last_modified text, etag text) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
  select substring(sha256(convert_to(concat_ws(E'\x1f',
    coalesce(final_url, E'\x1e'),
    coalesce((select string_agg((h ->> 'status') || ' ' || (h ->> 'url') || ' ' || coalesce(h ->> 'location', E'\x1e'), E'\x1d' order by o)
              from jsonb_array_elements(hops) with ordinality as e(h, o)), E'\x1e'),
    coalesce(remote_address, E'\x1e'), coalesce(content_type, E'\x1e'), coalesce(content_encoding, E'\x1e'),
    coalesce(cache_control, E'\x1e'), coalesce(expires, E'\x1e'), coalesce(age, E'\x1e'), coalesce(retry_after, E'\x1e'),
    coalesce(last_modified, E'\x1e'), coalesce(etag, E'\x1e')), 'UTF8')) from 1 for 16)
$$;
--> statement-breakpoint
DROP VIEW "public"."verdict_latest";--> statement-breakpoint
DROP VIEW "public"."site_latest";--> statement-breakpoint
ALTER TABLE "snapshots" RENAME TO "snapshots_v4";--> statement-breakpoint
ALTER INDEX "snapshots_pkey" RENAME TO "snapshots_v4_pkey";--> statement-breakpoint
ALTER TABLE "fetch_attempts" RENAME TO "fetch_attempts_v4";--> statement-breakpoint
ALTER TABLE "verdicts" RENAME TO "verdicts_v4";--> statement-breakpoint
ALTER TABLE "snapshot_changes" DROP CONSTRAINT "snapshot_changes_snapshot_id_snapshots_id_fk";--> statement-breakpoint
ALTER TABLE "snapshots_v4" DROP CONSTRAINT "snapshots_body_sha256_bodies_sha256_fk";--> statement-breakpoint
ALTER TABLE "fetch_attempts_v4" DROP CONSTRAINT "fetch_attempts_body_sha256_bodies_sha256_fk";--> statement-breakpoint
-- bodies: an integer key, the hash stays unique; the summary the snapshots repeated.
ALTER TABLE "bodies" DROP CONSTRAINT "bodies_pkey";--> statement-breakpoint
ALTER TABLE "bodies" ADD COLUMN "id" serial NOT NULL;--> statement-breakpoint
ALTER TABLE "bodies" ADD CONSTRAINT "bodies_pkey" PRIMARY KEY ("id");--> statement-breakpoint
ALTER TABLE "bodies" ADD CONSTRAINT "bodies_sha256_unique" UNIQUE ("sha256");--> statement-breakpoint
ALTER TABLE "bodies" ADD COLUMN "rules" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "bodies" ADD COLUMN "groups" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "bodies" ADD COLUMN "sitemaps" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "bodies" ADD COLUMN "lint_errors" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "bodies" ADD COLUMN "lint_warnings" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "bodies" ADD COLUMN "lint_infos" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "bodies" b SET "rules" = s.rules, "groups" = s.groups, "sitemaps" = s.sitemaps,
  "lint_errors" = s.lint_errors, "lint_warnings" = s.lint_warnings, "lint_infos" = s.lint_infos
FROM (SELECT DISTINCT ON (body_sha256) body_sha256, rules, groups, sitemaps, lint_errors, lint_warnings, lint_infos
      FROM "snapshots_v4" WHERE body_sha256 IS NOT NULL ORDER BY body_sha256, id DESC) s
WHERE s.body_sha256 = b.sha256;--> statement-breakpoint
CREATE TABLE "responses" (
	"id" serial PRIMARY KEY NOT NULL,
	"key" "bytea" NOT NULL,
	"final_url" text,
	"hops" jsonb,
	"remote_address" text,
	"content_type" text,
	"content_encoding" text,
	"cache_control" text,
	"expires" text,
	"age" text,
	"retry_after" text,
	"last_modified" text,
	"etag" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "responses_key_unique" UNIQUE("key"),
	CONSTRAINT "responses_key_length" CHECK (octet_length("responses"."key") = 16)
);
--> statement-breakpoint
-- Every answer that arrived (a status, or redirects on the way) has its row; others reference none.
ALTER TABLE "fetch_attempts_v4" ADD COLUMN "response_key" bytea;--> statement-breakpoint
UPDATE "fetch_attempts_v4" SET "response_key" = pg_temp.response_key(final_url, hops, remote_address, content_type, content_encoding,
  cache_control, expires, age, retry_after, last_modified, etag)
WHERE status IS NOT NULL OR hops IS NOT NULL;--> statement-breakpoint
INSERT INTO "responses" ("key", "final_url", "hops", "remote_address", "content_type", "content_encoding", "cache_control", "expires", "age",
  "retry_after", "last_modified", "etag", "created_at")
SELECT DISTINCT ON (response_key) response_key, final_url, hops, remote_address, content_type, content_encoding, cache_control, expires, age,
  retry_after, last_modified, etag, started_at
FROM "fetch_attempts_v4" WHERE response_key IS NOT NULL ORDER BY response_key, started_at;--> statement-breakpoint
CREATE TABLE "snapshots" (
	"run_at" timestamp with time zone NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL,
	"unreachable_since" timestamp with time zone,
	"site_id" integer NOT NULL,
	"run_id" integer NOT NULL,
	"duration_ms" integer NOT NULL,
	"body_id" integer,
	"response_id" integer,
	"rules_run_id" integer,
	"cache_lifetime_seconds" integer,
	"full_size" integer,
	"outcome" "fetch_outcome" NOT NULL,
	"policy" "effective_policy" NOT NULL,
	"status" smallint,
	"attempts" smallint NOT NULL,
	"truncated" boolean DEFAULT false NOT NULL,
	"policy_reason" text NOT NULL,
	"error_code" text,
	"error_message" text,
	CONSTRAINT "snapshots_pkey" PRIMARY KEY("site_id","run_at","run_id")
);
--> statement-breakpoint
-- Each old snapshot with its final attempt; the fallback's rules (D-3) named by the run of the
-- snapshot they came from.
INSERT INTO "snapshots"
SELECT r.run_at, s.fetched_at, s.unreachable_since, s.site_id, s.run_id, coalesce(a.duration_ms, 0), b.id, rs.id,
       CASE WHEN s.policy_snapshot_id IS NOT NULL AND s.policy_snapshot_id <> s.id THEN p.run_id END,
       a.cache_lifetime_seconds, nullif(a.full_size, s.body_bytes), s.outcome, s.policy, s.status, s.attempts, s.truncated,
       s.policy_reason, a.error_code, a.error_message
FROM "snapshots_v4" s
JOIN "audit_runs" r ON r.id = s.run_id
LEFT JOIN "fetch_attempts_v4" a ON a.site_id = s.site_id AND a.run_id = s.run_id AND a.attempt = s.attempts
LEFT JOIN "responses" rs ON rs.key = a.response_key
LEFT JOIN "bodies" b ON b.sha256 = s.body_sha256
LEFT JOIN "snapshots_v4" p ON p.id = s.policy_snapshot_id
ORDER BY s.run_id, s.site_id;--> statement-breakpoint
CREATE TABLE "failed_attempts" (
	"started_at" timestamp with time zone NOT NULL,
	"site_id" integer NOT NULL,
	"run_id" integer NOT NULL,
	"duration_ms" integer NOT NULL,
	"response_id" integer,
	"full_size" integer,
	"outcome" "fetch_outcome" NOT NULL,
	"attempt" smallint NOT NULL,
	"status" smallint,
	"error_code" text,
	"error_message" text,
	CONSTRAINT "failed_attempts_pkey" PRIMARY KEY("site_id","run_id","attempt")
);
--> statement-breakpoint
-- Every attempt that is not a night's final one: retried ones, and those of a night still open.
INSERT INTO "failed_attempts"
SELECT a.started_at, a.site_id, a.run_id, a.duration_ms, rs.id, nullif(a.full_size, a.body_bytes), a.outcome, a.attempt, a.status,
       a.error_code, a.error_message
FROM "fetch_attempts_v4" a
LEFT JOIN "snapshots_v4" s ON s.site_id = a.site_id AND s.run_id = a.run_id
LEFT JOIN "responses" rs ON rs.key = a.response_key
WHERE s.id IS NULL OR a.attempt <> s.attempts;--> statement-breakpoint
CREATE TABLE "verdicts" (
	"valid_from" timestamp with time zone NOT NULL,
	"valid_to" timestamp with time zone,
	"tracked_url_id" integer NOT NULL,
	"user_agent_id" integer NOT NULL,
	"from_run_id" integer NOT NULL,
	"to_run_id" integer,
	"rule_line" integer,
	"allowed" boolean NOT NULL,
	CONSTRAINT "verdicts_pkey" PRIMARY KEY("tracked_url_id","user_agent_id","valid_from","from_run_id")
);
--> statement-breakpoint
-- Verdicts per run become spans: consecutive nights (run clock) of a URL x agent with the same
-- verdict and line are one span. The last span stays open when the URL x agent was evaluated on
-- its site's latest night, and is closed at the site's next night otherwise (the agent left
-- the list, say).
INSERT INTO "verdicts"
WITH nightly AS (
  SELECT v.tracked_url_id, v.user_agent_id, v.run_id, r.run_at, v.allowed, v.rule_line,
         row_number() OVER w = 1
           OR v.allowed IS DISTINCT FROM lag(v.allowed) OVER w
           OR v.rule_line IS DISTINCT FROM lag(v.rule_line) OVER w AS starts
  FROM "verdicts_v4" v JOIN "audit_runs" r ON r.id = v.run_id
  WINDOW w AS (PARTITION BY v.tracked_url_id, v.user_agent_id ORDER BY r.run_at, v.run_id)
), numbered AS (
  SELECT *, count(*) FILTER (WHERE starts) OVER (PARTITION BY tracked_url_id, user_agent_id ORDER BY run_at, run_id) AS span
  FROM nightly
), spans AS (
  SELECT tracked_url_id, user_agent_id, span,
         (array_agg(run_id ORDER BY run_at, run_id))[1] AS from_run_id, min(run_at) AS valid_from,
         (array_agg(run_id ORDER BY run_at DESC, run_id DESC))[1] AS last_run_id, max(run_at) AS last_run_at,
         bool_and(allowed) AS allowed, min(rule_line) AS rule_line
  FROM numbered GROUP BY tracked_url_id, user_agent_id, span
), bounded AS (
  SELECT s.*, lead(s.valid_from) OVER w AS next_from, lead(s.from_run_id) OVER w AS next_run_id, t.site_id
  FROM spans s JOIN "tracked_urls" t ON t.id = s.tracked_url_id
  WINDOW w AS (PARTITION BY s.tracked_url_id, s.user_agent_id ORDER BY s.valid_from, s.from_run_id)
)
SELECT b.valid_from, coalesce(b.next_from, after.run_at), b.tracked_url_id, b.user_agent_id, b.from_run_id,
       coalesce(b.next_run_id, after.run_id), b.rule_line, b.allowed
FROM bounded b
LEFT JOIN LATERAL (
  SELECT n.run_at, n.run_id FROM "snapshots" n
  WHERE b.next_from IS NULL AND n.site_id = b.site_id AND (n.run_at, n.run_id) > (b.last_run_at, b.last_run_id)
  ORDER BY n.run_at, n.run_id LIMIT 1
) after ON true;--> statement-breakpoint
ALTER TABLE "snapshot_changes" ADD COLUMN "previous_run_id" integer;--> statement-breakpoint
UPDATE "snapshot_changes" c SET "previous_run_id" = p.run_id FROM "snapshots_v4" p WHERE p.id = c.previous_snapshot_id;--> statement-breakpoint
ALTER TABLE "snapshot_changes" DROP CONSTRAINT "snapshot_changes_snapshot_id_unique";--> statement-breakpoint
ALTER TABLE "snapshot_changes" DROP COLUMN "snapshot_id";--> statement-breakpoint
ALTER TABLE "snapshot_changes" DROP COLUMN "previous_snapshot_id";--> statement-breakpoint
DROP INDEX "snapshot_changes_site_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "snapshot_changes_site_run_key" ON "snapshot_changes" USING btree ("site_id","run_id");--> statement-breakpoint
ALTER TABLE "audit_runs" RENAME COLUMN "sites_diffed" TO "sites_done";--> statement-breakpoint
ALTER TABLE "audit_runs" ADD COLUMN "site_ids" integer[];--> statement-breakpoint
UPDATE "audit_runs" r SET "sites_done" = (SELECT count(*) FROM "snapshots" n WHERE n.run_id = r.id) WHERE r.status = 'running';--> statement-breakpoint
CREATE TABLE "site_state" (
	"site_id" integer PRIMARY KEY NOT NULL,
	"run_id" integer NOT NULL,
	"run_at" timestamp with time zone NOT NULL,
	"outcome" "fetch_outcome" NOT NULL,
	"status" smallint,
	"policy" "effective_policy" NOT NULL,
	"policy_reason" text NOT NULL,
	"unreachable_since" timestamp with time zone,
	"rules_body_id" integer,
	"rules_run_id" integer,
	"last_good_run_id" integer,
	"last_good_run_at" timestamp with time zone,
	"last_good_body_id" integer,
	"last_good_sha256" "bytea",
	"last_reachable_run_id" integer,
	"last_reachable_outcome" "fetch_outcome",
	"response_id" integer,
	"response_key" "bytea",
	"eval_key" "bytea",
	"failed_nights" integer DEFAULT 0 NOT NULL,
	"last_change_run_id" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- Every night updates every site's row: room on its page lets Postgres write the new version
-- there (a HOT update, no index entry), so the table does not grow night after night.
ALTER TABLE "site_state" SET (fillfactor = 80);--> statement-breakpoint
-- Each site's latest night (run clock) and what the next one needs. eval_key stays NULL: the
-- first night after this migration evaluates the verdicts once and finds the spans unchanged.
INSERT INTO "site_state" ("site_id", "run_id", "run_at", "outcome", "status", "policy", "policy_reason", "unreachable_since",
  "rules_body_id", "rules_run_id", "last_good_run_id", "last_good_run_at", "last_good_body_id", "last_good_sha256",
  "last_reachable_run_id", "last_reachable_outcome", "response_id", "response_key", "failed_nights", "last_change_run_id")
SELECT l.site_id, l.run_id, l.run_at, l.outcome, l.status, l.policy, l.policy_reason, l.unreachable_since,
       CASE WHEN l.policy = 'rules' THEN coalesce(rules.body_id, l.body_id) END,
       CASE WHEN l.policy = 'rules' THEN coalesce(l.rules_run_id, l.run_id) END,
       good.run_id, good.run_at, good.body_id, gb.sha256,
       reach.run_id, reach.outcome, l.response_id, rs.key,
       (SELECT count(*) FROM "snapshots" x WHERE x.site_id = l.site_id
          AND (reach.run_id IS NULL OR (x.run_at, x.run_id) > (reach.run_at, reach.run_id))),
       (SELECT c.run_id FROM "snapshot_changes" c JOIN "audit_runs" cr ON cr.id = c.run_id
        WHERE c.site_id = l.site_id ORDER BY cr.run_at DESC, c.run_id DESC LIMIT 1)
FROM (SELECT DISTINCT ON (site_id) * FROM "snapshots" ORDER BY site_id, run_at DESC, run_id DESC) l
LEFT JOIN "snapshots" rules ON rules.site_id = l.site_id AND rules.run_id = l.rules_run_id
LEFT JOIN "responses" rs ON rs.id = l.response_id
LEFT JOIN LATERAL (
  SELECT g.run_id, g.run_at, g.body_id FROM "snapshots" g WHERE g.site_id = l.site_id AND g.outcome = 'ok'
  ORDER BY g.run_at DESC, g.run_id DESC LIMIT 1
) good ON true
LEFT JOIN "bodies" gb ON gb.id = good.body_id
LEFT JOIN LATERAL (
  SELECT g.run_id, g.run_at, g.outcome FROM "snapshots" g WHERE g.site_id = l.site_id AND g.outcome NOT IN ('server_error', 'network_error')
  ORDER BY g.run_at DESC, g.run_id DESC LIMIT 1
) reach ON true;--> statement-breakpoint
DROP TABLE "verdicts_v4";--> statement-breakpoint
DROP TABLE "fetch_attempts_v4";--> statement-breakpoint
DROP TABLE "snapshots_v4";--> statement-breakpoint
ALTER TABLE "failed_attempts" ADD CONSTRAINT "failed_attempts_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "failed_attempts" ADD CONSTRAINT "failed_attempts_run_id_audit_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."audit_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "failed_attempts" ADD CONSTRAINT "failed_attempts_response_id_responses_id_fk" FOREIGN KEY ("response_id") REFERENCES "public"."responses"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "site_state" ADD CONSTRAINT "site_state_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_run_id_audit_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."audit_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_body_id_bodies_id_fk" FOREIGN KEY ("body_id") REFERENCES "public"."bodies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_response_id_responses_id_fk" FOREIGN KEY ("response_id") REFERENCES "public"."responses"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verdicts" ADD CONSTRAINT "verdicts_tracked_url_id_tracked_urls_id_fk" FOREIGN KEY ("tracked_url_id") REFERENCES "public"."tracked_urls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verdicts" ADD CONSTRAINT "verdicts_user_agent_id_user_agents_id_fk" FOREIGN KEY ("user_agent_id") REFERENCES "public"."user_agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "snapshots_run_brin" ON "snapshots" USING brin ("run_id");--> statement-breakpoint
CREATE UNIQUE INDEX "verdicts_open_key" ON "verdicts" USING btree ("tracked_url_id","user_agent_id") WHERE "verdicts"."to_run_id" is null;--> statement-breakpoint
CREATE VIEW "public"."fetch_attempts" AS (
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
  left join bodies b on b.id = a.body_id);--> statement-breakpoint
CREATE VIEW "public"."verdict_history" AS (
  select t.site_id, s.origin, t.id as tracked_url_id, t.url, t.is_root, a.id as user_agent_id, a.token, a.family,
         v.valid_from, v.valid_to, v.from_run_id, v.to_run_id, v.allowed, v.rule_line
  from verdicts v
  join tracked_urls t on t.id = v.tracked_url_id
  join sites s on s.id = t.site_id
  join user_agents a on a.id = v.user_agent_id);--> statement-breakpoint
CREATE VIEW "public"."site_latest" AS (
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
  left join bodies b on b.id = n.body_id);--> statement-breakpoint
CREATE VIEW "public"."verdict_latest" AS (
  select st.site_id, s.origin, t.id as tracked_url_id, t.url, t.is_root, a.id as user_agent_id, a.token, a.family,
         st.run_id, st.run_at, st.policy, v.allowed, v.rule_line, v.valid_from as since, v.from_run_id as since_run_id
  from site_state st
  join sites s on s.id = st.site_id
  join tracked_urls t on t.site_id = st.site_id
  join verdicts v on v.tracked_url_id = t.id and v.to_run_id is null
  join user_agents a on a.id = v.user_agent_id);
