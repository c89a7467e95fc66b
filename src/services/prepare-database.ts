/**
 * Bringing a database to what this version needs: the SQL migrations (under their advisory lock),
 * then what SQL cannot do from a file: the shipped crawler catalogue (src/crawlers) into
 * `user_agents`, and indexing the bodies stored before their rules and root access were kept
 * (migration 0006). `robots-audit db migrate` and the test databases' template run this.
 */
import { createDb } from '../db/client.js';
import { migrateDatabase } from '../db/migrate.js';
import { catalogue } from '../crawlers/index.js';
import { indexStoredBodies } from './body-index.service.js';
import { syncCatalogue } from './catalogue.service.js';

export interface Prepared {
  /** Migrations applied, in order. */
  applied: string[];
  /** Catalogue tokens added to `user_agents`. */
  crawlersAdded: number;
  /** Bodies indexed that were not. */
  indexed: number;
}

export async function prepareDatabase(url: string, migrationsFolder?: string): Promise<Prepared> {
  const { applied } = await migrateDatabase(url, migrationsFolder);
  const handle = createDb(url, { max: 2, applicationName: 'robots-audit migrate' });
  try {
    const { added } = await syncCatalogue(handle.pool, catalogue(), { overwrite: false });
    return { applied, crawlersAdded: added.length, indexed: await indexStoredBodies(handle.pool) };
  } finally {
    await handle.close();
  }
}
