/**
 * Indexing stored bodies (their rules, root access per crawler, Content-Signal lines: body-index.ts)
 * outside the nightly path: the bodies stored before migration 0006 or marked again by migration
 * 0017 (after `db migrate`), and the
 * root access of the bodies in use when the crawler catalogue grows (`agents import`).
 */
import type pg from 'pg';
import { loadCatalogueTokens, storeBodyIndexes } from '../db/night-store.js';
import { parseRobotsTxt } from '../robots/index.js';
import { indexBody } from '../night/body-index.js';
import { inTransaction } from '../db/transaction.js';

/** Bodies parsed per round trip. */
export const INDEX_BATCH = 200;

/** Indexes every body not indexed yet; returns how many. */
export async function indexStoredBodies(pool: pg.Pool): Promise<number> {
  const tokens = await loadCatalogueTokens(pool);
  let done = 0;
  for (;;) {
    const { rows } = await pool.query<{ id: number; content: Buffer }>('select id, content from bodies where not indexed order by id limit $1', [INDEX_BATCH]);
    if (rows.length === 0) return done;
    // A body marked for indexing again (migration 0017: the crawler rules changed its root access)
    // gets its access rows whole (storeBodyIndexes): the old exceptions go with the new ones in.
    await inTransaction(pool, async (client) => {
      await storeBodyIndexes(
        client,
        rows.map((b) => ({ id: b.id, index: indexBody(parseRobotsTxt(b.content), tokens) })),
      );
    });
    done += rows.length;
  }
}

/**
 * The root access of the bodies that sites apply now, for every crawler token (the catalogue
 * grew): the access rows of those bodies are written again. Returns how many bodies.
 */
export async function reindexBodiesInUse(pool: pg.Pool): Promise<number> {
  const tokens = await loadCatalogueTokens(pool);
  let done = 0;
  let after = 0;
  for (;;) {
    const { rows } = await pool.query<{ id: number; content: Buffer }>(
      `select b.id, b.content from bodies b
       where b.id > $1 and b.id in (select rules_body_id from site_state union select last_good_body_id from site_state)
       order by b.id limit $2`,
      [after, INDEX_BATCH],
    );
    if (rows.length === 0) return done;
    await inTransaction(pool, async (client) => {
      await client.query('delete from body_agent_access where body_id = any($1::int[])', [rows.map((r) => r.id)]);
      await storeBodyIndexes(
        client,
        rows.map((b) => ({ id: b.id, index: { ...indexBody(parseRobotsTxt(b.content), tokens), groups: [], rules: [] } })),
      );
    });
    done += rows.length;
    after = rows.at(-1)!.id;
  }
}
