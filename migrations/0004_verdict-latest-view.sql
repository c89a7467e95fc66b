CREATE VIEW "public"."verdict_latest" AS (
  select l.site_id, l.origin, t.id as tracked_url_id, t.url, t.is_root, a.id as user_agent_id, a.token, a.family,
         l.run_id, l.fetched_at, l.policy, v.allowed, v.rule_line
  from site_latest l
  join tracked_urls t on t.site_id = l.site_id
  join verdicts v on v.tracked_url_id = t.id and v.run_id = l.run_id
  join user_agents a on a.id = v.user_agent_id);