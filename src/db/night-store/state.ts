/**
 * site_state: a site's latest night, one row a site, read when its next night is planned and
 * rewritten when that night is stored. Its columns are named once, in STATE_FIELDS, field by
 * field of PreviousNight: the planner's select list and its reading of a row, and the writer's
 * unnest, update and insert, are all derived from it.
 */
import type pg from 'pg';
import type { FetchOutcome } from '../../policy/fetch-outcome.js';
import type { PreviousNight } from '../../night/input.js';
import type { SiteNight, StateRow } from '../../night/rows.js';
import type { PgArrayElement } from '../pg-array.js';
import { columnList, unnestFrom, unnestValues } from '../pg-unnest.js';
import type { UnnestColumn } from '../pg-unnest.js';
import type { StoredIds } from './bodies.js';
import { nightKey } from './store-result.js';

/** A night's new state to write, with the batch's ids. */
interface StateWrite {
  night: SiteNight;
  state: StateRow;
  ids: StoredIds;
}

/** A site_state row as read: column name -> value. */
export type StateDbRow = Readonly<Record<string, unknown>>;

/** One site_state column: how a new state writes it, and what a stored row reads back. */
interface StateColumn<V> extends UnnestColumn<StateWrite> {
  read: (row: StateDbRow) => V;
}

function column<V>(name: string, type: string, value: (write: StateWrite) => PgArrayElement): StateColumn<V> {
  return { name, type, value, read: (row) => row[name] as V };
}

/** A field of PreviousNight: the columns that hold it, and how it reads back from them. */
interface StateField<V> {
  columns: readonly StateColumn<unknown>[];
  read: (row: StateDbRow) => V;
}

/** A field held by one column, read back as stored. */
function plain<V>(name: string, type: string, value: (write: StateWrite) => PgArrayElement): StateField<V> {
  const c = column<V>(name, type, value);
  return { columns: [c], read: c.read };
}

const LAST_GOOD = {
  runId: column<number | null>('last_good_run_id', 'int', ({ state }) => state.lastGood?.runId ?? null),
  runAt: column<Date | null>('last_good_run_at', 'timestamptz', ({ state }) => state.lastGood?.runAt ?? null),
  bodyId: column<number | null>('last_good_body_id', 'int', ({ state, ids }) => ids.body(state.lastGood?.body ?? null)),
  sha256: column<Buffer | null>('last_good_sha256', 'bytea', ({ state }) => state.lastGood?.sha256 ?? null),
};

const LAST_REACHABLE = {
  runId: column<number | null>('last_reachable_run_id', 'int', ({ state }) => state.lastReachable?.runId ?? null),
  outcome: column<FetchOutcome | null>('last_reachable_outcome', 'fetch_outcome', ({ state }) => state.lastReachable?.outcome ?? null),
};

/** Every column of site_state but its key, in the table's order. */
const STATE_FIELDS: { [K in keyof PreviousNight]: StateField<PreviousNight[K]> } = {
  runId: plain('run_id', 'int', ({ state }) => state.runId),
  runAt: plain('run_at', 'timestamptz', ({ state }) => state.runAt),
  outcome: plain('outcome', 'fetch_outcome', ({ state }) => state.outcome),
  status: plain('status', 'smallint', ({ state }) => state.status),
  policy: plain('policy', 'effective_policy', ({ state }) => state.policy),
  policyReason: plain('policy_reason', 'text', ({ state }) => state.policyReason),
  unreachableSince: plain('unreachable_since', 'timestamptz', ({ state }) => state.unreachableSince),
  rulesBody: plain('rules_body_id', 'int', ({ state, ids }) => ids.body(state.rulesBody)),
  rulesRunId: plain('rules_run_id', 'int', ({ state }) => state.rulesRunId),
  lastGood: {
    columns: Object.values(LAST_GOOD),
    read(row) {
      const [runId, bodyId, sha256] = [LAST_GOOD.runId.read(row), LAST_GOOD.bodyId.read(row), LAST_GOOD.sha256.read(row)];
      return runId !== null && bodyId !== null && sha256 !== null ? { runId, runAt: LAST_GOOD.runAt.read(row)!, body: bodyId, sha256 } : null;
    },
  },
  lastReachable: {
    columns: Object.values(LAST_REACHABLE),
    read(row) {
      const runId = LAST_REACHABLE.runId.read(row);
      return runId !== null ? { runId, outcome: LAST_REACHABLE.outcome.read(row)! } : null;
    },
  },
  response: plain('response_id', 'int', ({ state, ids }) => ids.response(state.response)),
  responseKey: plain('response_key', 'bytea', ({ state }) => state.responseKey),
  evalKey: plain('eval_key', 'bytea', ({ state }) => state.evalKey),
  failedNights: plain('failed_nights', 'int', ({ state }) => state.failedNights),
  lastChangeRunId: plain('last_change_run_id', 'int', ({ state }) => state.lastChangeRunId),
  challengedSince: plain('challenged_since', 'timestamptz', ({ state }) => state.challengedSince),
  flappingSince: plain('flapping_since', 'timestamptz', ({ state }) => state.flappingSince),
  stableNights: plain('stable_nights', 'int', ({ state }) => state.stableNights),
  recentVersions: plain('recent_versions', 'jsonb', ({ state }) => JSON.stringify(state.recentVersions)),
};

const FIELDS = Object.entries(STATE_FIELDS) as [keyof PreviousNight, StateField<unknown>][];
const STORED_COLUMNS = FIELDS.flatMap(([, field]) => field.columns);

/** The columns a planner selects from `site_state st` to read a state with previousNightOf. */
export const STATE_SELECT_LIST = STORED_COLUMNS.map((c) => `st.${c.name}`).join(', ');

/** A stored state, as the next night compares with it. */
export function previousNightOf(row: StateDbRow): PreviousNight {
  const night: Partial<Record<keyof PreviousNight, unknown>> = {};
  for (const [key, field] of FIELDS) night[key] = field.read(row);
  return night as PreviousNight;
}

const WRITTEN_COLUMNS: readonly UnnestColumn<StateWrite>[] = [
  { name: 'site_id', type: 'int', value: ({ state }) => state.siteId },
  // Not a column: the run of the state the night was computed from, checked before it is replaced.
  { name: 'expected', type: 'int', value: ({ night }) => night.expectedStateRunId },
  ...STORED_COLUMNS,
];

const STORED_LIST = columnList(STORED_COLUMNS);

// An update where the state is still the one computed from (optimistic: a racing writer's night
// leaves it unmatched), an insert where there was none; a state that matched neither is stale.
const STORE_STATES_SQL = `with v as (select * from ${unnestFrom(WRITTEN_COLUMNS)}),
  updated as (
    update site_state st set ${STORED_COLUMNS.map((c) => `${c.name} = v.${c.name}`).join(', ')}, updated_at = now()
    from v where st.site_id = v.site_id and v.expected is not null and st.run_id = v.expected
    returning st.site_id, st.run_id
  ), inserted as (
    insert into site_state (site_id, ${STORED_LIST}) select site_id, ${STORED_LIST} from v where v.expected is null
    on conflict (site_id) do nothing
    returning site_id, run_id
  )
  select site_id, run_id from updated union all select site_id, run_id from inserted`;

/** Writes the nights' new states; returns the nights whose state moved on since (`site:run`), to write none of. */
export async function storeStates(db: pg.PoolClient, fresh: readonly SiteNight[], ids: StoredIds): Promise<string[]> {
  const writes: StateWrite[] = [];
  for (const night of fresh) if (night.state) writes.push({ night, state: night.state, ids });
  if (writes.length === 0) return [];
  const { rows } = await db.query<{ site_id: number; run_id: number }>({
    name: 'night-store-states',
    text: STORE_STATES_SQL,
    values: unnestValues(WRITTEN_COLUMNS, writes),
  });
  const written = new Set(rows.map((r) => nightKey(r.site_id, r.run_id)));
  return writes.map(({ night }) => nightKey(night.siteId, night.runId)).filter((key) => !written.has(key));
}
