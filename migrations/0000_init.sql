CREATE TYPE "public"."alert_severity" AS ENUM('critical', 'warning', 'info');--> statement-breakpoint
CREATE TYPE "public"."channel_kind" AS ENUM('webhook', 'slack');--> statement-breakpoint
CREATE TYPE "public"."delivery_status" AS ENUM('pending', 'delivered', 'failed');--> statement-breakpoint
CREATE TYPE "public"."effective_policy" AS ENUM('rules', 'allow_all', 'disallow_all');--> statement-breakpoint
CREATE TYPE "public"."fetch_outcome" AS ENUM('ok', 'unavailable', 'rate_limited', 'server_error', 'network_error', 'redirect_limit');--> statement-breakpoint
CREATE TYPE "public"."run_status" AS ENUM('running', 'completed', 'failed');--> statement-breakpoint
CREATE TYPE "public"."run_trigger" AS ENUM('scheduled', 'manual');--> statement-breakpoint
CREATE TABLE "alert_channels" (
	"id" serial PRIMARY KEY NOT NULL,
	"kind" "channel_kind" NOT NULL,
	"url" text NOT NULL,
	"secret" text,
	"min_severity" "alert_severity" DEFAULT 'warning' NOT NULL,
	"digest" boolean DEFAULT false NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alert_channels_kind_url_key" UNIQUE("kind","url")
);
--> statement-breakpoint
CREATE TABLE "alert_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"channel_id" integer NOT NULL,
	"alert_id" bigint,
	"run_id" integer,
	"dedupe_key" text NOT NULL,
	"status" "delivery_status" DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"last_status" integer,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alert_deliveries_dedupe_key_unique" UNIQUE("dedupe_key")
);
--> statement-breakpoint
CREATE TABLE "alerts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"dedupe_key" text NOT NULL,
	"run_id" integer,
	"site_id" integer,
	"severity" "alert_severity" NOT NULL,
	"kind" text NOT NULL,
	"title" text NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alerts_dedupe_key_unique" UNIQUE("dedupe_key")
);
--> statement-breakpoint
CREATE TABLE "audit_runs" (
	"id" serial PRIMARY KEY NOT NULL,
	"run_key" text NOT NULL,
	"trigger" "run_trigger" NOT NULL,
	"portfolio_id" integer,
	"run_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"status" "run_status" DEFAULT 'running' NOT NULL,
	"sites_total" integer DEFAULT 0 NOT NULL,
	"counts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "audit_runs_run_key_unique" UNIQUE("run_key")
);
--> statement-breakpoint
CREATE TABLE "bodies" (
	"sha256" "bytea" PRIMARY KEY NOT NULL,
	"content" "bytea" NOT NULL,
	"size" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bodies_sha256_length" CHECK (octet_length("bodies"."sha256") = 32)
);
--> statement-breakpoint
CREATE TABLE "fetch_attempts" (
	"started_at" timestamp with time zone NOT NULL,
	"run_id" integer NOT NULL,
	"site_id" integer NOT NULL,
	"duration_ms" integer NOT NULL,
	"outcome" "fetch_outcome" NOT NULL,
	"body_bytes" integer DEFAULT 0 NOT NULL,
	"full_size" integer,
	"cache_lifetime_seconds" integer,
	"attempt" smallint NOT NULL,
	"status" smallint,
	"truncated" boolean DEFAULT false NOT NULL,
	"requested_url" text NOT NULL,
	"final_url" text,
	"hops" jsonb,
	"error_code" text,
	"error_message" text,
	"remote_address" text,
	"body_sha256" "bytea",
	"content_type" text,
	"cache_control" text,
	"expires" text,
	"age" text,
	"retry_after" text,
	"last_modified" text,
	"etag" text,
	"content_encoding" text,
	CONSTRAINT "fetch_attempts_pkey" PRIMARY KEY("site_id","run_id","attempt")
);
--> statement-breakpoint
CREATE TABLE "portfolio_sites" (
	"portfolio_id" integer NOT NULL,
	"site_id" integer NOT NULL,
	CONSTRAINT "portfolio_sites_portfolio_id_site_id_pk" PRIMARY KEY("portfolio_id","site_id")
);
--> statement-breakpoint
CREATE TABLE "portfolios" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"extra_user_agents" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "portfolios_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "sites" (
	"id" serial PRIMARY KEY NOT NULL,
	"origin" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"labels" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sites_origin_unique" UNIQUE("origin")
);
--> statement-breakpoint
CREATE TABLE "snapshot_changes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"snapshot_id" bigint NOT NULL,
	"previous_snapshot_id" bigint,
	"run_id" integer NOT NULL,
	"site_id" integer NOT NULL,
	"outcome_from" "fetch_outcome",
	"outcome_to" "fetch_outcome" NOT NULL,
	"policy_from" "effective_policy",
	"policy_to" "effective_policy" NOT NULL,
	"kinds" text[] NOT NULL,
	"text_diff" text,
	"rule_diff" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "snapshot_changes_snapshot_id_unique" UNIQUE("snapshot_id")
);
--> statement-breakpoint
CREATE TABLE "snapshots" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL,
	"policy_snapshot_id" bigint,
	"unreachable_since" timestamp with time zone,
	"run_id" integer NOT NULL,
	"site_id" integer NOT NULL,
	"outcome" "fetch_outcome" NOT NULL,
	"policy" "effective_policy" NOT NULL,
	"body_bytes" integer DEFAULT 0 NOT NULL,
	"rules" integer DEFAULT 0 NOT NULL,
	"status" smallint,
	"attempts" smallint NOT NULL,
	"groups" smallint DEFAULT 0 NOT NULL,
	"sitemaps" smallint DEFAULT 0 NOT NULL,
	"lint_errors" smallint DEFAULT 0 NOT NULL,
	"lint_warnings" smallint DEFAULT 0 NOT NULL,
	"lint_infos" smallint DEFAULT 0 NOT NULL,
	"truncated" boolean DEFAULT false NOT NULL,
	"policy_reason" text NOT NULL,
	"body_sha256" "bytea",
	CONSTRAINT "snapshots_run_site_key" UNIQUE("run_id","site_id")
);
--> statement-breakpoint
CREATE TABLE "tracked_urls" (
	"id" serial PRIMARY KEY NOT NULL,
	"site_id" integer NOT NULL,
	"url" text NOT NULL,
	"path" text NOT NULL,
	"is_root" boolean DEFAULT false NOT NULL,
	"extra_agents" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tracked_urls_site_url_key" UNIQUE("site_id","url")
);
--> statement-breakpoint
CREATE TABLE "user_agents" (
	"id" serial PRIMARY KEY NOT NULL,
	"token" text NOT NULL,
	"family" text,
	"is_default" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "verdict_flips" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" integer NOT NULL,
	"site_id" integer NOT NULL,
	"tracked_url_id" integer NOT NULL,
	"user_agent_id" integer NOT NULL,
	"from_allowed" boolean,
	"to_allowed" boolean NOT NULL,
	"cause" text NOT NULL,
	"rule_before" jsonb,
	"rule_after" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "verdict_flips_url_run_agent_key" UNIQUE("tracked_url_id","run_id","user_agent_id")
);
--> statement-breakpoint
CREATE TABLE "verdicts" (
	"tracked_url_id" integer NOT NULL,
	"run_id" integer NOT NULL,
	"user_agent_id" integer NOT NULL,
	"rule_line" integer,
	"allowed" boolean NOT NULL,
	CONSTRAINT "verdicts_tracked_url_id_run_id_user_agent_id_pk" PRIMARY KEY("tracked_url_id","run_id","user_agent_id")
);
--> statement-breakpoint
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_channel_id_alert_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."alert_channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_run_id_audit_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."audit_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_run_id_audit_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."audit_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_runs" ADD CONSTRAINT "audit_runs_portfolio_id_portfolios_id_fk" FOREIGN KEY ("portfolio_id") REFERENCES "public"."portfolios"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fetch_attempts" ADD CONSTRAINT "fetch_attempts_run_id_audit_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."audit_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fetch_attempts" ADD CONSTRAINT "fetch_attempts_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fetch_attempts" ADD CONSTRAINT "fetch_attempts_body_sha256_bodies_sha256_fk" FOREIGN KEY ("body_sha256") REFERENCES "public"."bodies"("sha256") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "portfolio_sites" ADD CONSTRAINT "portfolio_sites_portfolio_id_portfolios_id_fk" FOREIGN KEY ("portfolio_id") REFERENCES "public"."portfolios"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "portfolio_sites" ADD CONSTRAINT "portfolio_sites_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snapshot_changes" ADD CONSTRAINT "snapshot_changes_snapshot_id_snapshots_id_fk" FOREIGN KEY ("snapshot_id") REFERENCES "public"."snapshots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snapshot_changes" ADD CONSTRAINT "snapshot_changes_run_id_audit_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."audit_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snapshot_changes" ADD CONSTRAINT "snapshot_changes_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_run_id_audit_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."audit_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_body_sha256_bodies_sha256_fk" FOREIGN KEY ("body_sha256") REFERENCES "public"."bodies"("sha256") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tracked_urls" ADD CONSTRAINT "tracked_urls_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verdict_flips" ADD CONSTRAINT "verdict_flips_run_id_audit_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."audit_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verdict_flips" ADD CONSTRAINT "verdict_flips_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verdict_flips" ADD CONSTRAINT "verdict_flips_tracked_url_id_tracked_urls_id_fk" FOREIGN KEY ("tracked_url_id") REFERENCES "public"."tracked_urls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verdict_flips" ADD CONSTRAINT "verdict_flips_user_agent_id_user_agents_id_fk" FOREIGN KEY ("user_agent_id") REFERENCES "public"."user_agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verdicts" ADD CONSTRAINT "verdicts_tracked_url_id_tracked_urls_id_fk" FOREIGN KEY ("tracked_url_id") REFERENCES "public"."tracked_urls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verdicts" ADD CONSTRAINT "verdicts_run_id_audit_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."audit_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verdicts" ADD CONSTRAINT "verdicts_user_agent_id_user_agents_id_fk" FOREIGN KEY ("user_agent_id") REFERENCES "public"."user_agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_deliveries_channel_idx" ON "alert_deliveries" USING btree ("channel_id","status");--> statement-breakpoint
CREATE INDEX "alert_deliveries_alert_idx" ON "alert_deliveries" USING btree ("alert_id");--> statement-breakpoint
CREATE INDEX "alerts_run_idx" ON "alerts" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "alerts_site_idx" ON "alerts" USING btree ("site_id");--> statement-breakpoint
CREATE INDEX "portfolio_sites_site_idx" ON "portfolio_sites" USING btree ("site_id");--> statement-breakpoint
CREATE INDEX "snapshot_changes_run_idx" ON "snapshot_changes" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "snapshot_changes_site_idx" ON "snapshot_changes" USING btree ("site_id","run_id");--> statement-breakpoint
CREATE INDEX "snapshots_site_fetched_idx" ON "snapshots" USING btree ("site_id","fetched_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "tracked_urls_one_root_per_site" ON "tracked_urls" USING btree ("site_id") WHERE "tracked_urls"."is_root";--> statement-breakpoint
CREATE UNIQUE INDEX "user_agents_token_lower_key" ON "user_agents" USING btree (lower("token"));--> statement-breakpoint
CREATE INDEX "verdict_flips_run_idx" ON "verdict_flips" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "verdict_flips_site_idx" ON "verdict_flips" USING btree ("site_id");--> statement-breakpoint
CREATE VIEW "public"."site_latest" AS (
  select s.id as site_id, s.origin, s.enabled,
         l.id as snapshot_id, l.run_id, l.fetched_at, l.outcome, l.status, l.policy, l.policy_reason,
         l.policy_snapshot_id, l.unreachable_since, l.body_sha256, l.body_bytes, l.truncated,
         l.groups, l.rules, l.sitemaps, l.lint_errors, l.lint_warnings, l.lint_infos
  from sites s
  cross join lateral (
    select * from snapshots x where x.site_id = s.id order by x.fetched_at desc, x.id desc limit 1
  ) l);