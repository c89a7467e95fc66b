-- The dashboard overview's counts (src/reports/web-overview.ts): every site, and the audited ones
-- by the state of their latest night (STATE_CONDITION, src/reports/site-state-conditions.ts),
-- without reading site_state whole. At 1,000,000 sites that read was ~700 MB (site_state keeps
-- half of each page free) and took about a second per page view; the count of sites another 0.1 s.
--
-- Triggers on sites and site_state add, per statement, one row per group of the columns the
-- states test, with how many rows joined (+) or left (-) the group; a reader sums them. A row per
-- statement, never an update of a shared row: writers never wait for one another here, and a
-- night that changes no group (an unchanged night) adds nothing. The rows are the writer's, so
-- a reader sees the counts of exactly the states it sees. The end of a run folds them into one
-- row per group (robots_audit_fold_site_counts), so their number stays that of the groups plus
-- what a night added.
CREATE TABLE "site_counts" (
	-- false: a row counting sites (no other column set); true: audited sites (site_state rows).
	"audited" boolean NOT NULL,
	"outcome" "fetch_outcome",
	"policy" "effective_policy",
	"policy_reason" text,
	"last_change_run_id" integer,
	-- Only whether these are set matters to the counts: the epoch when set, NULL otherwise.
	"challenged_since" timestamp with time zone,
	"flapping_since" timestamp with time zone,
	"n" bigint NOT NULL
);
--> statement-breakpoint
CREATE FUNCTION robots_audit_count_site_states() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- A site_state row's group.
  state_group constant text := 'outcome, policy, policy_reason, last_change_run_id,
    case when challenged_since is null then null else ''epoch''::timestamptz end,
    case when flapping_since is null then null else ''epoch''::timestamptz end';
  delta text;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM site_counts WHERE audited;
    RETURN NULL;
  END IF;
  -- Each event has its own transition tables (new_states, old_states): named only where they exist.
  delta := CASE TG_OP
    WHEN 'INSERT' THEN format('select %s, 1 from new_states', state_group)
    WHEN 'DELETE' THEN format('select %s, -1 from old_states', state_group)
    ELSE format('select %s, 1 from new_states union all select %s, -1 from old_states', state_group, state_group)
  END;
  EXECUTE format(
    'insert into site_counts (audited, outcome, policy, policy_reason, last_change_run_id, challenged_since, flapping_since, n)
     select true, o, p, r, c, ch, fl, sum(n) from (%s) as d(o, p, r, c, ch, fl, n)
     group by o, p, r, c, ch, fl having sum(n) <> 0', delta);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION robots_audit_count_sites() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM site_counts WHERE NOT audited;
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO site_counts (audited, n) SELECT false, count(*) FROM new_sites HAVING count(*) > 0;
  ELSE
    INSERT INTO site_counts (audited, n) SELECT false, -count(*) FROM old_sites HAVING count(*) > 0;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "site_counts_states_inserted" AFTER INSERT ON "site_state" REFERENCING NEW TABLE AS new_states FOR EACH STATEMENT EXECUTE FUNCTION robots_audit_count_site_states();--> statement-breakpoint
CREATE TRIGGER "site_counts_states_updated" AFTER UPDATE ON "site_state" REFERENCING OLD TABLE AS old_states NEW TABLE AS new_states FOR EACH STATEMENT EXECUTE FUNCTION robots_audit_count_site_states();--> statement-breakpoint
CREATE TRIGGER "site_counts_states_deleted" AFTER DELETE ON "site_state" REFERENCING OLD TABLE AS old_states FOR EACH STATEMENT EXECUTE FUNCTION robots_audit_count_site_states();--> statement-breakpoint
CREATE TRIGGER "site_counts_states_truncated" AFTER TRUNCATE ON "site_state" FOR EACH STATEMENT EXECUTE FUNCTION robots_audit_count_site_states();--> statement-breakpoint
CREATE TRIGGER "site_counts_sites_inserted" AFTER INSERT ON "sites" REFERENCING NEW TABLE AS new_sites FOR EACH STATEMENT EXECUTE FUNCTION robots_audit_count_sites();--> statement-breakpoint
CREATE TRIGGER "site_counts_sites_deleted" AFTER DELETE ON "sites" REFERENCING OLD TABLE AS old_sites FOR EACH STATEMENT EXECUTE FUNCTION robots_audit_count_sites();--> statement-breakpoint
CREATE TRIGGER "site_counts_sites_truncated" AFTER TRUNCATE ON "sites" FOR EACH STATEMENT EXECUTE FUNCTION robots_audit_count_sites();--> statement-breakpoint
-- One row per group. Rows another transaction adds meanwhile are not in this statement's
-- snapshot, so they are neither deleted nor summed here: they stay, and count.
CREATE FUNCTION robots_audit_fold_site_counts() RETURNS void LANGUAGE sql AS $$
  WITH folded AS (DELETE FROM site_counts RETURNING *)
  INSERT INTO site_counts (audited, outcome, policy, policy_reason, last_change_run_id, challenged_since, flapping_since, n)
  SELECT audited, outcome, policy, policy_reason, last_change_run_id, challenged_since, flapping_since, sum(n)
  FROM folded
  GROUP BY audited, outcome, policy, policy_reason, last_change_run_id, challenged_since, flapping_since
  HAVING sum(n) <> 0;
$$;
--> statement-breakpoint
-- The sites and states there are now (the triggers count what comes after, in the same transaction).
INSERT INTO site_counts (audited, n) SELECT false, count(*) FROM sites;--> statement-breakpoint
INSERT INTO site_counts (audited, outcome, policy, policy_reason, last_change_run_id, challenged_since, flapping_since, n)
SELECT true, outcome, policy, policy_reason, last_change_run_id,
       case when challenged_since is null then null else 'epoch'::timestamptz end,
       case when flapping_since is null then null else 'epoch'::timestamptz end,
       count(*)
FROM site_state
GROUP BY 2, 3, 4, 5, 6, 7;
