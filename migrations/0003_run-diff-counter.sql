ALTER TABLE "audit_runs" ADD COLUMN "sites_diffed" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Runs that exist already start from what their snapshots say.
UPDATE "audit_runs" SET "sites_diffed" = (SELECT count(*) FROM "snapshots" WHERE "snapshots"."run_id" = "audit_runs"."id" AND "snapshots"."diffed_at" IS NOT NULL);
