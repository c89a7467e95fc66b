/**
 * What a log import reads and writes (issue 29, docs/compliance.md), in plain node-postgres:
 * the sites by host, a site's robots.txt versions through time and their bodies, the operators'
 * range files, the import's own row (its checkpoint), and the crawler requests of a batch in
 * one statement each.
 */
import { createHash } from 'node:crypto';

import type { PolicyKind } from '../policy/index.js';
import type { Identity, IdentityMethod, Judgement } from '../compliance/vocabulary.js';
import { pgArray } from './pg-array.js';
import { pgText } from './pg-text.js';
import { unnestInsert, unnestValues } from './pg-unnest.js';
import type { ColumnMap } from './pg-unnest.js';
import { insertOrSelect } from './night-store/insert-or-select.js';
import type { Queryable } from './night-store/queryable.js';

/** A monitored site as a log's host names it. */
export interface SiteByHost {
  id: number;
  origin: string;
}

/**
 * The sites by host (lower-case, no port): where a host is monitored over both schemes or on
 * several ports, the https origin on the default port is the one a log's request is filed under.
 */
export async function sitesByHost(db: Queryable): Promise<Map<string, SiteByHost>> {
  const { rows } = await db.query<SiteByHost>('select id, origin from sites order by id');
  const byHost = new Map<string, SiteByHost>();
  const rank = (origin: string) => (origin.startsWith('https://') ? 0 : 1) + (new URL(origin).port === '' ? 0 : 2);
  for (const site of rows) {
    const host = new URL(site.origin).hostname.toLowerCase();
    const known = byHost.get(host);
    if (known === undefined || rank(site.origin) < rank(known.origin)) byHost.set(host, site);
  }
  return byHost;
}

/** The site monitored at exactly this origin (as `normalizeOrigin` writes it), or null. */
export async function siteByOrigin(db: Queryable, origin: string): Promise<SiteByHost | null> {
  const { rows } = await db.query<SiteByHost>('select id, origin from sites where origin = $1', [origin]);
  return rows[0] ?? null;
}

/** One robots.txt version of a site: from the night that first saw it (site_rule_nights). */
export interface StoredVersion {
  runId: number;
  from: Date;
  /** The run clock of the site's night before it; null for its first night. */
  seenBefore: Date | null;
  policy: PolicyKind;
  /** The body whose rules apply (`rules` only). */
  rulesBodyId: number | null;
}

/**
 * The versions of the given sites, each site's oldest first, in one query: the first batch of a
 * log names most of its sites, and a query a site was a round trip each (docs/benchmarks.md, logs).
 */
export async function versionsOfSites(db: Queryable, siteIds: readonly number[]): Promise<Map<number, StoredVersion[]>> {
  const bySite = new Map<number, StoredVersion[]>(siteIds.map((id) => [id, []]));
  if (siteIds.length === 0) return bySite;
  const { rows } = await db.query<{ site_id: number; run_id: number; run_at: Date; policy: PolicyKind; rules_body_id: number | null; seen_before: Date | null }>({
    name: 'compliance-sites-versions',
    text: `select v.site_id, v.run_id, v.run_at, v.policy, v.rules_body_id,
                  (select max(n.run_at) from snapshots n where n.site_id = v.site_id and n.run_at < v.run_at) as seen_before
           from site_rule_nights v where v.site_id = any($1::int[]) order by v.site_id, v.run_at, v.run_id`,
    values: [pgArray(siteIds, (id) => id)],
  });
  for (const r of rows) bySite.get(r.site_id)?.push({ runId: r.run_id, from: r.run_at, seenBefore: r.seen_before, policy: r.policy, rulesBodyId: r.rules_body_id });
  return bySite;
}

/** The bytes of the given bodies, by id. */
export async function bodyContents(db: Queryable, ids: readonly number[]): Promise<Map<number, Uint8Array>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: number; content: Buffer }>({
    name: 'compliance-body-contents',
    text: 'select id, content from bodies where id = any($1::int[])',
    values: [pgArray(ids, (id) => id)],
  });
  return new Map(rows.map((r) => [r.id, new Uint8Array(r.content.buffer, r.content.byteOffset, r.content.byteLength)]));
}

/** An operator's range file as stored. */
export interface StoredRangeFile {
  source: string;
  publishedAt: Date;
  prefixes: string[];
}

export async function rangeFiles(db: Queryable): Promise<StoredRangeFile[]> {
  const { rows } = await db.query<{ source: string; published_at: Date; prefixes: string[] }>('select source, published_at, prefixes from crawler_range_files order by source, published_at, id');
  return rows.map((r) => ({ source: r.source, publishedAt: r.published_at, prefixes: r.prefixes }));
}

/** Stores a range file once (by source and content); whether it was new. */
export async function storeRangeFile(db: Queryable, file: StoredRangeFile & { sha256: Buffer }): Promise<boolean> {
  const { rowCount } = await db.query(
    `insert into crawler_range_files (source, published_at, sha256, prefixes) values ($1, $2, $3, $4::text[])
     on conflict (source, sha256) do nothing`,
    [file.source, file.publishedAt, file.sha256, pgArray(file.prefixes, (p) => p)],
  );
  return (rowCount ?? 0) > 0;
}

/** A log import's row: how far it got. */
export interface ImportRow {
  id: number;
  linesDone: number;
  checkpoint: Buffer | null;
  finished: boolean;
}

/** The import of this source (created when new). */
export async function openImport(db: Queryable, source: { key: Buffer; name: string; format: string; siteId: number | null }): Promise<ImportRow> {
  await db.query('insert into log_imports (source_key, name, format, site_id) values ($1, $2, $3, $4) on conflict (source_key) do nothing', [
    source.key,
    pgText(source.name),
    source.format,
    source.siteId,
  ]);
  const { rows } = await db.query<{ id: number; lines_done: string; checkpoint: Buffer | null; finished_at: Date | null }>(
    'select id, lines_done, checkpoint, finished_at from log_imports where source_key = $1',
    [source.key],
  );
  const row = rows[0];
  if (row === undefined) throw new Error('log import row vanished');
  return { id: row.id, linesDone: Number(row.lines_done), checkpoint: row.checkpoint, finished: row.finished_at !== null };
}

/** Starts an import over from its first line (its input differs after the part its key hashed). */
export async function restartImport(db: Queryable, importId: number): Promise<void> {
  await db.query('update log_imports set lines_done = 0, checkpoint = null, finished_at = null where id = $1', [importId]);
}

export interface ImportProgress {
  linesDone: number;
  checkpoint: Buffer;
  crawlerLines: number;
  unreadable: number;
  unmatched: number;
  errors: { line: number; reason: string; text: string }[];
}

/** Moves the import's checkpoint on, in the batch's transaction: counts are added, the first errors kept. */
export async function advanceImport(db: Queryable, importId: number, p: ImportProgress, stored: number, maxErrors: number): Promise<void> {
  await db.query(
    `update log_imports set lines_done = $2, checkpoint = $3, crawler_lines = crawler_lines + $4, unreadable = unreadable + $5,
            unmatched = unmatched + $6, stored = stored + $7,
            errors = case when jsonb_array_length(errors) >= $9 then errors
                          else (select coalesce(jsonb_agg(e), '[]'::jsonb) from (select e from jsonb_array_elements(errors || $8::jsonb) e limit $9) x) end
     where id = $1`,
    [importId, p.linesDone, p.checkpoint, p.crawlerLines, p.unreadable, p.unmatched, stored, JSON.stringify(p.errors.map((e) => ({ ...e, text: pgText(e.text), reason: pgText(e.reason) }))), maxErrors],
  );
}

export async function finishImport(db: Queryable, importId: number): Promise<{ stored: number; crawlerLines: number; unreadable: number; unmatched: number }> {
  const { rows } = await db.query<{ stored: string; crawler_lines: string; unreadable: string; unmatched: string }>(
    'update log_imports set finished_at = now() where id = $1 returning stored, crawler_lines, unreadable, unmatched',
    [importId],
  );
  const r = rows[0];
  return { stored: Number(r?.stored ?? 0), crawlerLines: Number(r?.crawler_lines ?? 0), unreadable: Number(r?.unreadable ?? 0), unmatched: Number(r?.unmatched ?? 0) };
}

/** A judged crawler request, as stored. */
export interface CrawlerRequestRow {
  siteId: number;
  lineKey: Buffer;
  at: Date;
  crawler: string;
  identity: Identity;
  identityMethod: IdentityMethod;
  judgement: Judgement;
  runId: number | null;
  allowedByRunId: number | null;
  method: string;
  path: string;
  status: number | null;
  userAgent: string;
  clientIp: string | null;
  ruleLine: number | null;
  rule: string | null;
}

interface StoredRow extends CrawlerRequestRow {
  userAgentId: number;
  importId: number;
}

const REQUEST_COLUMNS: ColumnMap<StoredRow> = [
  { name: 'site_id', type: 'int', value: (r) => r.siteId },
  { name: 'line_key', type: 'bytea', value: (r) => r.lineKey },
  { name: 'at', type: 'timestamptz', value: (r) => r.at },
  { name: 'crawler', type: 'text', value: (r) => r.crawler },
  { name: 'identity', type: 'crawler_identity', value: (r) => r.identity },
  { name: 'identity_method', type: 'identity_method', value: (r) => r.identityMethod },
  { name: 'judgement', type: 'crawler_judgement', value: (r) => r.judgement },
  { name: 'run_id', type: 'int', value: (r) => r.runId },
  { name: 'allowed_by_run_id', type: 'int', value: (r) => r.allowedByRunId },
  { name: 'method', type: 'text', value: (r) => pgText(r.method) },
  { name: 'path', type: 'text', value: (r) => pgText(r.path) },
  { name: 'status', type: 'smallint', value: (r) => r.status },
  { name: 'user_agent_id', type: 'int', value: (r) => r.userAgentId },
  { name: 'client_ip', type: 'inet', value: (r) => r.clientIp },
  { name: 'rule_line', type: 'int', value: (r) => r.ruleLine },
  { name: 'rule', type: 'text', value: (r) => (r.rule === null ? null : pgText(r.rule)) },
  { name: 'import_id', type: 'int', value: (r) => r.importId },
];

const INSERT_REQUESTS = unnestInsert('crawler_requests', REQUEST_COLUMNS, 'on conflict (site_id, line_key) do nothing');

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * The user-agent strings' ids, stored once each; `known` caches them across batches (bounded by
 * the caller: a log's crawlers send a few hundred distinct strings, a hostile one more).
 */
async function userAgentIds(db: Queryable, texts: readonly string[], known: Map<string, number>): Promise<void> {
  const wanted = new Map<string, { hex: string; hash: Buffer; text: string }>();
  for (const text of texts) {
    if (known.has(text) || wanted.has(text)) continue;
    const hash = sha256(text);
    wanted.set(text, { hex: hash.toString('hex'), hash, text });
  }
  if (wanted.size === 0) return;
  const byHex = new Map([...wanted.values()].map((w) => [w.hex, w]));
  const rows = await insertOrSelect(
    db,
    {
      insert: {
        name: 'compliance-insert-agents',
        text: `insert into request_user_agents (sha256, text) select * from unnest($1::bytea[], $2::text[]) on conflict (sha256) do nothing returning id, encode(sha256, 'hex') as hex`,
        values: [pgArray([...byHex.values()], (w) => w.hash), pgArray([...byHex.values()], (w) => pgText(w.text))],
      },
      select: { name: 'compliance-agent-ids', text: `select id, encode(sha256, 'hex') as hex from request_user_agents where sha256 = any($1::bytea[])` },
      nameOf: (r: { id: number; hex: string }) => r.hex,
      keyOf: (w) => w.hash,
    },
    byHex,
  );
  for (const r of rows) {
    const w = byHex.get(r.hex);
    if (w !== undefined) known.set(w.text, r.id);
  }
}

/** Stores a batch of judged requests (a line stored before adds nothing); how many were new. */
export async function storeCrawlerRequests(db: Queryable, importId: number, requests: readonly CrawlerRequestRow[], agentIds: Map<string, number>): Promise<number> {
  if (requests.length === 0) return 0;
  await userAgentIds(
    db,
    requests.map((r) => r.userAgent),
    agentIds,
  );
  const rows = requests.map((r): StoredRow => ({ ...r, importId, userAgentId: agentIds.get(r.userAgent) as number }));
  const { rowCount } = await db.query({ name: 'compliance-insert-requests', text: INSERT_REQUESTS, values: unnestValues(REQUEST_COLUMNS, rows) });
  return rowCount ?? 0;
}

