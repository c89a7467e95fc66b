ALTER TYPE "public"."fetch_outcome" ADD VALUE 'challenged';--> statement-breakpoint
ALTER TABLE "site_state" ADD COLUMN "challenged_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "site_state" ADD COLUMN "flapping_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "site_state" ADD COLUMN "stable_nights" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "site_state" ADD COLUMN "recent_versions" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "flapping" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "confirm_sha256" "bytea";
