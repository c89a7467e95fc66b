ALTER TABLE "portfolios" ADD COLUMN "schedule_cron" text;--> statement-breakpoint
ALTER TABLE "portfolios" ADD COLUMN "schedule_timezone" text;--> statement-breakpoint
ALTER TABLE "portfolios" ADD CONSTRAINT "portfolios_schedule_complete" CHECK (("portfolios"."schedule_cron" is null) = ("portfolios"."schedule_timezone" is null));