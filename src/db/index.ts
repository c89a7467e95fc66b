/** The database layer: schema, client, migrations and one thin repo per table family. */
export * from './client.js';
export * from './migrate.js';
export * as schema from './schema.js';
export * from './bodies.repo.js';
export * from './responses.js';
export * from './pg-text.js';
export * from './db-errors.js';
export * from './night-store.js';
export * from './snapshots.repo.js';
export * from './changes.repo.js';
export * from './runs.repo.js';
export * from './sites.repo.js';
export * from './portfolios.repo.js';
export * from './user-agents.repo.js';
export * from './tracked-urls.repo.js';
export * from './channels.repo.js';
export * from './alerts.repo.js';

import type { Executor } from './client.js';
import { createChangesRepo } from './changes.repo.js';
import { createBodiesRepo } from './bodies.repo.js';
import { createPortfoliosRepo } from './portfolios.repo.js';
import { createRunsRepo } from './runs.repo.js';
import { createSitesRepo } from './sites.repo.js';
import { createSnapshotsRepo } from './snapshots.repo.js';
import { createUserAgentsRepo } from './user-agents.repo.js';
import { createTrackedUrlsRepo } from './tracked-urls.repo.js';
import { createChannelsRepo } from './channels.repo.js';
import { createAlertsRepo } from './alerts.repo.js';

/** Every repo on one executor (a database or a transaction). */
export function createRepos(db: Executor) {
  return {
    sites: createSitesRepo(db),
    portfolios: createPortfoliosRepo(db),
    runs: createRunsRepo(db),
    bodies: createBodiesRepo(db),
    snapshots: createSnapshotsRepo(db),
    userAgents: createUserAgentsRepo(db),
    trackedUrls: createTrackedUrlsRepo(db),
    channels: createChannelsRepo(db),
    alerts: createAlertsRepo(db),
    changes: createChangesRepo(db),
  };
}

export type Repos = ReturnType<typeof createRepos>;
