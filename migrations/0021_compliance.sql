-- Compliance from server logs (issue 29, docs/compliance.md): the crawler requests a log import
-- keeps (only those whose user-agent names a crawler), each judged by the site's robots.txt in
-- force when it was made and checked against its operator's published IP ranges or reverse DNS;
-- the imports themselves (resumable: lines done and the hash of the last one), the user-agent
-- strings once each, and the operators' range files with their own dates. New tables only: no
-- existing row changes. Two views read them: crawler_compliance (site x crawler) and
-- crawler_violations (one row a violation, with the version in force and its deciding line).
CREATE TYPE "public"."crawler_identity" AS ENUM('verified', 'spoofed', 'unverifiable');--> statement-breakpoint
CREATE TYPE "public"."crawler_judgement" AS ENUM('allowed', 'violation', 'cache_window', 'between_versions', 'not_bound', 'robots_txt', 'unjudged');--> statement-breakpoint
CREATE TYPE "public"."identity_method" AS ENUM('ip_ranges', 'reverse_dns', 'none');--> statement-breakpoint
CREATE TABLE "crawler_range_files" (
	"id" serial PRIMARY KEY NOT NULL,
	"source" text NOT NULL,
	"published_at" timestamp with time zone NOT NULL,
	"sha256" "bytea" NOT NULL,
	"prefixes" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "crawler_range_files_source_sha256_key" UNIQUE("source","sha256")
);
--> statement-breakpoint
CREATE TABLE "crawler_requests" (
	"site_id" integer NOT NULL,
	"line_key" "bytea" NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"crawler" text NOT NULL,
	"identity" "crawler_identity" NOT NULL,
	"identity_method" "identity_method" NOT NULL,
	"judgement" "crawler_judgement" NOT NULL,
	"run_id" integer,
	"allowed_by_run_id" integer,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"status" smallint,
	"user_agent_id" integer NOT NULL,
	"client_ip" "inet",
	"rule_line" integer,
	"rule" text,
	"import_id" integer NOT NULL,
	CONSTRAINT "crawler_requests_pkey" PRIMARY KEY("site_id","line_key")
);
--> statement-breakpoint
CREATE TABLE "log_imports" (
	"id" serial PRIMARY KEY NOT NULL,
	"source_key" "bytea" NOT NULL,
	"name" text NOT NULL,
	"format" text NOT NULL,
	"site_id" integer,
	"lines_done" bigint DEFAULT 0 NOT NULL,
	"checkpoint" "bytea",
	"crawler_lines" bigint DEFAULT 0 NOT NULL,
	"stored" bigint DEFAULT 0 NOT NULL,
	"unreadable" bigint DEFAULT 0 NOT NULL,
	"unmatched" bigint DEFAULT 0 NOT NULL,
	"errors" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "log_imports_source_key_unique" UNIQUE("source_key")
);
--> statement-breakpoint
CREATE TABLE "request_user_agents" (
	"id" serial PRIMARY KEY NOT NULL,
	"sha256" "bytea" NOT NULL,
	"text" text NOT NULL,
	CONSTRAINT "request_user_agents_sha256_unique" UNIQUE("sha256")
);
--> statement-breakpoint
ALTER TABLE "crawler_requests" ADD CONSTRAINT "crawler_requests_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crawler_requests" ADD CONSTRAINT "crawler_requests_user_agent_id_request_user_agents_id_fk" FOREIGN KEY ("user_agent_id") REFERENCES "public"."request_user_agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crawler_requests" ADD CONSTRAINT "crawler_requests_import_id_log_imports_id_fk" FOREIGN KEY ("import_id") REFERENCES "public"."log_imports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "log_imports" ADD CONSTRAINT "log_imports_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "crawler_range_files_source_published_idx" ON "crawler_range_files" USING btree ("source","published_at");--> statement-breakpoint
CREATE INDEX "crawler_requests_site_crawler_at_idx" ON "crawler_requests" USING btree ("site_id","crawler","at");--> statement-breakpoint
CREATE FUNCTION crawler_compliance_between(since timestamptz, until timestamptz)
  RETURNS TABLE (site_id integer, origin text, crawler text, requests integer, disallowed integer,
                 violations_verified integer, violations_unverified integer, within_cache_window integer,
                 between_versions integer, not_bound integer, verified integer, spoofed integer,
                 robots_txt_fetches integer, first_robots_txt_fetch timestamptz, last_robots_txt_fetch timestamptz,
                 first_request timestamptz, read_robots_txt_first boolean, first_seen timestamptz, last_seen timestamptz)
  LANGUAGE sql STABLE AS $$
  select r.site_id, s.origin, r.crawler,
         count(*) filter (where r.judgement <> 'robots_txt')::integer,
         count(*) filter (where r.judgement in ('violation', 'cache_window', 'between_versions', 'not_bound'))::integer,
         count(*) filter (where r.judgement = 'violation' and r.identity = 'verified')::integer,
         count(*) filter (where r.judgement = 'violation' and r.identity = 'unverifiable')::integer,
         count(*) filter (where r.judgement = 'cache_window' and r.identity <> 'spoofed')::integer,
         count(*) filter (where r.judgement = 'between_versions' and r.identity <> 'spoofed')::integer,
         count(*) filter (where r.judgement = 'not_bound' and r.identity <> 'spoofed')::integer,
         count(*) filter (where r.identity = 'verified')::integer,
         count(*) filter (where r.identity = 'spoofed')::integer,
         count(*) filter (where r.judgement = 'robots_txt' and r.identity <> 'spoofed')::integer,
         min(r.at) filter (where r.judgement = 'robots_txt' and r.identity <> 'spoofed'),
         max(r.at) filter (where r.judgement = 'robots_txt' and r.identity <> 'spoofed'),
         min(r.at) filter (where r.judgement <> 'robots_txt' and r.identity <> 'spoofed'),
         coalesce(min(r.at) filter (where r.judgement = 'robots_txt' and r.identity <> 'spoofed')
                    <= min(r.at) filter (where r.judgement <> 'robots_txt' and r.identity <> 'spoofed'), false),
         min(r.at), max(r.at)
  from crawler_requests r
  join sites s on s.id = r.site_id
  where (since is null or r.at >= since) and (until is null or r.at < until)
  group by r.site_id, s.origin, r.crawler
$$;--> statement-breakpoint
-- Per site x crawler, over every request imported; crawler_compliance_between(since, until) over a stretch.
CREATE VIEW "public"."crawler_compliance" AS (select * from crawler_compliance_between(null, null));--> statement-breakpoint
CREATE VIEW "public"."crawler_violations" AS (
  select r.site_id, s.origin, r.crawler, r.at, r.identity, r.identity_method, r.method, r.path,
         s.origin || r.path as url, r.status, r.rule_line, r.rule,
         r.run_id as version_run_id, vr.run_at as version_since, n.policy as version_policy,
         encode(b.sha256, 'hex') as version_sha256, host(r.client_ip) as client_ip, ua.text as user_agent
  from crawler_requests r
  join sites s on s.id = r.site_id
  join request_user_agents ua on ua.id = r.user_agent_id
  left join audit_runs vr on vr.id = r.run_id
  left join site_rule_nights n on n.site_id = r.site_id and n.run_id = r.run_id
  left join bodies b on b.id = n.rules_body_id
  where r.judgement = 'violation');