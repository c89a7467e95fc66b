-- Crawler rules decide the group a crawler follows (src/crawlers/crawler-rules.json): Google's
-- special-case crawlers ignore `*`, Applebot follows the Googlebot group when none names it. The
-- root access per crawler that body_agent_access keeps for each body was computed without them:
-- every body is marked for indexing again, which `db migrate` does right after the migrations
-- (indexStoredBodies: a body's access rows are replaced whole; its rules are kept, `on conflict do
-- nothing`; then the mark is set again). The nightly path indexes a marked body it meets too.
-- Verdicts are not touched here: ENGINE_VERSION 2 makes the next night evaluate every site again.
UPDATE "bodies" SET "indexed" = false WHERE "indexed";
