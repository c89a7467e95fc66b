/**
 * A night of the cluster with a fault in the middle of it, and what must hold after it: the run
 * completes, every site has exactly one night, none of them `night_failed`, every alert is stored
 * once and delivered once, and the metrics of the processes add up.
 */
import { expect } from 'vitest';
import type { Cluster, RobotsAuditProcess } from './cluster.js';
import type { Host } from './netns.js';
import { waitFor } from './data-host.js';

const FIRST_NIGHT = Date.UTC(2026, 8, 1, 3);
const DAY_MS = 24 * 3600 * 1000;
/** Real-world latency of the sites' answers, ms: a night lasts seconds, long enough to break in. */
export const LATENCY: [number, number] = [100, 400];

export interface Fault {
  /** Said in failure messages. */
  name: string;
  /** Breaks something; resolves once it is broken. */
  inject(c: Cluster): Promise<void>;
  /** Mends it; resolves once it is mended. */
  heal(c: Cluster): Promise<void>;
}

export interface NightResult {
  runId: number;
  /** Sites done when the fault was injected. */
  doneAtFault: number;
  /** Sites done when it was healed. */
  doneAtHeal: number;
  /** Nights stored per worker host during the night (from their metrics), where still reachable. */
  nightsStored: Map<string, number>;
  /** Jobs each worker host counted as lost (finished after another took them over). */
  jobsLost: Map<string, number>;
  /** Lost jobs each worker host had counted before the night. */
  jobsLostBefore: Map<string, number>;
}

async function one<T>(c: Cluster, text: string, params: unknown[] = []): Promise<T> {
  return (await c.db.query(text, params)).rows[0] as T;
}

export async function sitesDone(c: Cluster, runId: number): Promise<number> {
  const r = await one<{ n: string }>(c, 'select count(*) as n from snapshots where run_id = $1', [runId]);
  return Number(r.n);
}

async function counters(c: Cluster): Promise<Map<string, { stored: number; lost: number }>> {
  const out = new Map<string, { stored: number; lost: number }>();
  for (const w of c.workers.values()) {
    const m = await c.metrics(w);
    if (!m) continue;
    out.set(w.host.name, { stored: m.sum('robots_audit_nights_stored_total'), lost: m.sum('robots_audit_jobs_total', { result: 'lost' }) });
  }
  return out;
}

/**
 * Night `n` (1, 2, ...): every site serves a new file, the run is started on the scheduler host,
 * and once `faultAt` of the sites are done the fault is injected; it is healed after `holdMs` (and
 * after `healWhen`, if given), then the run is awaited with its deliveries.
 */
export async function nightWithFault(
  c: Cluster,
  n: number,
  fault: Fault,
  options: { faultAt?: number; holdMs: number; healWhen?: (done: number) => boolean },
): Promise<NightResult> {
  await c.serve(n, LATENCY);
  const before = await counters(c);
  const at = new Date(FIRST_NIGHT + n * DAY_MS).toISOString();
  const started = await c.cli(['audit', '--at', at]);
  expect(started.code, started.stderr).toBe(0);
  const runId = Number(/^run (\d+) /.exec(started.stdout)?.[1]);
  expect(runId, started.stdout).toBeGreaterThan(0);
  const total = c.sites.length;
  await waitFor(`a share of the sites before ${fault.name}`, async () => (await sitesDone(c, runId)) >= total * (options.faultAt ?? 1 / 3), 60_000);
  const doneAtFault = await sitesDone(c, runId);
  await fault.inject(c);
  await new Promise((r) => setTimeout(r, options.holdMs));
  if (options.healWhen) await waitFor(`the condition to heal ${fault.name}`, async () => options.healWhen!(await sitesDone(c, runId)), 120_000);
  const doneAtHeal = await sitesDone(c, runId);
  await fault.heal(c);
  await waitFor(
    `run ${runId} to complete after ${fault.name}`,
    async () => (await one<{ status: string }>(c, 'select status::text from audit_runs where id = $1', [runId])).status === 'completed',
    180_000,
  );
  await waitFor(
    `the deliveries of run ${runId}`,
    async () =>
      Number(
        (await one<{ n: string }>(c, "select count(*) as n from alert_deliveries d join alerts a on a.id = d.alert_id where a.run_id = $1 and d.status = 'pending'", [runId])).n,
      ) === 0,
    120_000,
  );
  const after = await counters(c);
  const nightsStored = new Map<string, number>();
  const jobsLost = new Map<string, number>();
  for (const [host, a] of after) {
    const b = before.get(host) ?? { stored: 0, lost: 0 };
    // A worker started again during the night counts from zero.
    nightsStored.set(host, a.stored >= b.stored ? a.stored - b.stored : a.stored);
    jobsLost.set(host, a.lost >= b.lost ? a.lost - b.lost : a.lost);
  }
  const jobsLostBefore = new Map([...before].map(([host, b]) => [host, b.lost]));
  return { runId, doneAtFault, doneAtHeal, nightsStored, jobsLost, jobsLostBefore };
}

/**
 * Waits until the worker of `host` has counted a lost job this night: a worker that was cut off
 * hears Redis refuse its results only when its connection's retransmissions get through, which
 * may be after the run was completed by the others. Returns how many it counted.
 */
export async function lostJobsOf(c: Cluster, host: Host, result: NightResult): Promise<number> {
  const before = result.jobsLostBefore.get(host.name) ?? 0;
  let lost = 0;
  await waitFor(`${host.name} to count its lost jobs`, async () => {
    lost = ((await counters(c)).get(host.name)?.lost ?? 0) - before;
    return lost > 0;
  }, 60_000);
  return lost;
}

/** What every night must leave, fault or not. */
export async function expectWholeNight(c: Cluster, runId: number): Promise<void> {
  const total = c.sites.length;
  const run = await one<{ status: string; sites_total: number; sites_done: number; sites_failed: number }>(
    c,
    `select status::text, sites_total, sites_done,
            (select count(*) from jsonb_object_keys(coalesce(counts -> 'failed', '{}'::jsonb)))::integer as sites_failed
       from audit_runs where id = $1`,
    [runId],
  );
  expect(run).toMatchObject({ status: 'completed', sites_total: total, sites_done: total, sites_failed: 0 });
  // Every site exactly one night, one final attempt, and an ordinary one: nothing `night_failed`.
  const perSite = await c.db.query<{ nights: string; finals: string }>(
    `select count(distinct n.site_id) filter (where true) as nights,
            (select count(*) from fetch_attempts a where a.run_id = $1 and a.final) as finals
       from snapshots n where n.run_id = $1`,
    [runId],
  );
  expect(Number(perSite.rows[0]!.nights)).toBe(total);
  expect(Number(perSite.rows[0]!.finals)).toBe(total);
  const snapshots = await one<{ n: string }>(c, 'select count(*) as n from snapshots where run_id = $1', [runId]);
  expect(Number(snapshots.n)).toBe(total);
  const outcomes = await c.db.query<{ outcome: string; n: string }>('select outcome::text, count(*) as n from snapshots where run_id = $1 group by 1', [runId]);
  expect(outcomes.rows.map((r) => [r.outcome, Number(r.n)])).toEqual([['ok', total]]);
  // Every site changed alike: each alert kind once per site, none of them night_failed.
  const alerts = await c.db.query<{ kind: string; n: string }>('select kind, count(*) as n from alerts where run_id = $1 group by kind order by kind', [runId]);
  expect(alerts.rows.length).toBeGreaterThan(0);
  for (const a of alerts.rows) expect([a.kind, Number(a.n)]).toEqual([a.kind, total]);
  // Each delivered once, and the receiver saw each delivery's id (a repeat only of the same message).
  const deliveries = await c.db.query<{ status: string; n: string }>(
    'select d.status::text, count(*) as n from alert_deliveries d join alerts a on a.id = d.alert_id where a.run_id = $1 group by 1',
    [runId],
  );
  const alertCount = alerts.rows.reduce((s, a) => s + Number(a.n), 0);
  expect(deliveries.rows.map((d) => [d.status, Number(d.n)])).toEqual([['delivered', alertCount]]);
}

/** Webhook ids received, and how many were received more than once (always the same message). */
export function receivedWebhooks(c: Cluster): { ids: number; repeats: number } {
  const byId = new Map<string, Set<string>>();
  let received = 0;
  for (const r of c.receiver.requests) {
    if (r.status !== 200) continue;
    received += 1;
    const id = String(r.headers['webhook-id']);
    const bodies = byId.get(id) ?? new Set<string>();
    bodies.add(JSON.stringify((JSON.parse(r.body) as { data: unknown }).data));
    byId.set(id, bodies);
  }
  for (const bodies of byId.values()) expect(bodies.size).toBe(1);
  return { ids: byId.size, repeats: received - byId.size };
}

/** Deliveries marked delivered in the whole database. */
export async function deliveredCount(c: Cluster): Promise<number> {
  return Number((await one<{ n: string }>(c, "select count(*) as n from alert_deliveries where status = 'delivered'")).n);
}

export function isRunning(p: RobotsAuditProcess): boolean {
  return p.child.exitCode === null && p.child.signalCode === null;
}
