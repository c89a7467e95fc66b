-- Portability findings kept per body (issue 26): the rules other parsers read differently from
-- Google's (src/robots/profiles/portability.ts), computed once per body after the run that stored
-- it, off the nights' path, by the analysis job (src/services/portability-analysis.service.ts),
-- instead of on every view of the site page and every `report portability`. Every existing body
-- carries over as not analysed yet (portability NULL, version 0): the analysis job takes them
-- after the next run, or the scheduler's reconcile loop once no run is in progress. Adding a
-- nullable column and a column with a constant default rewrites no row; the index is the job's
-- queue (an older version first, 0: never analysed).
ALTER TABLE "bodies" ADD COLUMN "portability" jsonb;--> statement-breakpoint
ALTER TABLE "bodies" ADD COLUMN "portability_version" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "bodies_portability_version_idx" ON "bodies" USING btree ("portability_version","id");
