/**
 * The verdicts' history: spans of nights with the same verdict (and usage preferences) for a URL
 * and an agent (`verdicts`), closed at the night a verdict changes and opened anew, and the flips
 * themselves (`verdict_flips`, one row a changed verdict a night; `usage_flips`, one row a changed
 * preference a purpose a night).
 */
import type pg from 'pg';
import type { FlipRow, SiteNight, SpanClose, UsageFlipRow } from '../../night/rows.js';
import type { VerdictSpan } from '../../night/input.js';
import { pgJson } from '../pg-text.js';
import type { PgArrayElement } from '../pg-array.js';
import { columnList, unnestFrom, unnestInsert, unnestValues } from '../pg-unnest.js';
import type { ColumnMap, UnnestColumn } from '../pg-unnest.js';
import type { Queryable } from './queryable.js';

/** A column of `verdicts` and the span's field it holds: one map for the reader and the writer. */
interface SpanColumn extends UnnestColumn<VerdictSpan> {
  field: keyof VerdictSpan;
}

const span = (field: keyof VerdictSpan, name: string, type: string): SpanColumn => ({ field, name, type, value: (s) => s[field] as PgArrayElement });

const SPAN_COLUMNS: readonly SpanColumn[] = [
  span('validFrom', 'valid_from', 'timestamptz'),
  span('validTo', 'valid_to', 'timestamptz'),
  span('trackedUrlId', 'tracked_url_id', 'int'),
  span('userAgentId', 'user_agent_id', 'int'),
  span('fromRunId', 'from_run_id', 'int'),
  span('toRunId', 'to_run_id', 'int'),
  span('ruleLine', 'rule_line', 'int'),
  span('allowed', 'allowed', 'bool'),
  span('parserProfile', 'parser_profile', 'text'),
  span('parserAllowed', 'parser_allowed', 'bool'),
  span('usageSearch', 'usage_search', 'bool'),
  span('usageAiTrain', 'usage_ai_train', 'bool'),
  span('usageAiInput', 'usage_ai_input', 'bool'),
  { field: 'usageRules', name: 'usage_rules', type: 'jsonb', value: (s) => pgJson(s.usageRules) },
  span('usageRead', 'usage_read', 'bool'),
];

const SPAN_SELECT = `select ${columnList(SPAN_COLUMNS)} from verdicts`;

function spanOf(row: Readonly<Record<string, unknown>>): VerdictSpan {
  const out: Partial<Record<keyof VerdictSpan, unknown>> = {};
  for (const c of SPAN_COLUMNS) out[c.field] = row[c.name];
  return out as VerdictSpan;
}

/** The spans of these URLs open now, or (replayed) covering the night `at`. */
export async function loadSpansInForce(db: Queryable, trackedUrlIds: number[], at: { runId: number; runAt: Date }, replayed: boolean): Promise<VerdictSpan[]> {
  if (trackedUrlIds.length === 0) return [];
  const { rows } = replayed
    ? await db.query<Record<string, unknown>>(
        `${SPAN_SELECT}
         where tracked_url_id = any($1::int[]) and (valid_from, from_run_id) <= ($2, $3)
           and (to_run_id is null or (valid_to, to_run_id) > ($2, $3))`,
        [trackedUrlIds, at.runAt, at.runId],
      )
    : await db.query<Record<string, unknown>>({
        name: 'night-open-spans',
        text: `${SPAN_SELECT} where tracked_url_id = any($1::int[]) and to_run_id is null`,
        values: [trackedUrlIds],
      });
  return rows.map(spanOf);
}

const INSERT_SPANS = unnestInsert('verdicts', SPAN_COLUMNS, 'on conflict do nothing');

const CLOSE_COLUMNS: ColumnMap<SpanClose> = [
  { name: 'tracked_url_id', type: 'int', value: (c) => c.trackedUrlId },
  { name: 'user_agent_id', type: 'int', value: (c) => c.userAgentId },
  { name: 'valid_from', type: 'timestamptz', value: (c) => c.validFrom },
  { name: 'from_run_id', type: 'int', value: (c) => c.fromRunId },
  { name: 'valid_to', type: 'timestamptz', value: (c) => c.validTo },
  { name: 'to_run_id', type: 'int', value: (c) => c.toRunId },
];

const CLOSE_SPANS = `update verdicts v set valid_to = x.valid_to, to_run_id = x.to_run_id
  from ${unnestFrom(CLOSE_COLUMNS)}
  where v.tracked_url_id = x.tracked_url_id and v.user_agent_id = x.user_agent_id and v.valid_from = x.valid_from and v.from_run_id = x.from_run_id`;

/** Ends the spans the nights' verdicts changed, then opens the new ones. */
export async function storeSpans(db: pg.PoolClient, fresh: readonly SiteNight[]): Promise<void> {
  const closes = fresh.flatMap((n) => n.spans.close);
  if (closes.length > 0) await db.query({ name: 'night-close-spans', text: CLOSE_SPANS, values: unnestValues(CLOSE_COLUMNS, closes) });
  const opens = fresh.flatMap((n) => n.spans.open);
  if (opens.length > 0) await db.query({ name: 'night-open-spans-insert', text: INSERT_SPANS, values: unnestValues(SPAN_COLUMNS, opens) });
}

const FLIP_COLUMNS: ColumnMap<FlipRow> = [
  { name: 'run_id', type: 'int', value: (f) => f.runId },
  { name: 'site_id', type: 'int', value: (f) => f.siteId },
  { name: 'tracked_url_id', type: 'int', value: (f) => f.trackedUrlId },
  { name: 'user_agent_id', type: 'int', value: (f) => f.userAgentId },
  { name: 'from_allowed', type: 'bool', value: (f) => f.fromAllowed },
  { name: 'to_allowed', type: 'bool', value: (f) => f.toAllowed },
  { name: 'cause', type: 'text', value: (f) => f.cause },
  { name: 'rule_before', type: 'jsonb', value: (f) => pgJson(f.ruleBefore) },
  { name: 'rule_after', type: 'jsonb', value: (f) => pgJson(f.ruleAfter) },
];

const INSERT_FLIPS = unnestInsert('verdict_flips', FLIP_COLUMNS, 'on conflict do nothing');

export async function storeFlips(db: pg.PoolClient, fresh: readonly SiteNight[]): Promise<void> {
  const flips = fresh.flatMap((n) => n.flips);
  if (flips.length === 0) return;
  await db.query({ name: 'night-insert-flips', text: INSERT_FLIPS, values: unnestValues(FLIP_COLUMNS, flips) });
}

const USAGE_FLIP_COLUMNS: ColumnMap<UsageFlipRow> = [
  { name: 'run_id', type: 'int', value: (f) => f.runId },
  { name: 'site_id', type: 'int', value: (f) => f.siteId },
  { name: 'tracked_url_id', type: 'int', value: (f) => f.trackedUrlId },
  { name: 'user_agent_id', type: 'int', value: (f) => f.userAgentId },
  { name: 'purpose', type: 'text', value: (f) => f.purpose },
  { name: 'from_preference', type: 'text', value: (f) => f.from },
  { name: 'to_preference', type: 'text', value: (f) => f.to },
  { name: 'rule_before', type: 'jsonb', value: (f) => pgJson(f.ruleBefore) },
  { name: 'rule_after', type: 'jsonb', value: (f) => pgJson(f.ruleAfter) },
];

const INSERT_USAGE_FLIPS = unnestInsert('usage_flips', USAGE_FLIP_COLUMNS, 'on conflict do nothing');

export async function storeUsageFlips(db: pg.PoolClient, fresh: readonly SiteNight[]): Promise<void> {
  const flips = fresh.flatMap((n) => n.usageFlips);
  if (flips.length === 0) return;
  await db.query({ name: 'night-insert-usage-flips', text: INSERT_USAGE_FLIPS, values: unnestValues(USAGE_FLIP_COLUMNS, flips) });
}
