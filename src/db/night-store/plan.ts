/**
 * Planning a batch of sites' nights in a run: the run's clock, and for every site in four queries
 * whatever their number, whether its night is stored, its retried attempts, its state and its
 * targets.
 */
import type { EvaluationTarget, PreviousNight } from '../../night/input.js';
import { targetsHash } from '../../night/keys.js';
import type { Queryable } from './queryable.js';
import { STATE_SELECT_LIST, previousNightOf } from './state.js';
import type { StateDbRow } from './state.js';
import { loadTargets } from './targets.js';

export interface RunClock {
  id: number;
  runAt: Date;
  status: 'running' | 'completed' | 'failed';
}

/** What planning one site's night needs. */
export interface SiteContext {
  siteId: number;
  /** Null: the site was removed. */
  origin: string | null;
  /** The run has this site's night already. */
  stored: boolean;
  /** Attempts recorded for the run (retried ones: the night is still open). */
  failedAttempts: number;
  lastAttemptAt: Date | null;
  /** The site's latest night (site_state), if any. */
  state: PreviousNight | null;
  targets: EvaluationTarget[];
  targetsHash: Buffer;
}

/** Every known crawler token, lower-cased: a new body's root access is stored for each. */
export async function loadCatalogueTokens(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ token: string }>({ name: 'night-catalogue', text: 'select lower(token) as token from user_agents order by id' });
  return rows.map((r) => r.token);
}

export async function loadRunClock(db: Queryable, runId: number): Promise<RunClock | null> {
  const { rows } = await db.query<{ id: number; run_at: Date; status: RunClock['status'] }>({
    name: 'night-run-clock',
    text: 'select id, run_at, status from audit_runs where id = $1',
    values: [runId],
  });
  return rows[0] ? { id: rows[0].id, runAt: rows[0].run_at, status: rows[0].status } : null;
}

type SiteDbRow = StateDbRow & { id: number; origin: string | null; stored: boolean; failed: number; last_attempt_at: Date | null; has_state: boolean };

const SITE_CONTEXTS_SQL = `select ids.id, s.origin,
    exists (select 1 from snapshots n where n.site_id = ids.id and n.run_at = $2 and n.run_id = $3) as stored,
    (select count(*)::int from failed_attempts f where f.site_id = ids.id and f.run_id = $3) as failed,
    (select max(f.started_at) from failed_attempts f where f.site_id = ids.id and f.run_id = $3) as last_attempt_at,
    st.site_id is not null as has_state, ${STATE_SELECT_LIST}
  from unnest($1::int[]) as ids(id)
  left join sites s on s.id = ids.id
  left join site_state st on st.site_id = ids.id`;

/**
 * Everything planning these sites' nights in `run` needs: the site, whether its night is stored,
 * its retried attempts, its state, and its targets (targets.ts).
 */
export async function loadSiteContexts(db: Queryable, run: RunClock, siteIds: readonly number[]): Promise<Map<number, SiteContext>> {
  const ids = [...new Set(siteIds)];
  const contexts = new Map<number, SiteContext>();
  if (ids.length === 0) return contexts;
  const { rows } = await db.query<SiteDbRow>({ name: 'night-site-contexts', text: SITE_CONTEXTS_SQL, values: [ids, run.runAt, run.id] });
  const targets = await loadTargets(
    db,
    rows.filter((r) => r.origin !== null).map((r) => r.id),
  );
  for (const r of rows) {
    const siteTargets = targets.get(r.id) ?? [];
    contexts.set(r.id, {
      siteId: r.id,
      origin: r.origin,
      stored: r.stored,
      failedAttempts: r.failed,
      lastAttemptAt: r.last_attempt_at,
      state: r.has_state ? previousNightOf(r) : null,
      targets: siteTargets,
      targetsHash: targetsHash(siteTargets),
    });
  }
  return contexts;
}
