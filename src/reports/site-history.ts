/**
 * A site's timeline of nights (`robots-audit history`), newest first: each night's outcome and
 * effective policy with the rule behind it (R-10..R-15, D-3, D-4), what changed, the verdicts
 * that flipped, the usage preferences that changed (usage_flips) and the alerts raised; and a
 * night still to come, waiting for its retry.
 *
 * Every query is one site's rows through an index that leads with `site_id`: the nights through
 * the snapshots' primary key (site, run clock) read backwards and cut at the limit, then the
 * changes (unique (site, run)), flips, usage flips and alerts (their site indexes) of those runs only. So a
 * site's history costs the same with a year of nights for 100,000 sites as with one.
 */
import type { FlipRule } from '../night/rows.js';
import type { UsageFlipEvent } from './usage-flips.js';
import type { Queryable } from './site-errors.js';
import { nightPolicyOf } from './site-lookup.js';
import { loadWaits } from '../db/run-waits.js';
import type { NightPolicy, NightPolicyRow, SiteRef } from './site-lookup.js';

/** Nights shown when `--limit` is not given. */
export const DEFAULT_HISTORY_LIMIT = 30;

export interface HistoryFlip {
  url: string;
  agent: string;
  /** Null when there was no verdict before (first_seen). */
  from: boolean | null;
  to: boolean;
  /** `rules_changed`, `outcome_changed`, `fallback_started`, `fallback_ended`, `first_seen`. */
  cause: string;
  ruleBefore: FlipRule | null;
  ruleAfter: FlipRule | null;
}

/** A usage preference that changed for a URL the crawler may fetch both nights (`usage_flips`). */
export interface HistoryUsageFlip extends UsageFlipEvent {
  ruleBefore: UsageFlipEvent['ruleAfter'];
}

export interface HistoryAlert {
  severity: 'critical' | 'warning' | 'info';
  kind: string;
  title: string;
}

export interface HistoryNight extends NightPolicy {
  /** Under the 30-day fallback with rules (D-3): the night whose copy applies. */
  rulesNight: Date | null;
  rulesRunKey: string | null;
  /** The body fetched that night (ok nights), as its SHA-256 in hex, and its size. */
  bodySha256: string | null;
  bodyBytes: number | null;
  /** The site was flapping that night (issue 18): its changes raised no alerts of their own. */
  flapping: boolean;
  /** A confirmation fetch that disagreed with the night's body: its SHA-256 in hex. */
  confirmSha256: string | null;
  /** snapshot_changes.kinds, in stored order; [] when nothing changed. */
  changes: string[];
  /** By URL, then agent. */
  flips: HistoryFlip[];
  /** The usage preferences that changed (D-15), by URL, then agent, then purpose. */
  usageFlips: HistoryUsageFlip[];
  /** Most severe first. */
  alerts: HistoryAlert[];
}

/**
 * A night of the site still to come (issue 26): its run's retry of the site is due `until`; until
 * then the site's policy is the one its previous night established (as a crawler keeps its cached copy).
 */
export interface HistoryWait {
  runId: number;
  runKey: string;
  night: Date;
  until: Date;
  /** Its run completed without it (pending), or waits for it. */
  pending: boolean;
  /** What the attempt that failed got: `503, Retry-After: 3600`, `ECONNRESET`. */
  answer: string;
}

export interface SiteHistory {
  site: SiteRef;
  /** Every night stored for the site (the timeline shows the newest `limit`). */
  totalNights: number;
  nights: HistoryNight[];
  /** Its nights waiting for a retry, the soonest due first (none: left out or empty). */
  waits?: HistoryWait[];
}

interface NightRow extends NightPolicyRow {
  rules_run_at: Date | null;
  rules_run_key: string | null;
  body_sha256: string | null;
  body_bytes: number | null;
  flapping: boolean;
  confirm_sha256: string | null;
}

export async function siteHistory(db: Queryable, site: SiteRef, options: { limit?: number } = {}): Promise<SiteHistory> {
  const limit = options.limit ?? DEFAULT_HISTORY_LIMIT;
  const nights = await db.query<NightRow>(
    `select n.run_at, n.run_id, r.run_key, n.outcome::text as outcome, n.status, n.error_code, n.policy::text as policy, n.policy_reason,
            n.unreachable_since, rr.run_at as rules_run_at, rr.run_key as rules_run_key,
            encode(b.sha256, 'hex') as body_sha256, b.size as body_bytes, n.flapping, encode(n.confirm_sha256, 'hex') as confirm_sha256
       from snapshots n
       join audit_runs r on r.id = n.run_id
       left join audit_runs rr on rr.id = n.rules_run_id
       left join bodies b on b.id = n.body_id
      where n.site_id = $1
      order by n.run_at desc, n.run_id desc
      limit $2`,
    [site.id, limit],
  );
  const [total] = (await db.query<{ n: number }>('select count(*)::int as n from snapshots where site_id = $1', [site.id])).rows;
  const waits = (await loadWaits(db, { siteId: site.id })).map((w) => ({
    runId: w.runId,
    runKey: w.runKey,
    night: w.runAt,
    until: w.until,
    pending: w.pending,
    answer: `${w.status ?? w.errorCode ?? w.outcome ?? 'no answer'}${w.retryAfter !== null ? `, Retry-After: ${w.retryAfter}` : ''}`,
  }));
  const runIds = nights.rows.map((n) => n.run_id);
  if (runIds.length === 0) return { site, totalNights: total?.n ?? 0, nights: [], waits };

  const [changes, flips, usageFlips, alerts] = await Promise.all([
    db.query<{ run_id: number; kinds: string[] }>('select run_id, kinds from snapshot_changes where site_id = $1 and run_id = any($2::int[])', [site.id, runIds]),
    db.query<{ run_id: number; url: string; agent: string; from_allowed: boolean | null; to_allowed: boolean; cause: string; rule_before: FlipRule | null; rule_after: FlipRule | null }>(
      `select f.run_id, t.url, a.token as agent, f.from_allowed, f.to_allowed, f.cause, f.rule_before, f.rule_after
         from verdict_flips f
         join tracked_urls t on t.id = f.tracked_url_id
         join user_agents a on a.id = f.user_agent_id
        where f.site_id = $1 and f.run_id = any($2::int[])
        order by f.run_id, t.url, lower(a.token)`,
      [site.id, runIds],
    ),
    db.query<{ run_id: number; url: string; agent: string; purpose: HistoryUsageFlip['purpose']; from_preference: HistoryUsageFlip['from']; to_preference: HistoryUsageFlip['to']; rule_before: HistoryUsageFlip['ruleBefore']; rule_after: HistoryUsageFlip['ruleAfter'] }>(
      `select f.run_id, t.url, a.token as agent, f.purpose, f.from_preference, f.to_preference, f.rule_before, f.rule_after
         from usage_flips f
         join tracked_urls t on t.id = f.tracked_url_id
         join user_agents a on a.id = f.user_agent_id
        where f.site_id = $1 and f.run_id = any($2::int[])
        order by f.run_id, t.url, lower(a.token), array_position(array['search', 'ai-train', 'ai-input'], f.purpose)`,
      [site.id, runIds],
    ),
    db.query<{ run_id: number; severity: HistoryAlert['severity']; kind: string; title: string }>(
      // Most severe first: the enum's order (critical, warning, info), not the text's.
      `select l.run_id, l.severity::text as severity, l.kind, l.title from alerts l
        where l.site_id = $1 and l.run_id = any($2::int[])
        order by l.run_id, l.severity, l.kind, l.id`,
      [site.id, runIds],
    ),
  ]);

  const kindsByRun = new Map(changes.rows.map((c) => [c.run_id, c.kinds]));
  const flipsByRun = groupBy(flips.rows, (f) => f.run_id);
  const usageFlipsByRun = groupBy(usageFlips.rows, (f) => f.run_id);
  const alertsByRun = groupBy(alerts.rows, (a) => a.run_id);
  return {
    site,
    totalNights: total?.n ?? 0,
    waits,
    nights: nights.rows.map((n) => ({
      ...nightPolicyOf(n),
      rulesNight: n.rules_run_at,
      rulesRunKey: n.rules_run_key,
      bodySha256: n.body_sha256,
      bodyBytes: n.body_bytes,
      flapping: n.flapping,
      confirmSha256: n.confirm_sha256,
      changes: kindsByRun.get(n.run_id) ?? [],
      flips: (flipsByRun.get(n.run_id) ?? []).map((f) => ({
        url: f.url,
        agent: f.agent,
        from: f.from_allowed,
        to: f.to_allowed,
        cause: f.cause,
        ruleBefore: f.rule_before,
        ruleAfter: f.rule_after,
      })),
      usageFlips: (usageFlipsByRun.get(n.run_id) ?? []).map((f) => ({
        url: f.url,
        agent: f.agent,
        purpose: f.purpose,
        from: f.from_preference,
        to: f.to_preference,
        ruleBefore: f.rule_before,
        ruleAfter: f.rule_after,
      })),
      alerts: (alertsByRun.get(n.run_id) ?? []).map((a) => ({ severity: a.severity, kind: a.kind, title: a.title })),
    })),
  };
}

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}
