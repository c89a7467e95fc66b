-- The verdict under a crawler's own parser (src/robots/parser-verdicts.ts), kept on the verdict
-- span only where it differs from Google's parser's: two nullable columns, NULL on every existing
-- row (no parser verdict yet). The evaluation key now covers which crawlers get one
-- (PARSER_VERDICTS_KEY), so the next night evaluates every site again, as an ENGINE_VERSION bump
-- does, and opens new spans where a parser verdict differs. The two views gain the columns at
-- their end (CREATE OR REPLACE keeps their dependants).
ALTER TABLE "verdicts" ADD COLUMN "parser_profile" text;--> statement-breakpoint
ALTER TABLE "verdicts" ADD COLUMN "parser_allowed" boolean;--> statement-breakpoint
CREATE OR REPLACE VIEW "public"."verdict_history" AS (
  select t.site_id, s.origin, t.id as tracked_url_id, t.url, t.is_root, a.id as user_agent_id, a.token, a.family,
         v.valid_from, v.valid_to, v.from_run_id, v.to_run_id, v.allowed, v.rule_line, v.parser_profile, v.parser_allowed
  from verdicts v
  join tracked_urls t on t.id = v.tracked_url_id
  join sites s on s.id = t.site_id
  join user_agents a on a.id = v.user_agent_id);--> statement-breakpoint
CREATE OR REPLACE VIEW "public"."verdict_latest" AS (
  select st.site_id, s.origin, t.id as tracked_url_id, t.url, t.is_root, a.id as user_agent_id, a.token, a.family,
         st.run_id, st.run_at, st.policy, v.allowed, v.rule_line, v.valid_from as since, v.from_run_id as since_run_id,
         v.parser_profile, v.parser_allowed
  from site_state st
  join sites s on s.id = st.site_id
  join tracked_urls t on t.site_id = st.site_id
  join verdicts v on v.tracked_url_id = t.id and v.to_run_id is null
  join user_agents a on a.id = v.user_agent_id);
