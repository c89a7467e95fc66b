-- The runs page counts each run's changes that are not a first sighting (run_summary.changes). A
-- run whose nights are all first sightings (a portfolio's first night: 1,000,000 of them at
-- 1,000,000 sites) had them read whole, or Postgres chose to read the table once per run listed
-- while there were only a few runs; the count is now of this index's entries alone. First
-- sightings are not in it, so a first night adds nothing to it.
CREATE INDEX "snapshot_changes_run_changed_idx" ON "snapshot_changes" USING btree ("run_id") WHERE "snapshot_changes"."kinds" <> '{first_seen}'::text[];
