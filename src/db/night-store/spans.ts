/**
 * The verdicts' history: spans of nights with the same verdict for a URL and an agent
 * (`verdicts`), closed at the night a verdict changes and opened anew, and the flips themselves
 * (`verdict_flips`, one row a changed verdict a night).
 */
import type pg from 'pg';
import type { FlipRow, SiteNight, SpanClose, SpanRow } from '../../night/rows.js';
import type { VerdictSpan } from '../../night/input.js';
import { pgJson } from '../pg-text.js';
import { unnestFrom, unnestInsert, unnestValues } from '../pg-unnest.js';
import type { ColumnMap } from '../pg-unnest.js';
import type { Queryable } from './queryable.js';

interface SpanDbRow {
  tracked_url_id: number;
  user_agent_id: number;
  valid_from: Date;
  from_run_id: number;
  valid_to: Date | null;
  to_run_id: number | null;
  allowed: boolean;
  rule_line: number | null;
  parser_profile: string | null;
  parser_allowed: boolean | null;
}

const SPAN_SELECT = 'select tracked_url_id, user_agent_id, valid_from, from_run_id, valid_to, to_run_id, allowed, rule_line, parser_profile, parser_allowed from verdicts';

/** The spans of these URLs open now, or (replayed) covering the night `at`. */
export async function loadSpansInForce(db: Queryable, trackedUrlIds: number[], at: { runId: number; runAt: Date }, replayed: boolean): Promise<VerdictSpan[]> {
  if (trackedUrlIds.length === 0) return [];
  const { rows } = replayed
    ? await db.query<SpanDbRow>(
        `${SPAN_SELECT}
         where tracked_url_id = any($1::int[]) and (valid_from, from_run_id) <= ($2, $3)
           and (to_run_id is null or (valid_to, to_run_id) > ($2, $3))`,
        [trackedUrlIds, at.runAt, at.runId],
      )
    : await db.query<SpanDbRow>({
        name: 'night-open-spans',
        text: `${SPAN_SELECT} where tracked_url_id = any($1::int[]) and to_run_id is null`,
        values: [trackedUrlIds],
      });
  return rows.map((r) => ({
    trackedUrlId: r.tracked_url_id,
    userAgentId: r.user_agent_id,
    validFrom: r.valid_from,
    fromRunId: r.from_run_id,
    validTo: r.valid_to,
    toRunId: r.to_run_id,
    allowed: r.allowed,
    ruleLine: r.rule_line,
    parserProfile: r.parser_profile,
    parserAllowed: r.parser_allowed,
  }));
}

const OPEN_COLUMNS: ColumnMap<SpanRow> = [
  { name: 'valid_from', type: 'timestamptz', value: (o) => o.validFrom },
  { name: 'valid_to', type: 'timestamptz', value: (o) => o.validTo },
  { name: 'tracked_url_id', type: 'int', value: (o) => o.trackedUrlId },
  { name: 'user_agent_id', type: 'int', value: (o) => o.userAgentId },
  { name: 'from_run_id', type: 'int', value: (o) => o.fromRunId },
  { name: 'to_run_id', type: 'int', value: (o) => o.toRunId },
  { name: 'rule_line', type: 'int', value: (o) => o.ruleLine },
  { name: 'allowed', type: 'bool', value: (o) => o.allowed },
  { name: 'parser_profile', type: 'text', value: (o) => o.parserProfile },
  { name: 'parser_allowed', type: 'bool', value: (o) => o.parserAllowed },
];

const INSERT_SPANS = unnestInsert('verdicts', OPEN_COLUMNS, 'on conflict do nothing');

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
  if (opens.length > 0) await db.query({ name: 'night-open-spans-insert', text: INSERT_SPANS, values: unnestValues(OPEN_COLUMNS, opens) });
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
