ALTER TYPE "public"."fetch_outcome" ADD VALUE 'challenged';--> statement-breakpoint
ALTER TABLE "site_state" ADD COLUMN "challenged_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "site_state" ADD COLUMN "flapping_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "site_state" ADD COLUMN "stable_nights" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "site_state" ADD COLUMN "recent_versions" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "flapping" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "confirm_sha256" "bytea";--> statement-breakpoint
CREATE OR REPLACE VIEW "public"."site_status" AS (
  select s.id as site_id, s.origin, s.enabled,
         coalesce((select array_agg(p.name order by p.name) from portfolio_sites ps join portfolios p on p.id = ps.portfolio_id where ps.site_id = s.id), '{}'::text[]) as portfolios,
         st.run_id, st.run_at as checked_at, st.outcome, st.status, st.policy, st.policy_reason, since.run_at as policy_since,
         st.failed_nights, st.unreachable_since,
         (extract(epoch from st.run_at - st.unreachable_since) / 86400)::integer as days_unreachable,
         coalesce(b.size, 0) as body_bytes, n.truncated, b.groups, b.rules, b.sitemaps, b.lint_errors, b.lint_warnings, b.lint_infos,
         st.last_change_run_id, lc.run_at as last_change_at,
         st.challenged_since as unverified_since, st.flapping_since is not null as flapping, st.flapping_since
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
         coalesce((r.counts -> 'outcome' ->> 'challenged')::integer, 0) as challenged
  from audit_runs r left join portfolios p on p.id = r.portfolio_id);
