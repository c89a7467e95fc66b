-- E-mail alert channels: `alerts add mailto:seo@example.com` stores a channel of kind `email`
-- whose url is the mailto: URI; its deliveries go through ROBOTS_AUDIT_SMTP_URL. Existing
-- channels and deliveries are untouched (a new enum value changes no row). ADD VALUE may run in
-- the migrator's transaction (PostgreSQL 12+) because nothing in it uses the new value.
ALTER TYPE "public"."channel_kind" ADD VALUE IF NOT EXISTS 'email';
