/** The database layer: schema, client, migrations and one thin repo per table family. */
export * from './client.js';
export * from './migrate.js';
export * as schema from './schema.js';
export * from './bodies.repo.js';
export * from './attempts.repo.js';
export * from './snapshots.repo.js';
export * from './runs.repo.js';
export * from './sites.repo.js';
export * from './portfolios.repo.js';

import type { Executor } from './client.js';
import { createAttemptsRepo } from './attempts.repo.js';
import { createBodiesRepo } from './bodies.repo.js';
import { createPortfoliosRepo } from './portfolios.repo.js';
import { createRunsRepo } from './runs.repo.js';
import { createSitesRepo } from './sites.repo.js';
import { createSnapshotsRepo } from './snapshots.repo.js';

/** Every repo on one executor (a database or a transaction). */
export function createRepos(db: Executor) {
  return {
    sites: createSitesRepo(db),
    portfolios: createPortfoliosRepo(db),
    runs: createRunsRepo(db),
    bodies: createBodiesRepo(db),
    attempts: createAttemptsRepo(db),
    snapshots: createSnapshotsRepo(db),
  };
}

export type Repos = ReturnType<typeof createRepos>;
