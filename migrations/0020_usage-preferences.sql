-- Usage preferences (issue 28, docs/usage-preferences.md): what each crawler is told about the
-- use of a tracked URL's content, kept on the verdict span beside the crawl verdict (three
-- nullable booleans: allowed, refused, NULL unknown; the deciding lines in usage_rules), and
-- the changes in usage_flips. Every existing span carries over as it was, with usage_read false:
-- its preferences were never read, so the first night that reads them (ENGINE_VERSION 3
-- re-evaluates every site once) records them without calling it a change. The two verdict views
-- gain the preferences as words at their end (CREATE OR REPLACE keeps their dependants), and the
-- ai_use view lists them purpose by purpose; run_summary counts the usage flips of a run, and
-- change_log lists them as events of their own ('usage').
CREATE FUNCTION robots_audit_usage(crawl_allowed boolean, stated boolean) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  select case when not crawl_allowed then 'not-crawlable' when stated then 'allowed' when not stated then 'refused' else 'unknown' end
$$;--> statement-breakpoint
CREATE TABLE "usage_flips" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" integer NOT NULL,
	"site_id" integer NOT NULL,
	"tracked_url_id" integer NOT NULL,
	"user_agent_id" integer NOT NULL,
	"purpose" text NOT NULL,
	"from_preference" text NOT NULL,
	"to_preference" text NOT NULL,
	"rule_before" jsonb,
	"rule_after" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "usage_flips_url_run_agent_purpose_key" UNIQUE("tracked_url_id","run_id","user_agent_id","purpose")
);
--> statement-breakpoint
ALTER TABLE "verdicts" ADD COLUMN "usage_search" boolean;--> statement-breakpoint
ALTER TABLE "verdicts" ADD COLUMN "usage_ai_train" boolean;--> statement-breakpoint
ALTER TABLE "verdicts" ADD COLUMN "usage_ai_input" boolean;--> statement-breakpoint
ALTER TABLE "verdicts" ADD COLUMN "usage_rules" jsonb;--> statement-breakpoint
ALTER TABLE "verdicts" ADD COLUMN "usage_read" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_flips" ADD CONSTRAINT "usage_flips_run_id_audit_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."audit_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_flips" ADD CONSTRAINT "usage_flips_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_flips" ADD CONSTRAINT "usage_flips_tracked_url_id_tracked_urls_id_fk" FOREIGN KEY ("tracked_url_id") REFERENCES "public"."tracked_urls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_flips" ADD CONSTRAINT "usage_flips_user_agent_id_user_agents_id_fk" FOREIGN KEY ("user_agent_id") REFERENCES "public"."user_agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "usage_flips_run_idx" ON "usage_flips" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "usage_flips_site_idx" ON "usage_flips" USING btree ("site_id");--> statement-breakpoint
CREATE OR REPLACE VIEW "public"."verdict_history" AS (
  select t.site_id, s.origin, t.id as tracked_url_id, t.url, t.is_root, a.id as user_agent_id, a.token, a.family,
         v.valid_from, v.valid_to, v.from_run_id, v.to_run_id, v.allowed, v.rule_line, v.parser_profile, v.parser_allowed,
         robots_audit_usage(v.allowed, v.usage_search) as usage_search,
         robots_audit_usage(v.allowed, v.usage_ai_train) as usage_ai_train,
         robots_audit_usage(v.allowed, v.usage_ai_input) as usage_ai_input,
         v.usage_rules
  from verdicts v
  join tracked_urls t on t.id = v.tracked_url_id
  join sites s on s.id = t.site_id
  join user_agents a on a.id = v.user_agent_id);--> statement-breakpoint
CREATE OR REPLACE VIEW "public"."verdict_latest" AS (
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
  join user_agents a on a.id = v.user_agent_id);--> statement-breakpoint
CREATE VIEW "public"."ai_use" AS (
  select st.site_id, s.origin, t.id as tracked_url_id, t.url, t.is_root, a.id as user_agent_id, a.token, a.family, a.category,
         p.purpose, robots_audit_usage(v.allowed, p.stated) as preference, v.allowed as crawl_allowed,
         case when v.allowed and p.stated is not null then (v.usage_rules -> p.purpose ->> 'since')::timestamptz end as since,
         (v.usage_rules -> p.purpose ->> 'line')::integer as line,
         v.usage_rules -> p.purpose ->> 'mechanism' as mechanism,
         v.usage_rules -> p.purpose ->> 'label' as label,
         v.usage_rules -> p.purpose ->> 'value' as value
  from site_state st
  join sites s on s.id = st.site_id
  join tracked_urls t on t.site_id = st.site_id
  join verdicts v on v.tracked_url_id = t.id and v.to_run_id is null
  join user_agents a on a.id = v.user_agent_id
  cross join lateral (values ('search', v.usage_search), ('ai-train', v.usage_ai_train), ('ai-input', v.usage_ai_input)) as p(purpose, stated));--> statement-breakpoint
CREATE OR REPLACE VIEW "public"."run_summary" AS (
  select r.id as run_id, r.run_key, r.trigger, r.status, p.name as portfolio, r.run_at, r.started_at, r.finished_at,
         (extract(epoch from r.finished_at - r.started_at))::integer as seconds,
         r.sites_total, r.sites_done,
         (select count(*) from jsonb_object_keys(coalesce(r.counts -> 'skipped', '{}'::jsonb)))::integer as sites_skipped,
         (select count(*) from jsonb_object_keys(coalesce(r.counts -> 'failed', '{}'::jsonb)))::integer as sites_failed,
         coalesce((r.counts -> 'outcome' ->> 'ok')::integer, 0) as ok,
         coalesce((r.counts -> 'outcome' ->> 'unavailable')::integer, 0) as unavailable,
         coalesce((r.counts -> 'outcome' ->> 'rate_limited')::integer, 0) as rate_limited,
         coalesce((r.counts -> 'outcome' ->> 'server_error')::integer, 0) as server_error,
         coalesce((r.counts -> 'outcome' ->> 'network_error')::integer, 0) as network_error,
         coalesce((r.counts -> 'outcome' ->> 'redirect_limit')::integer, 0) as redirect_limit,
         (select count(*) from snapshot_changes c where c.run_id = r.id and c.kinds <> '{first_seen}'::text[])::integer as changes,
         (select count(*) from verdict_flips f where f.run_id = r.id)::integer as flips,
         (select count(*) from alerts l where l.run_id = r.id)::integer as alerts,
         coalesce((r.counts -> 'outcome' ->> 'challenged')::integer, 0) as challenged,
         (select count(*) from usage_flips u where u.run_id = r.id)::integer as usage_flips
  from audit_runs r left join portfolios p on p.id = r.portfolio_id);--> statement-breakpoint
CREATE OR REPLACE VIEW "public"."change_log" AS (
  select r.run_at as at, c.run_id, c.site_id, s.origin, 'change'::text as event, array_to_string(c.kinds, ',') as kind,
         null::alert_severity as severity, null::text as url, null::text as agent, null::boolean as allowed, c.text_diff as detail
  from snapshot_changes c join audit_runs r on r.id = c.run_id join sites s on s.id = c.site_id
  union all
  select r.run_at, f.run_id, f.site_id, s.origin, 'flip', f.cause, null, t.url, a.token, f.to_allowed,
         coalesce(f.rule_after ->> 'kind' || ' ' || (f.rule_after ->> 'value') || ' (line ' || (f.rule_after ->> 'line') || ')', 'no rule')
  from verdict_flips f join audit_runs r on r.id = f.run_id join sites s on s.id = f.site_id
  join tracked_urls t on t.id = f.tracked_url_id join user_agents a on a.id = f.user_agent_id
  union all
  select r.run_at, l.run_id, l.site_id, s.origin, 'alert', l.kind, l.severity, null, null, null, l.title
  from alerts l join audit_runs r on r.id = l.run_id join sites s on s.id = l.site_id
  union all
  select r.run_at, u.run_id, u.site_id, s.origin, 'usage', u.purpose || ': ' || u.from_preference || ' -> ' || u.to_preference, null, t.url, a.token,
         case u.to_preference when 'allowed' then true when 'refused' then false end,
         coalesce(u.rule_after ->> 'mechanism' || ' ' || (u.rule_after ->> 'value') || ' (line ' || (u.rule_after ->> 'line') || ')', 'no line')
  from usage_flips u join audit_runs r on r.id = u.run_id join sites s on s.id = u.site_id
  join tracked_urls t on t.id = u.tracked_url_id join user_agents a on a.id = u.user_agent_id);
