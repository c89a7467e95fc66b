-- Indexes for the dashboard's pages at 100,000 sites x 365 nights (docs/benchmarks.md, Dashboard:
-- each was added after EXPLAIN (ANALYZE, BUFFERS) showed the scan it replaces). Nothing is rewritten:
-- existing rows are indexed as they are; each index is built once, holding writes to its table
-- meanwhile (about a second each on the year's database).
-- alerts (run_id, severity, site_id): a night's alerts at least so severe, by site ("changes of sites
--   with a critical alert that night", the night page's worst alert per site).
-- alerts (kind, run_id): the nights with an alert of a kind.
-- body_agent_access (token, allowed, body_id): the bodies that close the root to one crawler (the AI
--   page's "sites that block GPTBot"; the function per site read 100,000 sites in 0.8 s).
-- snapshot_changes (run_id, site_id, kinds): a night's changes by site with their kinds, read from the
--   index alone (probes, counts, the charts); GIN (kinds): the nights of a rare kind.
-- verdict_flips (run_id, cause, user_agent_id, site_id): "does this night have a flip of this cause,
--   crawler, portfolio" from the index (Postgres read the whole table once per night for a cause no
--   flip of the night had: 0.5 s).
-- verdicts (user_agent_id, ...) where not allowed: every span that blocks, by agent (the chart of AI
--   blocking over the year read all 1.2 million spans twice).
CREATE INDEX "alerts_run_severity_idx" ON "alerts" USING btree ("run_id","severity","site_id");--> statement-breakpoint
CREATE INDEX "alerts_kind_run_idx" ON "alerts" USING btree ("kind","run_id");--> statement-breakpoint
CREATE INDEX "body_agent_access_token_idx" ON "body_agent_access" USING btree ("token","allowed","body_id");--> statement-breakpoint
CREATE INDEX "snapshot_changes_run_site_idx" ON "snapshot_changes" USING btree ("run_id","site_id","kinds");--> statement-breakpoint
CREATE INDEX "snapshot_changes_kinds_idx" ON "snapshot_changes" USING gin ("kinds");--> statement-breakpoint
CREATE INDEX "verdict_flips_run_cause_idx" ON "verdict_flips" USING btree ("run_id","cause","user_agent_id","site_id");--> statement-breakpoint
CREATE INDEX "verdicts_blocked_agent_idx" ON "verdicts" USING btree ("user_agent_id","tracked_url_id","valid_from","valid_to") WHERE not "verdicts"."allowed";