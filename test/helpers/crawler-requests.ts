/**
 * Judged crawler requests written straight to the tables a log import fills (crawler_requests,
 * with its log_imports row and its request_user_agents rows), for the read side's tests: the
 * Compliance pages need requests already judged, not the import that judges them.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Identity, Judgement } from '../../src/compliance/vocabulary.js';

export interface StoredRequest {
  /** A monitored site's origin (the site must exist). */
  origin: string;
  at: string;
  crawler: string;
  path: string;
  judgement: Judgement;
  /** `verified` unless given. */
  identity?: Identity;
  /** The night whose version was in force; null for `unjudged`. */
  runId?: number | null;
  ruleLine?: number | null;
  rule?: string | null;
  /** The User-Agent header; `Mozilla/5.0 (compatible; <crawler>/1.0)` unless given. */
  userAgent?: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Stores `requests` as one finished import of a log called `name`. */
export async function insertCrawlerRequests(pool: pg.Pool, requests: readonly StoredRequest[], name = 'access.log'): Promise<void> {
  const { rows: imported } = await pool.query<{ id: number }>(
    `insert into log_imports (source_key, name, format, lines_done, crawler_lines, stored, finished_at)
     values ($1, $2, 'combined', $3, $3, $3, now()) returning id`,
    [sha256(`import ${name}`), name, requests.length],
  );
  const rows = requests.map((r, i) => ({
    origin: r.origin,
    line_key: sha256(`${name} line ${i}`).toString('hex'),
    at: r.at,
    crawler: r.crawler,
    identity: r.identity ?? 'verified',
    identity_method: (r.identity ?? 'verified') === 'unverifiable' ? 'none' : 'ip_ranges',
    judgement: r.judgement,
    run_id: r.runId ?? null,
    path: r.path,
    user_agent: r.userAgent ?? `Mozilla/5.0 (compatible; ${r.crawler}/1.0)`,
    rule_line: r.ruleLine ?? null,
    rule: r.rule ?? null,
  }));
  const stored = await pool.query(
    `with given as (
       select * from jsonb_to_recordset($1::jsonb) as g(origin text, line_key text, at timestamptz, crawler text, identity crawler_identity,
         identity_method identity_method, judgement crawler_judgement, run_id int, path text, user_agent text, rule_line int, rule text)
     ), agents as (
       insert into request_user_agents (sha256, text)
       select distinct sha256(convert_to(user_agent, 'UTF8')), user_agent from given
       on conflict (sha256) do update set text = excluded.text
       returning id, text
     )
     insert into crawler_requests (site_id, line_key, at, crawler, identity, identity_method, judgement, run_id, method, path, status,
       user_agent_id, client_ip, rule_line, rule, import_id)
     select s.id, decode(g.line_key, 'hex'), g.at, g.crawler, g.identity, g.identity_method, g.judgement, g.run_id, 'GET', g.path, 200,
       a.id, '192.0.2.10', g.rule_line, g.rule, $2
     from given g join sites s on s.origin = g.origin join agents a on a.text = g.user_agent`,
    [JSON.stringify(rows), imported[0]!.id],
  );
  // A request of a site that is not there would be left out without a word.
  if (stored.rowCount !== requests.length) throw new Error(`stored ${stored.rowCount} of ${requests.length} requests: is every origin a monitored site?`);
}
