/**
 * The crawler catalogue in the database (`user_agents`): the shipped entries are added when a
 * database is prepared, and `robots-audit agents import <robots.json>` refreshes them from a newer
 * copy of ai.robots.txt's list. New tokens are not default agents (the nightly evaluation keeps its
 * small set); every token gets its category, operator and the family alerts use. One transaction:
 * a catalogue is imported whole or not at all.
 */
import type pg from 'pg';
import { inTransaction } from '../db/transaction.js';
import { familyOfCategory } from '../crawlers/index.js';
import type { CatalogueEntry } from '../crawlers/index.js';

export interface CatalogueSync {
  /** Tokens that had no row. */
  added: string[];
  /** Tokens whose category or operator changed. */
  updated: string[];
}

/**
 * Writes entries into `user_agents`. `overwrite`: an existing token takes the entry's category and
 * operator (an import); otherwise only where it had none (the shipped catalogue never undoes an
 * operator's own edits).
 */
export async function syncCatalogue(pool: pg.Pool, entries: readonly CatalogueEntry[], options: { overwrite: boolean }): Promise<CatalogueSync> {
  const unique = [...new Map(entries.map((e) => [e.token.toLowerCase(), e])).values()];
  if (unique.length === 0) return { added: [], updated: [] };
  const { added, updated } = await inTransaction(pool, async (client) => {
    const values = [unique.map((e) => e.token), unique.map((e) => e.category), unique.map((e) => e.operator), unique.map((e) => familyOfCategory(e.category))];
    const added = await client.query<{ token: string }>(
      `insert into user_agents (token, category, operator, family, is_default)
       select t, c, o, f, false from unnest($1::text[], $2::text[], $3::text[], $4::text[]) as x(t, c, o, f)
       on conflict do nothing
       returning token`,
      values,
    );
    const updated = await client.query<{ token: string }>(
      `update user_agents a set category = x.c, operator = x.o, family = coalesce(a.family, x.f)
       from unnest($1::text[], $2::text[], $3::text[], $4::text[]) as x(t, c, o, f)
       where lower(a.token) = lower(x.t) and (a.category is distinct from x.c or a.operator is distinct from x.o)
         and ($5 or a.category is null)
       returning a.token`,
      [...values, options.overwrite],
    );
    return { added, updated };
  });
  const addedSet = new Set(added.rows.map((r) => r.token.toLowerCase()));
  return { added: added.rows.map((r) => r.token), updated: updated.rows.map((r) => r.token).filter((t) => !addedSet.has(t.toLowerCase())) };
}
