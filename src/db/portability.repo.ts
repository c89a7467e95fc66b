/**
 * The portability findings kept per body (`bodies.portability`, issue 26): the bodies still to
 * analyse (none yet, or made by an older PORTABILITY_VERSION), in the order of their index, and
 * the analyses stored in one statement per batch. Written by the analysis job only
 * (src/services/portability-analysis.service.ts); read by the reports and the site page.
 */
import type pg from 'pg';
import type { StoredPortability } from '../robots/profiles/portability.js';
import { pgJson } from './pg-text.js';

export interface PendingBody {
  id: number;
  content: Buffer;
}

/** The first body to analyse under `version` (index order: an older version first), or null. */
export async function firstPendingBody(pool: pg.Pool, version: number): Promise<number | null> {
  const { rows } = await pool.query<{ id: number }>('select id from bodies where portability_version < $1 order by portability_version, id limit 1', [version]);
  return rows[0]?.id ?? null;
}

/** Up to `limit` bodies to analyse, with their bytes, in index order. */
export async function pendingBodies(pool: pg.Pool, version: number, limit: number): Promise<PendingBody[]> {
  const { rows } = await pool.query<PendingBody>(
    'select id, content from bodies where portability_version < $1 order by portability_version, id limit $2',
    [version, limit],
  );
  return rows;
}

/**
 * Stores the analyses; a body already analysed by this version or a newer one (a job that ran
 * beside this one, a newer release's worker) is left as it is. Returns how many were stored.
 */
export async function storePortability(pool: pg.Pool, version: number, analyses: readonly { id: number; result: StoredPortability }[]): Promise<number> {
  if (analyses.length === 0) return 0;
  const { rowCount } = await pool.query(
    `update bodies b set portability = u.result, portability_version = $3
       from unnest($1::int[], $2::jsonb[]) as u(id, result)
      where b.id = u.id and b.portability_version < $3`,
    [analyses.map((a) => a.id), analyses.map((a) => pgJson(a.result)), version],
  );
  return rowCount ?? 0;
}
