/**
 * The rows nights share by content: bodies (unique by sha256) and answers (`responses`, unique by
 * their key). A night names those it may be the first to see by hash or key; storing a batch's
 * gives their ids (insert-or-select.ts), and StoredIds hands each row that references one its id.
 */
import type pg from 'pg';
import type { ResponseRow } from '../../night/rows.js';
import type { BodyRef, FailedAttemptRow, NewBody, ResponseRef, SiteNight } from '../../night/rows.js';
import { pgJson, pgText } from '../pg-text.js';
import { unnestInsert, unnestValues } from '../pg-unnest.js';
import type { ColumnMap } from '../pg-unnest.js';
import { storeBodyIndexes } from './body-index.js';
import { insertOrSelect } from './insert-or-select.js';
import type { Queryable } from './queryable.js';

/** The ids of the bodies and answers a batch references, by id or (stored by it) by hash or key. */
export interface StoredIds {
  body(ref: BodyRef | null): number | null;
  response(ref: ResponseRef | null): number | null;
}

export async function loadBody(db: Queryable, bodyId: number): Promise<Buffer | null> {
  const { rows } = await db.query<{ content: Buffer }>({ name: 'night-body', text: 'select content from bodies where id = $1', values: [bodyId] });
  return rows[0]?.content ?? null;
}

/** A stored body by its hash (bodies are unique by sha256). */
export async function loadBodyBySha(db: Queryable, sha256: Buffer): Promise<Buffer | null> {
  const { rows } = await db.query<{ content: Buffer }>({ name: 'night-body-by-sha', text: 'select content from bodies where sha256 = $1', values: [sha256] });
  return rows[0]?.content ?? null;
}

/** Stores the bodies and answers seen for the first time (by their site) unless another site did; their ids. */
export async function storeSharedRows(db: pg.PoolClient, nights: readonly SiteNight[], attempts: readonly FailedAttemptRow[]): Promise<StoredIds> {
  const bodyIds = await storeBodies(db, nights);
  const responseIds = await storeResponses(db, [...nights.map((n) => n.newResponse), ...attempts.map((a) => a.newResponse)]);
  return {
    body: (ref) => (ref === null ? null : 'id' in ref ? ref.id : bodyIds.get(ref.sha256.toString('hex'))!),
    response: (ref) => (ref === null ? null : 'id' in ref ? ref.id : responseIds.get(ref.key.toString('hex'))!),
  };
}

const BODY_COLUMNS: ColumnMap<NewBody> = [
  { name: 'sha256', type: 'bytea', value: (b) => b.sha256 },
  { name: 'content', type: 'bytea', value: (b) => b.content },
  { name: 'size', type: 'int', value: (b) => b.content.length },
  { name: 'rules', type: 'int', value: (b) => b.summary.rules },
  { name: 'groups', type: 'smallint', value: (b) => b.summary.groups },
  { name: 'sitemaps', type: 'smallint', value: (b) => b.summary.sitemaps },
  { name: 'lint_errors', type: 'smallint', value: (b) => b.summary.lintErrors },
  { name: 'lint_warnings', type: 'smallint', value: (b) => b.summary.lintWarnings },
  { name: 'lint_infos', type: 'smallint', value: (b) => b.summary.lintInfos },
  {
    // A body's Content-Signal values as a JSON array: a parameter cannot be an array of arrays.
    name: 'content_signals',
    type: 'text',
    value: (b) => pgJson(b.index.contentSignals),
    select: 'array(select jsonb_array_elements_text(content_signals::jsonb))',
  },
];

const INSERT_BODIES = unnestInsert('bodies', BODY_COLUMNS, 'on conflict (sha256) do nothing returning id, sha256, indexed');

/** The bodies the nights bring, by hash; every body they reference by hash must be one of them. */
function bodiesToStore(nights: readonly SiteNight[]): Map<string, NewBody> {
  const wanted = new Map<string, NewBody>();
  for (const n of nights) {
    if (n.newBody) wanted.set(n.newBody.sha256.toString('hex'), n.newBody);
    if (n.confirmBody) wanted.set(n.confirmBody.sha256.toString('hex'), n.confirmBody);
  }
  // A body can also be referenced by hash without being new to this site's history (a night
  // replayed after a later one stored it): resolve every hash referenced.
  for (const n of nights) {
    for (const ref of [n.snapshot.body, n.state?.rulesBody ?? null, n.state?.lastGood?.body ?? null]) {
      if (ref && 'sha256' in ref && !wanted.has(ref.sha256.toString('hex'))) throw new Error(`body ${ref.sha256.toString('hex')} referenced but not given`);
    }
  }
  return wanted;
}

/** Stores the nights' new bodies (and their index, or the index of a stored body that has none); their ids by hash. */
async function storeBodies(db: pg.PoolClient, nights: readonly SiteNight[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const wanted = bodiesToStore(nights);
  if (wanted.size === 0) return ids;
  const rows = await insertOrSelect(
    db,
    {
      insert: { name: 'night-insert-bodies', text: INSERT_BODIES, values: unnestValues(BODY_COLUMNS, [...wanted.values()]) },
      select: { name: 'night-body-ids', text: 'select id, sha256, indexed from bodies where sha256 = any($1::bytea[])' },
      nameOf: (r: { id: number; sha256: Buffer; indexed: boolean }) => r.sha256.toString('hex'),
      keyOf: (b) => b.sha256,
    },
    wanted,
  );
  for (const r of rows) ids.set(r.sha256.toString('hex'), r.id);
  // A body's rules and root access go in with it (or, for a body stored before they existed, now).
  const unindexed = rows.filter((r) => !r.indexed).map((r) => ({ id: r.id, index: wanted.get(r.sha256.toString('hex'))!.index }));
  if (unindexed.length > 0) await storeBodyIndexes(db, unindexed);
  return ids;
}

const RESPONSE_COLUMNS: ColumnMap<ResponseRow> = [
  { name: 'key', type: 'bytea', value: (r) => r.key },
  { name: 'final_url', type: 'text', value: (r) => pgText(r.finalUrl) },
  { name: 'hops', type: 'jsonb', value: (r) => pgJson(r.hops) },
  { name: 'remote_address', type: 'text', value: (r) => r.remoteAddress },
  { name: 'content_type', type: 'text', value: (r) => pgText(r.contentType) },
  { name: 'content_encoding', type: 'text', value: (r) => pgText(r.contentEncoding) },
  { name: 'cache_control', type: 'text', value: (r) => pgText(r.cacheControl) },
  { name: 'expires', type: 'text', value: (r) => pgText(r.expires) },
  { name: 'age', type: 'text', value: (r) => pgText(r.age) },
  { name: 'retry_after', type: 'text', value: (r) => pgText(r.retryAfter) },
  { name: 'last_modified', type: 'text', value: (r) => pgText(r.lastModified) },
  { name: 'etag', type: 'text', value: (r) => pgText(r.etag) },
];

const INSERT_RESPONSES = unnestInsert('responses', RESPONSE_COLUMNS, 'on conflict (key) do nothing returning id, key');

/** Stores the answers not stored yet; the ids of all of them by key. */
async function storeResponses(db: pg.PoolClient, candidates: readonly (ResponseRow | null)[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const wanted = new Map<string, ResponseRow>();
  for (const r of candidates) if (r) wanted.set(r.key.toString('hex'), r);
  if (wanted.size === 0) return ids;
  const rows = await insertOrSelect(
    db,
    {
      insert: { name: 'night-insert-responses', text: INSERT_RESPONSES, values: unnestValues(RESPONSE_COLUMNS, [...wanted.values()]) },
      select: { name: 'night-response-ids', text: 'select id, key from responses where key = any($1::bytea[])' },
      nameOf: (r: { id: number; key: Buffer }) => r.key.toString('hex'),
      keyOf: (r) => r.key,
    },
    wanted,
  );
  for (const r of rows) ids.set(r.key.toString('hex'), r.id);
  return ids;
}
