/**
 * The fetch half of the pipeline, end to end: sites added with `robots-audit sites add`, nights
 * run with `robots-audit audit --wait --at`, the real fetch worker (BullMQ workers in-process),
 * the real Postgres. Each fetch behaviour is asserted on the rows it leaves behind:
 * `fetch_attempts` (the view: one per attempt, retries included: R-13, D-3), `snapshots`
 * (outcome, policy and the rule behind it) and `bodies` (byte for byte, once per sha256, with
 * the parse summary).
 *
 * What the fetcher itself returns is tested in test/integration/http/fetch-robots-txt.int.test.ts;
 * here the question is what the pipeline records. Each group of sites is a portfolio, so an
 * `audit --portfolio` night fetches only the sites it is about; the hostile scenarios share one
 * night (one site per scenario, the 500 KiB bodies in a night of their own), which keeps the file fast.
 */
import { closedPort } from '../../fixtures/webhook-receiver.js';
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../../src/cli/commands/audit.command.js';
import { sha256Of } from '../../../src/night/keys.js';
import type { Attempt, Body, Snapshot } from '../../../src/db/index.js';
import { MIN_RETRY_DELAY_MS } from '../../../src/policy/index.js';
import type { PolicyKind, PolicyReason } from '../../../src/policy/index.js';
import { JOBS, jobIds } from '../../../src/queues/contracts.js';
import { BOM_BODY, bigBody, gzipBomb, HTML_BODY, LATIN1_BODY, MIB, OK_BODY, RETRY_AFTER_503, startFixtureWeb } from '../../fixtures/web/index.js';
import type { FixtureHandler, FixtureWeb } from '../../fixtures/web/index.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';

/** R-18, D-6: the bytes kept of a body (env default, 500 KiB). */
const KEPT_BYTES = 500 * 1024;
/** ROBOTS_AUDIT_RETRY_DELAYS=0.05,0.05 (the harness): two retries, so three attempts at most. */
const MAX_ATTEMPTS = 3;
/** ROBOTS_AUDIT_RETRY_AFTER_CAP=0.2 (the harness): a server's Retry-After is honoured up to 200 ms. */
const RETRY_AFTER_CAP_MS = 200;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Timer and clock granularity tolerated when comparing a retry gap with its delay. */
const CLOCK_SLACK_MS = 15;

/** Names pinned to addresses the SSRF guard must refuse (no packet may leave for them). */
const PINS = ['*.test=127.0.0.1', 'blocked.test=10.255.255.1', 'evil.test=10.255.255.1'].join(',');

let p: Pipeline;
const rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onRejection);
  p = await startPipeline({ env: { ROBOTS_AUDIT_RESOLVE: PINS } });
  await gzipBomb(); // built once before the night, so the bomb's fetch is not slowed by it
});

afterAll(async () => {
  process.off('unhandledRejection', onRejection);
  await p?.close();
});

// --- helpers ---------------------------------------------------------------------------------

async function cliOk(argv: string[]): Promise<string> {
  const run = await p.cli(argv);
  expect(run.code, `${argv.join(' ')}\n${run.stderr}${run.stdout}`).toBe(0);
  return run.stdout;
}

async function addSites(portfolio: string, origins: string[]): Promise<void> {
  // --allow-ip: one scenario is a closed port of 127.0.0.1 (sites add refuses IP hosts by default).
  await cliOk(['sites', 'add', '--allow-ip', '--portfolio', portfolio, ...origins]);
}

/** One night of a portfolio, through the CLI, followed to its end. */
async function audit(portfolio: string, at: string): Promise<RunSummary> {
  const summary = JSON.parse(await cliOk(['audit', '--wait', '--json', '--portfolio', portfolio, '--at', at])) as RunSummary;
  expect(summary.run.status).toBe('completed');
  return summary;
}

async function siteIdOf(origin: string): Promise<number> {
  const site = await p.rt.repos.sites.findSiteByOrigin(origin);
  if (!site) throw new Error(`no site ${origin}`);
  return site.id;
}

interface Recorded {
  siteId: number;
  snapshot: Snapshot;
  attempts: Attempt[];
  /** The stored body the snapshot names (with its parse summary), or null. */
  stored: Body | null;
  body: Buffer | null;
  /** Snapshots of this site in this run (must be 1). */
  snapshotsInRun: number;
}

async function recorded(runId: number, origin: string): Promise<Recorded> {
  const siteId = await siteIdOf(origin);
  const snapshot = await p.rt.repos.snapshots.snapshotFor(runId, siteId);
  if (!snapshot) throw new Error(`no snapshot of ${origin} in run ${runId}`);
  const attempts = await p.rt.repos.snapshots.attemptsFor(runId, siteId);
  const stored = snapshot.bodyId === null ? null : await p.rt.repos.bodies.getBodyRow(snapshot.bodyId);
  const count = await p.db.pool.query<{ n: string }>('select count(*) as n from snapshots where run_id = $1 and site_id = $2', [runId, siteId]);
  return { siteId, snapshot, attempts, stored, body: stored?.content ?? null, snapshotsInRun: Number(count.rows[0]!.n) };
}

async function count(sqlText: string, params: unknown[] = []): Promise<number> {
  const { rows } = await p.db.pool.query<{ n: string }>(sqlText, params);
  return Number(rows[0]!.n);
}

function nightAt(base: string, days: number): string {
  return new Date(Date.parse(base) + days * DAY_MS).toISOString();
}

/** Waits for a job to finish; returns it as stored, with its final state. */
async function settled(job: Job): Promise<{ job: Job; state: string }> {
  const deadline = Date.now() + 10_000;
  const queue = job.queueName === p.rt.queues.site.name ? p.rt.queues.site : p.rt.queues.fetch;
  for (;;) {
    const state = await job.getState();
    if (state === 'completed' || state === 'failed') return { job: (await queue.getJob(job.id!))!, state };
    if (Date.now() > deadline) throw new Error(`job ${job.id} still ${state}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A reply that takes `ms` before answering 200 with `body`; counts how many run at once. */
function slowReply(ms: number, body: string, meter: { running: number; max: number; spans: Array<[number, number]> }): FixtureHandler {
  return (_req, res, ctx) => {
    meter.running++;
    meter.max = Math.max(meter.max, meter.running);
    const start = Date.now();
    const timer = setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    }, ms);
    ctx.onClose(() => {
      clearTimeout(timer);
      meter.running--;
      meter.spans.push([start, Date.now()]);
    });
  };
}

// --- one night of every scenario ----------------------------------------------------------------

const NIGHT = '2026-02-01T03:00:00.000Z';
/** `<name>.test` sites answered by the fixture web's built-in scenarios. */
const SCENARIO_SITES = [
  'ok', 'html', 'empty', 'latin1', 'bom',
  'redirect-1', 'redirect-2', 'redirect-3', 'redirect-4', 'redirect-5', 'redirect-6', 'cross-host', 'loop',
  's401', 's403', 's404', 's410', 's429', 's500', 's502', 's503',
  'slow-headers', 'trickle', 'reset-mid-body', 'bad-chunked',
  'to-evil', 'to-metadata',
];
/**
 * The 500 KiB bodies get a night of their own: parsing and diffing them takes the event loop for
 * a while, and the fixture web shares it, so the other fetches (1 s header timeout) stay clear of it.
 */
const BIG_BODY_SITES = ['big-1mib', 'endless', 'gzip-bomb'];
/** 503 on the first request, the rules afterwards. */
const RECOVERED_BODY = 'User-agent: *\nDisallow: /was-down/\n';

describe('one night of ordinary and hostile sites (portfolios "scenarios" and "big-bodies")', () => {
  const origin: Record<string, string> = {};
  let runId: number;
  let bigRunId: number;
  const summaries: RunSummary[] = [];

  beforeAll(async () => {
    for (const name of [...SCENARIO_SITES, ...BIG_BODY_SITES]) origin[name] = p.origin(name);
    origin.recover = p.origin('recover');
    origin.blocked = p.origin('blocked'); // pinned to 10.255.255.1
    origin.unresolvable = 'http://nonexistent.invalid';
    origin.refused = `http://127.0.0.1:${await closedPort()}`;

    let recoverRequests = 0;
    p.web.set('recover.test', (_req, res) => {
      recoverRequests++;
      const [status, body] = recoverRequests === 1 ? [503, 'down\n'] : [200, RECOVERED_BODY];
      res.writeHead(status, { 'content-type': 'text/plain', 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    });
    await addSites('big-bodies', BIG_BODY_SITES.map((name) => origin[name]!));
    await addSites('scenarios', Object.entries(origin).filter(([name]) => !BIG_BODY_SITES.includes(name)).map(([, url]) => url));
    // R-11: the rules of the redirect target govern the original origin's URLs.
    await cliOk(['track', origin['cross-host']!, '/private/x', '/private/open']);
    p.web.resetCounters();

    summaries.push(await audit('big-bodies', NIGHT));
    summaries.push(await audit('scenarios', NIGHT));
    [bigRunId, runId] = summaries.map((s) => s.run.id) as [number, number];
  }, 90_000);

  it('ends with one snapshot per site and no failed job', async () => {
    for (const summary of summaries) {
      const sites = summary.run.sites;
      expect(Object.values(summary.outcomes).reduce((a, b) => a + b, 0)).toBe(sites);
      expect(await count('select count(*) as n from snapshots where run_id = $1', [summary.run.id])).toBe(sites);
      expect(await count('select count(distinct site_id) as n from snapshots where run_id = $1', [summary.run.id])).toBe(sites);
    }
    expect(summaries.map((s) => s.run.sites)).toEqual([BIG_BODY_SITES.length, Object.keys(origin).length - BIG_BODY_SITES.length]);
    expect(await p.rt.queues.fetch.getFailedCount()).toBe(0);
    expect(await p.rt.queues.site.getFailedCount()).toBe(0);
  });

  describe('R-10: 2xx -> conditional allow; the body stored byte for byte', () => {
    // [site, body, Content-Type, rules parsed, requests the host got (ok.test is also cross-host's target)]
    it.each<[string, Buffer, string, number, number]>([
      ['ok', Buffer.from(OK_BODY), 'text/plain', 2, 2],
      ['html', Buffer.from(HTML_BODY), 'text/html; charset=utf-8', 1, 1], // R-21: only the valid lines count
      ['empty', Buffer.alloc(0), 'text/plain', 0, 1],
      ['latin1', LATIN1_BODY, 'text/plain; charset=iso-8859-1', 2, 1], // R-27: not re-encoded
      ['bom', BOM_BODY, 'text/plain', 1, 1], // R-22: the BOM is kept in the bytes, skipped by the parser
    ])('%s', async (name, bytes, contentType, rules, requests) => {
      const r = await recorded(runId, origin[name]!);
      expect(r.snapshotsInRun).toBe(1);
      expect(r.snapshot).toMatchObject({
        outcome: 'ok',
        status: 200,
        attempts: 1,
        policy: 'rules',
        policyReason: 'R-10',
        rulesRunId: null, // its own rules
        unreachableSince: null,
        truncated: false,
      });
      expect(r.stored).toMatchObject({ size: bytes.length, rules });
      expect(r.stored?.sha256.equals(sha256Of(bytes))).toBe(true);
      expect(r.body?.equals(bytes)).toBe(true);
      expect(r.attempts).toHaveLength(1);
      expect(r.attempts[0]).toMatchObject({
        attempt: 1,
        outcome: 'ok',
        status: 200,
        errorCode: null,
        hops: [],
        finalUrl: `${origin[name]}/robots.txt`,
        remoteAddress: '127.0.0.1',
        truncated: false,
        bodyBytes: bytes.length,
        fullSize: bytes.length,
        contentType,
      });
      expect(r.attempts[0]!.bodySha256?.equals(sha256Of(bytes))).toBe(true);
      expect(await count('select count(*) as n from bodies where sha256 = $1 and size = $2', [sha256Of(bytes), bytes.length])).toBe(1);
      expect(p.web.requestCount(`${name}.test`)).toBe(requests);
    });

    it('a body shared by two sites is stored once; every stored body is referenced', async () => {
      const ok = await recorded(runId, origin.ok!);
      const crossHost = await recorded(runId, origin['cross-host']!);
      expect(crossHost.snapshot.bodyId).toBe(ok.snapshot.bodyId);
      expect(await count('select count(*) as n from bodies where sha256 = $1', [sha256Of(Buffer.from(OK_BODY))])).toBe(1);
      expect(await count('select count(*) as n from bodies')).toBe(await count('select count(distinct body_id) as n from snapshots where body_id is not null'));
    });
  });

  describe('R-11: redirects', () => {
    it.each([1, 2, 3, 4, 5])('redirect-%i: followed, every hop recorded, the final body is the rules', async (n) => {
      const r = await recorded(runId, origin[`redirect-${n}`]!);
      const body = Buffer.from(`# reached after ${n} redirects\nUser-agent: *\nDisallow: /chain/\n`);
      expect(r.snapshot).toMatchObject({ outcome: 'ok', status: 200, attempts: 1, policy: 'rules', policyReason: 'R-10', rulesRunId: null });
      expect(r.body?.equals(body)).toBe(true);
      const [attempt] = r.attempts;
      expect(r.attempts).toHaveLength(1);
      expect(attempt).toMatchObject({ outcome: 'ok', status: 200, errorCode: null, finalUrl: `${origin[`redirect-${n}`]}/r/${n}` });
      expect(attempt!.hops.map((h) => h.status)).toEqual([301, 302, 303, 307, 308].slice(0, n));
      expect(attempt!.hops[0]).toEqual({ url: `${origin[`redirect-${n}`]}/robots.txt`, status: 301, location: `${origin[`redirect-${n}`]}/r/1` });
    });

    it('redirect-6: past the 5-hop limit -> redirect_limit, treated as a 404: full allow, not retried', async () => {
      const r = await recorded(runId, origin['redirect-6']!);
      expect(r.snapshot).toMatchObject({
        outcome: 'redirect_limit',
        status: 301,
        attempts: 1,
        policy: 'allow_all',
        policyReason: 'R-11',
        rulesRunId: null,
        unreachableSince: null,
        bodyId: null,
      });
      expect(r.attempts).toHaveLength(1);
      expect(r.attempts[0]).toMatchObject({ outcome: 'redirect_limit', errorCode: 'TOO_MANY_REDIRECTS', bodySha256: null });
      expect(r.attempts[0]!.hops).toHaveLength(6);
      expect(p.web.requestCount('redirect-6.test')).toBe(6);
    });

    it('a loop -> redirect_limit, full allow, each URL requested once', async () => {
      const r = await recorded(runId, origin.loop!);
      expect(r.snapshot).toMatchObject({ outcome: 'redirect_limit', status: 302, attempts: 1, policy: 'allow_all', policyReason: 'R-11' });
      expect(r.attempts).toHaveLength(1);
      expect(r.attempts[0]).toMatchObject({ errorCode: 'REDIRECT_LOOP', finalUrl: p.web.url('loop-b.test') });
      expect(r.attempts[0]!.hops.map((h) => h.url)).toEqual([p.web.url('loop.test'), p.web.url('loop-b.test')]);
      expect([p.web.requestCount('loop.test'), p.web.requestCount('loop-b.test')]).toEqual([1, 1]);
    });

    it("a redirect to another host: the target's file becomes the original origin's snapshot and rules", async () => {
      const r = await recorded(runId, origin['cross-host']!);
      expect(r.snapshot).toMatchObject({ siteId: r.siteId, outcome: 'ok', status: 200, policy: 'rules', policyReason: 'R-10', rulesRunId: null });
      expect(r.body?.toString()).toBe(OK_BODY);
      expect(r.attempts[0]).toMatchObject({ finalUrl: p.web.url('ok.test'), remoteAddress: '127.0.0.1' });
      expect(r.attempts[0]!.hops).toEqual([{ url: `${origin['cross-host']}/robots.txt`, status: 301, location: p.web.url('ok.test') }]);
      // The verdicts of cross-host's URLs come from those rules (OK_BODY: Disallow /private/, Allow /private/open).
      const verdicts = await p.db.pool.query<{ url: string; allowed: boolean }>(
        `select t.url, v.allowed from verdicts v join tracked_urls t on t.id = v.tracked_url_id
          where v.from_run_id = $1 and t.site_id = $2 and not t.is_root`,
        [runId, r.siteId],
      );
      expect(verdicts.rows.length).toBeGreaterThan(0);
      for (const v of verdicts.rows) expect(v.allowed).toBe(v.url.endsWith('/private/open'));
      expect(new Set(verdicts.rows.map((v) => v.url))).toEqual(new Set([`${origin['cross-host']}/private/x`, `${origin['cross-host']}/private/open`]));
    });
  });

  describe('R-12, D-4: 4xx -> full allow, never retried', () => {
    it.each<[string, number, 'unavailable' | 'rate_limited', PolicyReason, string | null]>([
      ['s401', 401, 'unavailable', 'R-12', null],
      ['s403', 403, 'unavailable', 'R-12', null],
      ['s404', 404, 'unavailable', 'R-12', null],
      ['s410', 410, 'unavailable', 'R-12', null],
      ['s429', 429, 'rate_limited', 'D-4', '120'], // its own class; its Retry-After recorded, not waited for
    ])('%s -> status %i: %s, allow_all %s', async (name, status, outcome, reason, retryAfter) => {
      const r = await recorded(runId, origin[name]!);
      expect(r.snapshot).toMatchObject({ outcome, status, attempts: 1, policy: 'allow_all', policyReason: reason, rulesRunId: null, bodyId: null });
      expect(r.attempts).toHaveLength(1);
      expect(r.attempts[0]).toMatchObject({ outcome, status, errorCode: null, retryAfter, bodySha256: null, bodyBytes: 0, fullSize: `status ${status}\n`.length });
      expect(p.web.requestCount(`${name}.test`)).toBe(1);
    });
  });

  describe('R-13, R-15: 5xx and failed requests -> full disallow, retried within the run', () => {
    it.each<[string, 'server_error' | 'network_error', number | null, string | null, PolicyReason, number]>([
      ['s500', 'server_error', 500, null, 'R-13', MAX_ATTEMPTS],
      ['s502', 'server_error', 502, null, 'R-13', MAX_ATTEMPTS],
      ['s503', 'server_error', 503, null, 'R-13', MAX_ATTEMPTS],
      ['slow-headers', 'network_error', null, 'UND_ERR_HEADERS_TIMEOUT', 'R-15', MAX_ATTEMPTS],
      ['trickle', 'network_error', 200, 'TOTAL_TIMEOUT', 'R-15', MAX_ATTEMPTS],
      ['reset-mid-body', 'network_error', 200, 'UND_ERR_SOCKET', 'R-15', MAX_ATTEMPTS],
      ['bad-chunked', 'network_error', 200, 'HPE_INVALID_CHUNK_SIZE', 'R-15', MAX_ATTEMPTS],
      ['unresolvable', 'network_error', null, 'ENOTFOUND', 'R-15', 0], // not a fixture host
      ['refused', 'network_error', null, 'ECONNREFUSED', 'R-15', 0],
    ])('%s -> %s (%s %s), disallow_all %s, every attempt recorded', async (name, outcome, status, errorCode, reason, requests) => {
      const r = await recorded(runId, origin[name]!);
      expect(r.snapshotsInRun).toBe(1);
      expect(r.snapshot).toMatchObject({
        outcome,
        status,
        attempts: MAX_ATTEMPTS,
        policy: 'disallow_all',
        policyReason: reason,
        rulesRunId: null,
        bodyId: null,
        truncated: false,
      });
      // D-3: the streak starts with this night (the run's clock, not the wall clock).
      expect(r.snapshot.unreachableSince).toEqual(new Date(NIGHT));
      expect(r.attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
      for (const a of r.attempts) expect(a).toMatchObject({ outcome, status, errorCode, bodySha256: null, bodyBytes: 0 });
      expect(p.web.requestCount(`${name}.test`)).toBe(requests);
    });

    it('the attempts are spaced by the schedule; the total deadline bounds each one', async () => {
      const trickle = await recorded(runId, origin.trickle!);
      for (const a of trickle.attempts) expect(a.durationMs).toBeGreaterThanOrEqual(p.config.ROBOTS_AUDIT_TOTAL_TIMEOUT_MS - CLOCK_SLACK_MS);
      const s500 = await recorded(runId, origin.s500!);
      for (let i = 1; i < s500.attempts.length; i++) {
        const prev = s500.attempts[i - 1]!;
        expect(s500.attempts[i]!.startedAt.getTime() - (prev.startedAt.getTime() + prev.durationMs)).toBeGreaterThanOrEqual(MIN_RETRY_DELAY_MS - CLOCK_SLACK_MS);
      }
    });

    it("503 with Retry-After: the server's delay is honoured up to the cap (7 s asked, 0.2 s waited)", async () => {
      const r = await recorded(runId, origin.s503!);
      for (const a of r.attempts) expect(a.retryAfter).toBe(RETRY_AFTER_503);
      for (let i = 1; i < r.attempts.length; i++) {
        const prev = r.attempts[i - 1]!;
        const gap = r.attempts[i]!.startedAt.getTime() - (prev.startedAt.getTime() + prev.durationMs);
        expect(gap).toBeGreaterThanOrEqual(RETRY_AFTER_CAP_MS - CLOCK_SLACK_MS);
        expect(gap).toBeLessThan(Number(RETRY_AFTER_503) * 1000);
      }
    });

    it('a 503 that recovers on the 2nd attempt: final outcome ok, both attempts kept, the rules apply', async () => {
      const r = await recorded(runId, origin.recover!);
      expect(r.snapshot).toMatchObject({ outcome: 'ok', status: 200, attempts: 2, policy: 'rules', policyReason: 'R-10', rulesRunId: null, unreachableSince: null });
      expect(r.body?.toString()).toBe(RECOVERED_BODY);
      expect(r.attempts.map((a) => [a.attempt, a.outcome, a.status])).toEqual([
        [1, 'server_error', 503],
        [2, 'ok', 200],
      ]);
      expect(r.attempts[0]!.bodySha256).toBeNull();
      expect(p.web.requestCount('recover.test')).toBe(2);
    });
  });

  describe('R-18, D-6: the fetcher keeps 500 KiB; the rest is not stored', () => {
    it.each<[string, Buffer, number | null, string | null]>([
      ['big-1mib', bigBody(MIB).subarray(0, KEPT_BYTES), MIB, null],
      ['endless', Buffer.from('Disallow: /endless/\n'.repeat(KEPT_BYTES / 20)), null, null], // 20-byte lines, forever
      ['gzip-bomb', Buffer.alloc(KEPT_BYTES), null, 'gzip'],
    ])('%s -> ok, truncated, exactly 512000 bytes kept', async (name, kept, fullSize, contentEncoding) => {
      const r = await recorded(bigRunId, origin[name]!);
      expect(r.snapshot).toMatchObject({ outcome: 'ok', status: 200, attempts: 1, truncated: true, policy: 'rules', policyReason: 'R-10' });
      expect(r.stored?.size).toBe(KEPT_BYTES);
      expect(r.body?.length).toBe(KEPT_BYTES);
      expect(r.body?.equals(kept)).toBe(true);
      expect(r.attempts).toHaveLength(1);
      expect(r.attempts[0]).toMatchObject({ outcome: 'ok', truncated: true, bodyBytes: KEPT_BYTES, fullSize, contentEncoding });
    });
  });

  describe('SSRF guard: refused addresses are failed requests (R-15), recorded, never connected to', () => {
    it.each<[string, string, number]>([
      ['blocked', '10.255.255.1', 0], // a name pinned to a private address
      ['to-evil', '10.255.255.1', 1], // an allowed fixture host redirecting to that name
      ['to-metadata', '169.254.169.254', 1], // a redirect to the cloud metadata literal
    ])('%s -> SSRF_BLOCKED (%s), after %i hops', async (name, address, hops) => {
      const r = await recorded(runId, origin[name]!);
      expect(r.snapshot).toMatchObject({ outcome: 'network_error', attempts: MAX_ATTEMPTS, policy: 'disallow_all', policyReason: 'R-15' });
      expect(r.attempts).toHaveLength(MAX_ATTEMPTS);
      for (const a of r.attempts) {
        // Refused before the socket: a real connection attempt would end in UND_ERR_CONNECT_TIMEOUT.
        expect(a).toMatchObject({ outcome: 'network_error', errorCode: 'SSRF_BLOCKED', status: null, remoteAddress: null });
        expect(a.hops).toHaveLength(hops);
        expect(a.errorMessage).toContain(address);
      }
    });

    it('with no allowlist, the fixture host itself (127.0.0.1) is refused and the server sees no connection', async () => {
      const strict = await startPipeline({ env: { ROBOTS_AUDIT_ALLOW_NETWORKS: '' } });
      try {
        const added = await strict.cli(['sites', 'add', strict.origin('ok')]);
        expect(added.code, added.stderr).toBe(0);
        const run = await strict.cli(['audit', '--wait', '--json', '--at', NIGHT]);
        expect(run.code, run.stderr).toBe(0);
        const { run: info } = JSON.parse(run.stdout) as RunSummary;
        const site = await strict.rt.repos.sites.findSiteByOrigin(strict.origin('ok'));
        const snapshot = await strict.rt.repos.snapshots.snapshotFor(info.id, site!.id);
        const attempts = await strict.rt.repos.snapshots.attemptsFor(info.id, site!.id);
        expect(snapshot).toMatchObject({ outcome: 'network_error', policy: 'disallow_all', policyReason: 'R-15', attempts: MAX_ATTEMPTS });
        expect(attempts).toHaveLength(MAX_ATTEMPTS);
        for (const a of attempts) {
          expect(a).toMatchObject({ errorCode: 'SSRF_BLOCKED', remoteAddress: null, status: null });
          expect(a.errorMessage).toMatch(/loopback/);
        }
        expect(strict.web.connectionCount()).toBe(0);
      } finally {
        await strict.close();
      }
    });
  });
});

// --- idempotency ----------------------------------------------------------------------------------

describe('idempotency: a night replayed, a job enqueued twice, a job retried after its snapshot', () => {
  const IDEM_NIGHT = '2026-02-02T03:00:00.000Z';
  const IDEM_BODY = 'User-agent: *\nDisallow: /idem/\n';
  let runId: number;
  let okOrigin: string;
  let downOrigin: string;

  interface Totals {
    snapshots: number;
    attempts: number;
    bodies: number;
    changes: number;
    requests: number;
  }
  const totals = async (): Promise<Totals> => ({
    snapshots: await count('select count(*) as n from snapshots where run_id = $1', [runId]),
    attempts: await count('select count(*) as n from fetch_attempts where run_id = $1', [runId]),
    bodies: await count('select count(*) as n from bodies'),
    changes: await count('select count(*) as n from snapshot_changes where run_id = $1', [runId]),
    requests: p.web.requestCount('idem-ok.test') + p.web.requestCount('idem-down.test'),
  });

  beforeAll(async () => {
    okOrigin = p.origin('idem-ok');
    downOrigin = p.origin('idem-down');
    p.web.set('idem-ok.test', { status: 200, body: IDEM_BODY });
    p.web.set('idem-down.test', { status: 500, body: 'broken\n' });
    await addSites('idem', [okOrigin, downOrigin]);
    p.web.resetCounters();
    runId = (await audit('idem', IDEM_NIGHT)).run.id;
  });

  it('the first night: one snapshot per site, 1 + 3 attempts, one body, 1 + 3 requests', async () => {
    expect(await totals()).toMatchObject({ snapshots: 2, attempts: 1 + MAX_ATTEMPTS, changes: 2, requests: 1 + MAX_ATTEMPTS });
    expect(await count('select count(*) as n from bodies where sha256 = $1', [sha256Of(Buffer.from(IDEM_BODY))])).toBe(1);
  });

  it('`audit --at` the same night again: the same run, nothing fetched, nothing written', async () => {
    const before = await totals();
    const again = await p.cli(['audit', '--wait', '--portfolio', 'idem', '--at', IDEM_NIGHT]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`run ${runId} (at-${IDEM_NIGHT}-idem) exists already (completed); 0 missing sites enqueued`);
    expect(await totals()).toEqual(before);
  });

  it('the same batch job enqueued twice (deterministic id): not processed again', async () => {
    const before = await totals();
    const siteIds = [await siteIdOf(okOrigin), await siteIdOf(downOrigin)].sort((a, b) => a - b);
    const data = { runId, batch: 0, siteIds };
    const first = await p.rt.queues.fetch.getJob(jobIds.fetchSites(data));
    expect(first?.finishedOn).toBeDefined();
    const added = await p.rt.queues.fetch.add(JOBS.fetchSites, data, { jobId: jobIds.fetchSites(data) });
    const { job: again, state } = await settled(added);
    expect(state).toBe('completed');
    expect(again.finishedOn).toBe(first!.finishedOn);
    expect(again.attemptsStarted).toBe(first!.attemptsStarted);
    expect(await totals()).toEqual(before);
  });

  it.each([
    ['the ok site', () => okOrigin],
    ['the 5xx site (whose attempts are all used)', () => downOrigin],
  ])('a job for %s retried after its snapshot exists: no request, no row', async (_label, originOf) => {
    const before = await totals();
    const data = { runId, siteId: await siteIdOf(originOf()) };
    // Another id: BullMQ runs it, as it would a job recovered after a worker died.
    const { job, state } = await settled(await p.rt.queues.site.add(JOBS.fetchSite, data, { jobId: `replay-${jobIds.fetchSite(data)}` }));
    expect(state).toBe('completed');
    expect(job.returnvalue).toEqual({ kind: 'already-stored' });
    expect(await totals()).toEqual(before);
  });
});

// --- per-host politeness ----------------------------------------------------------------------------

describe('per-host politeness: one request at a time to a host name, across its origins', () => {
  const webs: FixtureWeb[] = [];
  const sameHost = { running: 0, max: 0, spans: [] as Array<[number, number]> };
  const otherHosts = { running: 0, max: 0, spans: [] as Array<[number, number]> };
  const SLOW_MS = 300;

  afterAll(async () => {
    for (const web of webs) await web.close();
  });

  it('three origins of same.test (three ports) never overlap; three other hosts run together', async () => {
    webs.push(await startFixtureWeb(), await startFixtureWeb());
    const sameOrigins = [p.web, ...webs].map((web) => {
      web.set('same.test', slowReply(SLOW_MS, 'User-agent: *\nDisallow: /same/\n', sameHost));
      return `http://same.test:${web.port}`;
    });
    const others = ['slow-a', 'slow-b', 'slow-c'].map((name) => {
      p.web.set(`${name}.test`, slowReply(SLOW_MS, 'User-agent: *\nDisallow: /other/\n', otherHosts));
      return p.origin(name);
    });
    await addSites('polite', [...sameOrigins, ...others]);
    for (const web of [p.web, ...webs]) web.resetCounters();

    const summary = await audit('polite', '2026-02-03T03:00:00.000Z');
    expect(summary.outcomes).toEqual({ ok: 6 });

    expect(sameHost.spans).toHaveLength(3);
    expect(sameHost.max).toBe(1);
    for (const web of [p.web, ...webs]) {
      expect(web.requestCount('same.test')).toBe(1);
      expect(web.maxInFlight('same.test')).toBe(1);
    }
    const spans = [...sameHost.spans].sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
    // Different hosts are not held back by each other.
    expect(otherHosts.max).toBeGreaterThanOrEqual(2);
  });
});

// --- D-3: a 5xx streak across 31 days -----------------------------------------------------------------

describe('D-3: the effective policy through a 5xx streak (nights replayed with `audit --at`)', () => {
  const NIGHT_0 = '2026-03-01T03:00:00.000Z';
  const RULES = 'User-agent: *\nDisallow: /streak/\n';
  let streakUp = true;
  let streakOrigin: string;
  let neverOrigin: string;
  let night0RunId: number;

  beforeAll(async () => {
    streakOrigin = p.origin('streak');
    neverOrigin = p.origin('never');
    p.web.set('streak.test', (_req, res) => {
      const [status, body] = streakUp ? [200, RULES] : [503, 'maintenance\n'];
      res.writeHead(status, { 'content-type': 'text/plain', 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    });
    p.web.set('never.test', { status: 503, body: 'never up\n' });
    await addSites('timeline', [streakOrigin, neverOrigin]);
  });

  type Expected = [outcome: string, policy: PolicyKind, reason: PolicyReason, since: number | null];
  // streak.test: ok on night 0, 503 from day 1 (the first failure) to day 32, ok again on day 33.
  // never.test: 503 from day 0 and never anything else.
  it.each<[number, Expected, Expected]>([
    [0, ['ok', 'rules', 'R-10', null], ['server_error', 'disallow_all', 'R-13', 0]],
    [1, ['server_error', 'disallow_all', 'R-13', 1], ['server_error', 'disallow_all', 'R-13', 0]],
    [2, ['server_error', 'disallow_all', 'R-13', 1], ['server_error', 'disallow_all', 'R-13', 0]],
    [15, ['server_error', 'disallow_all', 'R-13', 1], ['server_error', 'disallow_all', 'R-13', 0]],
    [30, ['server_error', 'disallow_all', 'R-13', 1], ['server_error', 'disallow_all', 'R-13', 0]], // never: exactly 30 days
    [31, ['server_error', 'disallow_all', 'R-13', 1], ['server_error', 'allow_all', 'D-3', 0]], // streak: exactly 30 days
    [32, ['server_error', 'rules', 'D-3', 1], ['server_error', 'allow_all', 'D-3', 0]],
    [33, ['ok', 'rules', 'R-10', null], ['server_error', 'allow_all', 'D-3', 0]],
  ])('day %i', async (day, streak, never) => {
    streakUp = day === 0 || day === 33;
    const { run } = await audit('timeline', nightAt(NIGHT_0, day));
    for (const [origin, [outcome, policy, reason, since]] of [
      [streakOrigin, streak],
      [neverOrigin, never],
    ] as const) {
      const r = await recorded(run.id, origin);
      expect(r.snapshotsInRun).toBe(1);
      expect(r.snapshot).toMatchObject({ outcome, policy, policyReason: reason });
      expect(r.snapshot.unreachableSince).toEqual(since === null ? null : new Date(nightAt(NIGHT_0, since)));
      // D-3: every attempt is recorded, whatever the policy.
      expect(r.attempts).toHaveLength(outcome === 'ok' ? 1 : MAX_ATTEMPTS);
      expect(r.snapshot.attempts).toBe(r.attempts.length);
    }
    const streakNow = await recorded(run.id, streakOrigin);
    if (day === 0) night0RunId = run.id;
    // The fallback's rules are night 0's: the last copy that was fetched successfully.
    if (day === 32) {
      expect(streakNow.snapshot.rulesRunId).toBe(night0RunId);
      expect(streakNow.snapshot.bodyId).toBeNull();
    } else if (streak[1] === 'rules') {
      expect(streakNow.snapshot.rulesRunId).toBeNull();
      expect(streakNow.body?.toString()).toBe(RULES);
    } else {
      expect(streakNow.snapshot.rulesRunId).toBeNull();
    }
    expect((await recorded(run.id, neverOrigin)).snapshot.rulesRunId).toBeNull();
  });
});

// --- the worker survives all of it ------------------------------------------------------------------

describe('robustness: the in-process worker outlives every hostile site', () => {
  it('a final 200 site after all the others is fetched and stored; no rejection went unhandled', async () => {
    await addSites('final', [p.origin('final')]);
    p.web.set('final.test', { status: 200, body: OK_BODY });
    const { run } = await audit('final', '2026-04-01T03:00:00.000Z');
    const r = await recorded(run.id, p.origin('final'));
    expect(r.snapshot).toMatchObject({ outcome: 'ok', policy: 'rules', policyReason: 'R-10' });
    expect(r.body?.toString()).toBe(OK_BODY);
    expect(p.workers!.workers.every((w) => w.isRunning())).toBe(true);
    expect(await p.rt.queues.fetch.getFailedCount()).toBe(0);
    expect(rejections).toEqual([]);
  });
});
