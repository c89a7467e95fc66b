/**
 * Three worker processes on one Redis and one Postgres leave the same database as one worker
 * does (apart from times and the order rows were inserted in). Two pipelines, each with its own
 * database and queue prefix, the same sites, the same web answers night after night (changes, a
 * 503, a 404, a redirect), the same alert channel; one is worked by one process, the other by
 * three. Rows are compared by what they say, ids translated to natural keys.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver } from '../../fixtures/webhook-receiver.js';
import type { WebhookReceiver } from '../../fixtures/webhook-receiver.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { addSites, eventually, replayNight, rows, track } from '../../helpers/nightly.js';
import { spawnWorker, stopWorker } from '../../helpers/worker-process.js';
import type { WorkerProcess } from '../../helpers/worker-process.js';

const SITES = 24;
const names = Array.from({ length: SITES }, (_, i) => `m${i}`);
const NIGHTS = ['2026-10-01T03:00:00.000Z', '2026-10-02T03:00:00.000Z', '2026-10-03T03:00:00.000Z'];

/** What site i answers on night n: most keep their file, some change, fail or vanish. */
function answer(i: number, n: number): string | { status: number; body: string } {
  const base = `User-agent: *\nDisallow: /private-${i}/\n`;
  if (n >= 1 && i % 6 === 1) return `${base}\nUser-agent: GPTBot\nDisallow: /\n`;
  if (n === 2 && i % 6 === 2) return { status: 503, body: 'down\n' };
  if (n >= 1 && i % 6 === 3) return { status: 404, body: 'gone\n' };
  if (n === 2 && i % 6 === 4) return `# edited\n${base}`;
  return base;
}

interface Side {
  p: Pipeline;
  receiver: WebhookReceiver;
  workers: WorkerProcess[];
}

async function side(workers: number): Promise<Side> {
  // Small batches and few fetches at a time, so that three workers really share every night.
  const p = await startPipeline({ workers: false, env: { ROBOTS_AUDIT_BATCH_SIZE: '4', ROBOTS_AUDIT_FETCH_CONCURRENCY: '3' } });
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const receiver = await startWebhookReceiver({ secret });
  const added = await p.cli(['alerts', 'add', receiver.url, '--secret', secret, '--min-severity', 'info']);
  expect(added.code, added.stderr).toBe(0);
  await addSites(p, names);
  await track(p, 'm1', ['/private-1/x', '/products/a']);
  const started = Array.from({ length: workers }, () => spawnWorker(p));
  await Promise.all(started.map((w) => w.started()));
  return { p, receiver, workers: started };
}

/** The database as rows of natural keys, sorted: what two equivalent runs must agree on. */
async function contents(p: Pipeline): Promise<Record<string, unknown[]>> {
  const q = (text: string) => rows(p, text);
  return {
    runs: await q(`select run_key, status::text, sites_total, sites_done, counts from audit_runs order by run_key`),
    snapshots: await q(`select s.origin, r.run_key, n.outcome::text, n.policy::text, n.policy_reason, n.status, n.attempts, n.truncated,
                               encode(b.sha256, 'hex') as body, encode(x.key, 'hex') as answer, rr.run_key as rules_run, n.unreachable_since
                        from snapshots n join sites s on s.id = n.site_id join audit_runs r on r.id = n.run_id
                        left join bodies b on b.id = n.body_id left join responses x on x.id = n.response_id
                        left join audit_runs rr on rr.id = n.rules_run_id
                        order by s.origin, r.run_key`),
    attempts: await q(`select s.origin, r.run_key, a.attempt, a.final, a.outcome::text, a.status, a.error_code
                       from fetch_attempts a join sites s on s.id = a.site_id join audit_runs r on r.id = a.run_id order by 1, 2, 3`),
    bodies: await q(`select encode(sha256, 'hex') as sha, size, rules, groups, lint_errors, lint_warnings from bodies order by sha`),
    responses: await q(`select encode(key, 'hex') as key, final_url, content_type from responses order by key`),
    // eval_key hashes the tracked URLs, whose port differs between the sides: only whether it is set.
    states: await q(`select s.origin, r.run_key, st.outcome::text, st.policy::text, st.failed_nights, st.eval_key is not null as evaluated,
                            g.run_key as last_good, c.run_key as last_change
                     from site_state st join sites s on s.id = st.site_id join audit_runs r on r.id = st.run_id
                     left join audit_runs g on g.id = st.last_good_run_id left join audit_runs c on c.id = st.last_change_run_id order by 1`),
    changes: await q(`select s.origin, r.run_key, p.run_key as previous, c.kinds, c.text_diff, c.rule_diff
                      from snapshot_changes c join sites s on s.id = c.site_id join audit_runs r on r.id = c.run_id
                      left join audit_runs p on p.id = c.previous_run_id order by 1, 2`),
    verdicts: await q(`select t.url, a.token, f.run_key as from_run, x.run_key as to_run, v.allowed, v.rule_line
                       from verdicts v join tracked_urls t on t.id = v.tracked_url_id join user_agents a on a.id = v.user_agent_id
                       join audit_runs f on f.id = v.from_run_id left join audit_runs x on x.id = v.to_run_id order by 1, 2, 3`),
    flips: await q(`select t.url, a.token, r.run_key, f.from_allowed, f.to_allowed, f.cause, f.rule_before, f.rule_after
                    from verdict_flips f join tracked_urls t on t.id = f.tracked_url_id join user_agents a on a.id = f.user_agent_id
                    join audit_runs r on r.id = f.run_id order by 1, 2, 3`),
    alerts: await q(`select a.dedupe_key, a.severity::text, a.kind, a.title, a.details from alerts a order by 1`),
    deliveries: await q(`select a.dedupe_key, d.status::text from alert_deliveries d join alerts a on a.id = d.alert_id order by 1`),
  };
}

let one: Side;
let three: Side;

beforeAll(async () => {
  [one, three] = await Promise.all([side(1), side(3)]);
  for (const [n, at] of NIGHTS.entries()) {
    const serve = Object.fromEntries(names.map((name, i) => [name, answer(i, n)]));
    await Promise.all([replayNight(one.p, at, serve), replayNight(three.p, at, serve)]);
  }
  for (const s of [one, three]) {
    await eventually(
      async () => Number((await rows<{ n: string }>(s.p, "select count(*) as n from alert_deliveries where status = 'pending'"))[0]!.n) === 0,
      'the deliveries',
      30_000,
    );
  }
}, 120_000);

afterAll(async () => {
  for (const s of [one, three]) {
    if (!s) continue;
    for (const w of s.workers) await stopWorker(w);
    await s.p.close();
    await s.receiver.close();
  }
});

describe('three workers leave the database one worker leaves', () => {
  it('every table, row for row (apart from times and insertion order)', async () => {
    // Each side has its own web server: its port is in every origin, URL and message.
    const samePort = (c: Record<string, unknown[]>) => JSON.parse(JSON.stringify(c).replace(/\.test:\d+/g, '.test:PORT')) as Record<string, unknown[]>;
    const [a, b] = [samePort(await contents(one.p)), samePort(await contents(three.p))];
    for (const table of Object.keys(a)) expect(b[table], table).toEqual(a[table]);
    // The nights had something in them: changes, flips, alerts and deliveries on both sides.
    expect(a.flips!.length).toBeGreaterThan(0);
    expect(a.deliveries!.length).toBeGreaterThan(0);
  });

  it('the three workers all took part, and no site was asked more than on the one-worker side', async () => {
    const batches = await three.p.rt.queues.fetch.getJobs(['completed']);
    const processes = new Set(batches.map((j) => j.processedBy?.split(':')[1]));
    expect(processes).toEqual(new Set(three.workers.map((w) => String(w.child.pid))));
    expect(three.p.web.requestCount()).toBe(one.p.web.requestCount());
  });
});
