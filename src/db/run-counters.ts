/**
 * A run's row as its sites move on (`audit_runs`): the counters each night's transaction adds to,
 * the sites waiting for a retry (issue 26: `counts.waiting`, `pending`, `late`, see RunCounts),
 * the statement that ends a run, and the late digests of a run whose pending sites came in after
 * it ended. Plain node-postgres on the caller's client (inside its transaction), like
 * night-store.ts, whose transaction calls it once per run, runs in id order (their row locks
 * are taken in one order by every writer).
 */
import type { Queryable } from './night-store/queryable.js';
import { deliveryDedupeKey } from './alerts.repo.js';
import { RUN_WAIT_GROUPS } from './schema.js';
import { pgArray } from './pg-array.js';

/**
 * SQL over an `audit_runs` row (`alias`): every site is done, skipped, failed or pending (its
 * retry is due past the hold), so the run is over for everyone (policy/run-hold.ts runSettled).
 */
export function runSettledSql(alias: string): string {
  const keys = (group: string) => `(select count(*) from jsonb_object_keys(coalesce(${alias}.counts -> '${group}', '{}'::jsonb)))`;
  return `${alias}.sites_done + ${keys('skipped')} + ${keys('failed')} + ${keys('pending')} >= ${alias}.sites_total`;
}

/** A retry scheduled for a site of the run: when it is due, and whether the run waits for it. */
export interface ScheduledWait {
  siteId: number;
  until: Date;
  holdsRun: boolean;
}

export interface RunCounterUpdate {
  runId: number;
  /** Nights stored by this transaction, and their count groups ({group: {key: n}}) to add. */
  done: number;
  counts: Record<string, Record<string, number>>;
  /** The sites whose night this transaction stored: they wait no more, and are not failed. */
  stored: readonly number[];
  /** Retries this transaction scheduled (a site's latest wait replaces the one before). */
  waits: readonly ScheduledWait[];
}

export interface RunCounterResult {
  /** The run is running and every site is accounted for: to finish. */
  complete: boolean;
  /** The run had completed and this transaction stored the last of its late sites: its late digests are due. */
  lateSettled: boolean;
}

/**
 * Adds a transaction's nights to its run and records its waits, under the run row's lock. The
 * count groups are added key by key (robots_audit_add_counts); the wait groups are maps of times,
 * kept apart from that addition and written back only when not empty.
 */
export async function updateRunCounters(db: Queryable, u: RunCounterUpdate): Promise<RunCounterResult> {
  const stored = u.stored.map(String);
  const waiting = Object.fromEntries(u.waits.map((w) => [String(w.siteId), w.until.toISOString()]));
  const pending = Object.fromEntries(u.waits.filter((w) => !w.holdsRun).map((w) => [String(w.siteId), w.until.toISOString()]));
  const holding = u.waits.filter((w) => w.holdsRun).map((w) => String(w.siteId));
  const { rows } = await db.query<{ complete: boolean; late_settled: boolean }>({
    name: 'run-counters-update',
    text: `with c as (
             select r.id,
                    robots_audit_add_counts(r.counts - $7::text[], $3::jsonb) as added,
                    (coalesce(r.counts -> 'waiting', '{}'::jsonb) - $4::text[]) || $5::jsonb as waiting,
                    (coalesce(r.counts -> 'pending', '{}'::jsonb) - $4::text[] - $8::text[]) || $6::jsonb as pending
             -- NO KEY UPDATE, as the UPDATE below takes: a plain FOR UPDATE would wait for the key-share
             -- locks the transaction's own inserts (snapshots, attempts, alerts: their run_id) and every
             -- other writer's hold on the run row, a deadlock between any two writers.
             from audit_runs r where r.id = $1 for no key update
           ), n as (
             update audit_runs r set sites_done = r.sites_done + $2,
               -- A site counted as failed whose night is stored after all (a job retried by hand) is done, not failed.
               counts = (case when c.added ? 'failed' then jsonb_set(c.added, '{failed}', (c.added -> 'failed') - $4::text[]) else c.added end)
                        || (case when c.waiting = '{}'::jsonb then '{}'::jsonb else jsonb_build_object('waiting', c.waiting) end)
                        || (case when c.pending = '{}'::jsonb then '{}'::jsonb else jsonb_build_object('pending', c.pending) end)
                        || (case when r.counts ? 'late' then jsonb_build_object('late', r.counts -> 'late') else '{}'::jsonb end)
             from c where r.id = c.id
             returning r.status = 'running' and ${runSettledSql('r')} as complete,
                       r.status = 'completed' and coalesce((r.counts -> 'late') ?| $4::text[], false)
                         and not exists (select 1 from jsonb_object_keys(r.counts -> 'late') k where coalesce(r.counts -> 'waiting', '{}'::jsonb) ? k) as late_settled
           )
           select complete, late_settled from n`,
    values: [u.runId, u.done, JSON.stringify(u.counts), stored, JSON.stringify(waiting), JSON.stringify(pending), [...RUN_WAIT_GROUPS], holding],
  });
  return { complete: rows[0]?.complete ?? false, lateSettled: rows[0]?.late_settled ?? false };
}

/**
 * Counts a site of the run as skipped or failed (unless its night is stored after all: a late
 * duplicate job), and takes it off the waits. Returns whether that settled the run's late sites.
 */
export async function markRunSite(db: Queryable, runId: number, siteId: number, group: 'skipped' | 'failed'): Promise<{ lateSettled: boolean }> {
  const { rows } = await db.query<{ late_settled: boolean }>(
    `with n as (
       update audit_runs r set counts = jsonb_set(r.counts - '{waiting,pending}'::text[], $3::text[],
                                                  coalesce(r.counts -> $4, '{}'::jsonb) || jsonb_build_object($5::text, 1))
                                        || (case when coalesce(r.counts -> 'waiting', '{}'::jsonb) - $5::text = '{}'::jsonb then '{}'::jsonb
                                                 else jsonb_build_object('waiting', (r.counts -> 'waiting') - $5::text) end)
                                        || (case when coalesce(r.counts -> 'pending', '{}'::jsonb) - $5::text = '{}'::jsonb then '{}'::jsonb
                                                 else jsonb_build_object('pending', (r.counts -> 'pending') - $5::text) end)
       where r.id = $1
         and not exists (select 1 from snapshots s where s.site_id = $2 and s.run_id = $1 and s.run_at = r.run_at)
       returning r.status = 'completed' and coalesce((r.counts -> 'late') ? $5::text, false)
                 and not exists (select 1 from jsonb_object_keys(r.counts -> 'late') k where coalesce(r.counts -> 'waiting', '{}'::jsonb) ? k) as late_settled
     )
     select late_settled from n`,
    [runId, siteId, `{${group}}`, group, String(siteId)],
  );
  return { lateSettled: rows[0]?.late_settled ?? false };
}

/**
 * The late digest of a completed run, once all its late sites are in: one delivery per enabled
 * digest channel that has, at or above its minimum severity, an alert of a site that was pending
 * when the run completed. Idempotent (dedupe key `ch<id>:run<id>:late-digest`); returns the
 * deliveries created, to queue after the commit.
 */
export async function createLateDigests(db: Queryable, runId: number): Promise<number[]> {
  // The severity enum is ordered critical < warning < info: "at or above" is <=.
  const { rows: channels } = await db.query<{ id: number }>({
    name: 'run-late-digest-channels',
    text: `select c.id from alert_channels c
           where c.enabled and c.digest
             and exists (select 1 from alerts a join audit_runs r on r.id = a.run_id
                         where a.run_id = $1 and a.severity <= c.min_severity and coalesce((r.counts -> 'late') ? a.site_id::text, false))
           order by c.id`,
    values: [runId],
  });
  if (channels.length === 0) return [];
  const { rows } = await db.query<{ id: string }>({
    name: 'run-late-digest-insert',
    text: `insert into alert_deliveries (channel_id, run_id, dedupe_key)
           select * from unnest($1::int[], $2::int[], $3::text[])
           on conflict (dedupe_key) do nothing
           returning id`,
    values: [
      pgArray(channels, (c) => c.id),
      pgArray(channels, () => runId),
      pgArray(channels, (c) => deliveryDedupeKey({ channelId: c.id, digestRunId: runId, late: true })),
    ],
  });
  return rows.map((r) => Number(r.id));
}
