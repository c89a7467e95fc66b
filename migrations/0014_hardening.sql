-- Issue 17: a group's user-agent values are stored once per body (body_groups), not copied into
-- every rule row of body_rules (a group of 15,000 user-agent lines over 27,000 rules made
-- 405 million array elements). Existing rows carry over: each group that has rules gets its row
-- from its first rule's copy. current_rules keeps its columns, now joined from body_groups.
-- A night that cannot be stored is recorded with the outcome night_failed (appended last).
-- Runs of `fetch --store` made before this release have no site list, and one whose store
-- failed stayed `running`, which reconcile read as every site: each gets the sites it stored
-- (none when it stored nothing), and one still running ends as failed.
ALTER TYPE "public"."fetch_outcome" ADD VALUE 'night_failed';--> statement-breakpoint
DROP VIEW "public"."current_rules";--> statement-breakpoint
CREATE TABLE "body_groups" (
	"body_id" integer NOT NULL,
	"group_no" smallint NOT NULL,
	"user_agents" text[] NOT NULL,
	CONSTRAINT "body_groups_pkey" PRIMARY KEY("body_id","group_no")
);
--> statement-breakpoint
ALTER TABLE "body_groups" ADD CONSTRAINT "body_groups_body_id_bodies_id_fk" FOREIGN KEY ("body_id") REFERENCES "public"."bodies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
INSERT INTO "body_groups" ("body_id", "group_no", "user_agents")
  SELECT DISTINCT ON (body_id, group_no) body_id, group_no, user_agents FROM body_rules ORDER BY body_id, group_no, line;--> statement-breakpoint
ALTER TABLE "body_rules" DROP COLUMN "user_agents";--> statement-breakpoint
CREATE VIEW "public"."current_rules" AS (
  select s.id as site_id, s.origin, st.policy_reason, r.group_no, g.user_agents, r.kind, r.value, r.pattern, r.line
  from sites s
  join site_state st on st.site_id = s.id
  join body_rules r on r.body_id = st.rules_body_id
  join body_groups g on g.body_id = r.body_id and g.group_no = r.group_no);--> statement-breakpoint
UPDATE "audit_runs" r SET
  "site_ids" = coalesce((select array_agg(distinct n.site_id order by n.site_id) from snapshots n where n.run_id = r.id), '{}'::int[]),
  "status" = case when r.status = 'running' then 'failed'::run_status else r.status end,
  "finished_at" = coalesce(r.finished_at, now())
WHERE r.run_key like 'fetch-%' and r.trigger = 'manual' and r.site_ids is null;
