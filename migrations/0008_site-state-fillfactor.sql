-- site_state is updated for every site every night, and only its primary key (site_id, never
-- updated) is indexed: every update can be HOT (the new row version on the same page, no index
-- entry) if the page has room. Pages filled to 100% by the first night have none, so the next
-- night's updates would move every row to another page and add an index entry each, until a
-- vacuum frees space. Half-full pages keep room for the new version from the first night on.
-- Existing pages keep their fill until they are rewritten (VACUUM FULL, or pages freed and reused).
ALTER TABLE "site_state" SET (fillfactor = 50);
