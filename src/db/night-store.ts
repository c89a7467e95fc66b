/**
 * The database side of a site's night, built for many sites at a time (night-store/): one query
 * plans a batch (is the night stored, the attempts made, the site's state, its targets), and one
 * transaction stores the nights of many sites with multi-row statements over arrays (`unnest`),
 * whose text never changes, so each is prepared once per connection. Plain node-postgres here,
 * not drizzle: this is the pipeline's hot path, and building queries was most of its cost
 * (docs/benchmarks.md).
 *
 * Writes are idempotent and safe against a racing writer: a night is stored only if its snapshot
 * row is new (ON CONFLICT DO NOTHING on (site, run)); its state is written only if the state is
 * still the one the night was computed from (an optimistic check on `site_state.run_id`). A night
 * computed from a state that moved on is reported `stale`, and nothing of the transaction stays.
 */
export type { Queryable } from './night-store/queryable.js';
export type { RunClock, SiteContext } from './night-store/plan.js';
export { loadCatalogueTokens, loadRunClock, loadSiteContexts } from './night-store/plan.js';
export { loadReplayContext } from './night-store/replay.js';
export { loadBody, loadBodyBySha } from './night-store/bodies.js';
export { loadSpansInForce } from './night-store/spans.js';
export { previousNightOf } from './night-store/state.js';
export type { StoreResult } from './night-store/store-result.js';
export { nightKey } from './night-store/store-result.js';
export { storeNights } from './night-store/store.js';
export { storeBodyIndexes } from './night-store/body-index.js';
