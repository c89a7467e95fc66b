-- 0006_reporting (issue 10): the rules and the root access of every body, stored with it so that
-- SQL can read them (a body is parsed by the worker when first seen; bodies stored before this
-- migration are indexed by `robots-audit db migrate` right after it, see src/services/body-index.ts),
-- the crawler catalogue's columns, and the reporting views (docs/sql-reporting.md).
CREATE TABLE "body_agent_access" (
	"body_id" integer NOT NULL,
	"token" text NOT NULL,
	"rule_line" integer,
	"allowed" boolean NOT NULL,
	CONSTRAINT "body_agent_access_pkey" PRIMARY KEY("body_id","token")
);
--> statement-breakpoint
CREATE TABLE "body_rules" (
	"body_id" integer NOT NULL,
	"line" integer NOT NULL,
	"group_no" smallint NOT NULL,
	"kind" text NOT NULL,
	"user_agents" text[] NOT NULL,
	"value" text NOT NULL,
	"pattern" text NOT NULL,
	CONSTRAINT "body_rules_pkey" PRIMARY KEY("body_id","line")
);
--> statement-breakpoint
ALTER TABLE "bodies" ADD COLUMN "content_signals" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "bodies" ADD COLUMN "indexed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "user_agents" ADD COLUMN "category" text;--> statement-breakpoint
ALTER TABLE "user_agents" ADD COLUMN "operator" text;--> statement-breakpoint
ALTER TABLE "body_agent_access" ADD CONSTRAINT "body_agent_access_body_id_bodies_id_fk" FOREIGN KEY ("body_id") REFERENCES "public"."bodies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "body_rules" ADD CONSTRAINT "body_rules_body_id_bodies_id_fk" FOREIGN KEY ("body_id") REFERENCES "public"."bodies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "verdicts_open_agent_idx" ON "verdicts" USING btree ("user_agent_id","allowed") WHERE "verdicts"."to_run_id" is null;--> statement-breakpoint
-- What the reports of docs/sql-reporting.md read without scanning a year of nights: the nights that
-- did not reach their site (5xx streaks), the nights whose body was cut (over 500 KiB, R-18), the
-- bodies with lint errors. Each holds the few rows that are not ordinary.
CREATE INDEX "snapshots_unreachable_idx" ON "snapshots" USING btree ("site_id","unreachable_since","run_at","outcome") WHERE "snapshots"."outcome" in ('server_error', 'network_error');--> statement-breakpoint
CREATE INDEX "snapshots_truncated_idx" ON "snapshots" USING btree ("site_id","run_at") WHERE "snapshots"."truncated";--> statement-breakpoint
CREATE INDEX "bodies_lint_errors_idx" ON "bodies" USING btree ("id") WHERE "bodies"."lint_errors" > 0;--> statement-breakpoint
-- May a crawler fetch the root under a night's policy? Its own row of the rules body, else the
-- body's `*` row; allow_all / disallow_all answer alone (R-10..R-15, D-3).
CREATE FUNCTION robots_audit_root_access(policy effective_policy, rules_body_id integer, agent text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  select case policy
    when 'allow_all' then true
    when 'disallow_all' then false
    else coalesce((select a.allowed from body_agent_access a where a.body_id = rules_body_id and a.token = lower(agent)),
                  (select a.allowed from body_agent_access a where a.body_id = rules_body_id and a.token = '*'),
                  true)
  end
$$;
--> statement-breakpoint
-- The nights of each site that may have changed what a crawler reads (a new version, another
-- outcome or policy, the 30-day fallback), with the policy and the rules body of that night.
CREATE VIEW "public"."site_rule_nights" AS (
  select c.site_id, c.run_id, r.run_at, n.policy,
         case when n.policy = 'rules' then coalesce(src.body_id, n.body_id) end as rules_body_id
  from snapshot_changes c
  join audit_runs r on r.id = c.run_id
  join snapshots n on n.site_id = c.site_id and n.run_at = r.run_at and n.run_id = c.run_id
  left join audit_runs rr on rr.id = n.rules_run_id
  left join snapshots src on src.site_id = n.site_id and src.run_at = rr.run_at and src.run_id = n.rules_run_id
  where c.kinds && '{first_seen,rules,outcome,policy,fallback_started,fallback_ended}'::text[]);--> statement-breakpoint
CREATE VIEW "public"."site_status" AS (
  select s.id as site_id, s.origin, s.enabled,
         coalesce((select array_agg(p.name order by p.name) from portfolio_sites ps join portfolios p on p.id = ps.portfolio_id where ps.site_id = s.id), '{}'::text[]) as portfolios,
         st.run_id, st.run_at as checked_at, st.outcome, st.status, st.policy, st.policy_reason, since.run_at as policy_since,
         st.failed_nights, st.unreachable_since,
         (extract(epoch from st.run_at - st.unreachable_since) / 86400)::integer as days_unreachable,
         coalesce(b.size, 0) as body_bytes, n.truncated, b.groups, b.rules, b.sitemaps, b.lint_errors, b.lint_warnings, b.lint_infos,
         st.last_change_run_id, lc.run_at as last_change_at
  from sites s
  join site_state st on st.site_id = s.id
  join snapshots n on n.site_id = st.site_id and n.run_at = st.run_at and n.run_id = st.run_id
  left join bodies b on b.id = n.body_id
  left join audit_runs lc on lc.id = st.last_change_run_id
  left join lateral (
    select r.run_at from snapshot_changes c join audit_runs r on r.id = c.run_id
    where c.site_id = s.id and c.kinds && '{first_seen,outcome,policy,fallback_started,fallback_ended}'::text[]
    order by r.run_at desc limit 1
  ) since on true);--> statement-breakpoint
CREATE VIEW "public"."current_rules" AS (
  select s.id as site_id, s.origin, st.policy_reason, r.group_no, r.user_agents, r.kind, r.value, r.pattern, r.line
  from sites s
  join site_state st on st.site_id = s.id
  join body_rules r on r.body_id = st.rules_body_id);--> statement-breakpoint
CREATE VIEW "public"."change_log" AS (
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
  from alerts l join audit_runs r on r.id = l.run_id join sites s on s.id = l.site_id);--> statement-breakpoint
CREATE VIEW "public"."ai_access" AS (
  select s.id as site_id, s.origin, a.id as user_agent_id, a.token, a.category, a.operator,
         robots_audit_root_access(st.policy, st.rules_body_id, a.token) as allowed,
         since.run_id as since_run_id, since.run_at as since,
         coalesce(b.content_signals, '{}'::text[]) as content_signals
  from site_state st
  join sites s on s.id = st.site_id
  join user_agents a on a.category like 'ai-%'
  left join bodies b on b.id = st.rules_body_id
  left join lateral (
    -- The first night of the stretch that ends now: after the latest night whose answer differs.
    select h.run_id, h.run_at from site_rule_nights h
    where h.site_id = st.site_id
      and h.run_at > coalesce((
        select max(d.run_at) from site_rule_nights d
        where d.site_id = st.site_id
          and robots_audit_root_access(d.policy, d.rules_body_id, a.token) <> robots_audit_root_access(st.policy, st.rules_body_id, a.token)
      ), '-infinity'::timestamptz)
    order by h.run_at limit 1
  ) since on true);--> statement-breakpoint
CREATE VIEW "public"."run_summary" AS (
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
         (select count(*) from alerts l where l.run_id = r.id)::integer as alerts
  from audit_runs r left join portfolios p on p.id = r.portfolio_id);--> statement-breakpoint
-- The verdicts of every tracked URL x agent on a given night (the spans in force on it).
CREATE FUNCTION verdicts_on(night timestamptz) RETURNS SETOF verdict_history
LANGUAGE sql STABLE AS $$
  select * from verdict_history where valid_from <= night and (valid_to is null or valid_to > night)
$$;
