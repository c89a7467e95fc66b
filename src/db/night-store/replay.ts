/**
 * A night replayed before the site's latest one (`audit --at` an earlier date): what it is
 * compared with comes from the history, by the run clock: the night before it (its policy, the
 * streak), the last good and last reachable nights before it, and the night after it. The site's
 * state is left alone: it stays the later night's.
 */
import type { FetchOutcome, PolicyKind, PolicyReason } from '../../policy/index.js';
import type { PreviousNight } from '../../night/input.js';
import type { Queryable } from './queryable.js';

type Neighbour = 'previous' | 'next' | 'good' | 'reachable';

interface NeighbourRow {
  which: Neighbour;
  run_id: number;
  run_at: Date;
  outcome: FetchOutcome;
  status: number | null;
  policy: PolicyKind;
  policy_reason: PolicyReason;
  unreachable_since: Date | null;
  body_id: number | null;
  rules_run_id: number | null;
  response_id: number | null;
  sha256: Buffer | null;
  response_key: Buffer | null;
}

const NEIGHBOURS_SQL = `with before as (select * from snapshots where site_id = $1 and (run_at, run_id) < ($2, $3))
  select w.which, n.run_id, n.run_at, n.outcome, n.status, n.policy, n.policy_reason, n.unreachable_since, n.body_id, n.rules_run_id,
         n.response_id, b.sha256, r.key as response_key
  from (
    (select 'previous' as which, * from before order by run_at desc, run_id desc limit 1)
    union all (select 'good', * from before where outcome = 'ok' order by run_at desc, run_id desc limit 1)
    union all (select 'reachable', * from before where outcome not in ('server_error', 'network_error', 'night_failed') order by run_at desc, run_id desc limit 1)
    union all (select 'next', * from snapshots where site_id = $1 and (run_at, run_id) > ($2, $3) order by run_at, run_id limit 1)
  ) w (which, run_at, fetched_at, unreachable_since, site_id, run_id, duration_ms, body_id, response_id, rules_run_id)
  join snapshots n on n.site_id = $1 and n.run_at = w.run_at and n.run_id = w.run_id
  left join bodies b on b.id = n.body_id
  left join responses r on r.id = n.response_id`;

export async function loadReplayContext(
  db: Queryable,
  siteId: number,
  run: { id: number; runAt: Date },
): Promise<{ previous: PreviousNight | null; nextNight: { runId: number; runAt: Date } | null }> {
  const { rows } = await db.query<NeighbourRow>(NEIGHBOURS_SQL, [siteId, run.runAt, run.id]);
  const by = new Map(rows.map((r) => [r.which, r]));
  const prev = by.get('previous');
  const next = by.get('next');
  const previous = prev ? replayedPrevious(prev, await rulesBodyOf(db, siteId, prev), by.get('good'), by.get('reachable')) : null;
  return { previous, nextNight: next ? { runId: next.run_id, runAt: next.run_at } : null };
}

/** The body whose rules applied on the night before (policy `rules`): its own, or its rules night's. */
async function rulesBodyOf(db: Queryable, siteId: number, prev: NeighbourRow): Promise<number | null> {
  if (prev.policy !== 'rules') return null;
  if (prev.rules_run_id === null) return prev.body_id;
  const { rows } = await db.query<{ body_id: number | null }>('select body_id from snapshots where site_id = $1 and run_id = $2', [siteId, prev.rules_run_id]);
  return rows[0]?.body_id ?? null;
}

function replayedPrevious(prev: NeighbourRow, rulesBodyId: number | null, good: NeighbourRow | undefined, reach: NeighbourRow | undefined): PreviousNight {
  return {
    runId: prev.run_id,
    runAt: prev.run_at,
    outcome: prev.outcome,
    status: prev.status,
    policy: prev.policy,
    policyReason: prev.policy_reason,
    unreachableSince: prev.unreachable_since,
    rulesBody: rulesBodyId,
    rulesRunId: prev.policy === 'rules' ? (prev.rules_run_id ?? prev.run_id) : null,
    lastGood: good && good.body_id !== null && good.sha256 ? { runId: good.run_id, runAt: good.run_at, body: good.body_id, sha256: good.sha256 } : null,
    lastReachable: reach ? { runId: reach.run_id, outcome: reach.outcome } : null,
    response: prev.response_id,
    responseKey: prev.response_key,
    evalKey: null,
    failedNights: 0,
    lastChangeRunId: null,
    // A replayed night leaves the site's state alone; it is computed against what the night before it was.
    challengedSince: prev.outcome === 'challenged' ? prev.run_at : null,
    flappingSince: null,
    stableNights: 0,
    recentVersions: [],
  };
}
