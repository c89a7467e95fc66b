/** What changed on a night, against the night before it (`snapshot_changes`, one row a changed night). */
import type pg from 'pg';
import type { ChangeRow, SiteNight } from '../../night/rows.js';
import { pgJson, pgText } from '../pg-text.js';
import { unnestInsert, unnestValues } from '../pg-unnest.js';
import type { ColumnMap } from '../pg-unnest.js';

const CHANGE_COLUMNS: ColumnMap<ChangeRow> = [
  { name: 'run_id', type: 'int', value: (c) => c.runId },
  { name: 'site_id', type: 'int', value: (c) => c.siteId },
  { name: 'previous_run_id', type: 'int', value: (c) => c.previousRunId },
  { name: 'outcome_from', type: 'fetch_outcome', value: (c) => c.outcomeFrom },
  { name: 'outcome_to', type: 'fetch_outcome', value: (c) => c.outcomeTo },
  { name: 'policy_from', type: 'effective_policy', value: (c) => c.policyFrom },
  { name: 'policy_to', type: 'effective_policy', value: (c) => c.policyTo },
  // The kinds joined by commas: a parameter cannot be an array of arrays.
  { name: 'kinds', type: 'text', value: (c) => c.kinds.join(','), select: "string_to_array(kinds, ',')" },
  { name: 'text_diff', type: 'text', value: (c) => pgText(c.textDiff) },
  { name: 'rule_diff', type: 'jsonb', value: (c) => pgJson(c.ruleDiff) },
];

const INSERT_CHANGES = unnestInsert('snapshot_changes', CHANGE_COLUMNS, 'on conflict do nothing');

export async function storeChanges(db: pg.PoolClient, fresh: readonly SiteNight[]): Promise<void> {
  const changes = fresh.flatMap((n) => (n.change ? [n.change] : []));
  if (changes.length === 0) return;
  await db.query({ name: 'night-insert-changes', text: INSERT_CHANGES, values: unnestValues(CHANGE_COLUMNS, changes) });
}
