/**
 * Runs sites' nights: for each site, the fetch (one request at a time per host, R-13/R-15
 * retries within the run), then its night computed in one pass (site-night.ts) and handed to the
 * process's night writer, which stores many sites per transaction.
 *
 * Two callers: a batch job (many sites of a run, the usual way) and a site job (one site: a
 * retry after a 5xx or network failure, a site handed over by a batch, or one re-enqueued by
 * reconcile). A batch never waits long for one site: a site still fetching when the batch's
 * deadline comes is aborted (nothing recorded) and handed over to a site job, and a site to be
 * retried later is handed over with its delay, so slow hosts hold no batch and no worker slot.
 */
import { setMaxListeners } from 'node:events';
import type pg from 'pg';
import type { FetchResult } from '../http/fetch-result.js';
import type { Logger } from '../log/logger.js';
import type { RetrySchedule } from '../policy/index.js';
import { NIGHT_FAILED_ERROR_CODE, msUntil, nextRetryDelayMs, scheduledRetry } from '../policy/index.js';
import type { ScheduledRetry } from '../policy/index.js';
import type { HostLock } from '../queues/host-lock.js';
import type { RunClock, SiteContext } from '../db/night-store.js';
import type { FailedAttemptRow } from '../night/rows.js';
import { loadBody, loadBodyBySha, loadCatalogueTokens, loadReplayContext, loadRunClock, loadSiteContexts, loadSpansInForce, storeNights } from '../db/night-store.js';
import { isTransientDbError } from '../db/db-errors.js';
import { computeSiteNight } from './site-night.js';
import { answerOf } from './night/answer.js';
import { storedFullSize } from './night/rows.js';
import { MAX_ERROR_MESSAGE_CHARS, clampInt4, clampText } from '../db/column-limits.js';
import type { NightLoaders, PreviousNight } from '../night/input.js';
import type { SiteNight } from '../night/rows.js';
import type { NightWriter } from './night-writer.js';
import { StaleNightError } from './night-writer.js';
import type { FlappingOptions } from '../policy/flapping.js';
import { sha256Of } from '../night/keys.js';

/** Thrown by a site job to retry its fetch after the schedule's delay. */
export class FetchRetryError extends Error {
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
    this.name = 'FetchRetryError';
  }
}

/** How long the worker keeps the crawler tokens it indexes new bodies for. */
const CATALOGUE_REFRESH_MS = 60_000;

/** A night computed from a state that moved on is computed again, at most this many times. */
const STALE_RETRIES = 3;

export interface NightRunnerDeps {
  pool: pg.Pool;
  writer: NightWriter;
  /** The fetch, with the process's slots and the global rate applied. */
  fetchRobotsTxt: (origin: string, signal?: AbortSignal) => Promise<FetchResult>;
  hostLock: HostLock;
  /** How long a host lock lives if its holder dies: longer than any fetch and its confirmation. */
  hostLockTtlMs: number;
  /** How long to wait before trying a busy host again. */
  hostBusyDelayMs: number;
  schedule: RetrySchedule;
  /**
   * A retry due within this many seconds of being scheduled holds its run; a later one holds its
   * site only (ROBOTS_AUDIT_RUN_HOLD_SECONDS, policy/run-hold.ts).
   */
  runHoldSeconds: number;
  /** Queues the site job of (run, site), to start after `delayMs`. Idempotent (job id). */
  handOver: (runId: number, siteId: number, delayMs: number) => Promise<void>;
  /** A site removed while its run went on: counted as skipped so the run can end. */
  markSkipped: (runId: number, siteId: number) => Promise<void>;
  /** Wait before the confirmation fetch of a changed body, milliseconds (ROBOTS_AUDIT_CONFIRM_DELAY_MS). */
  confirmDelayMs: number;
  /** K and M of src/policy/flapping.ts. */
  flapping: FlappingOptions;
  log: Logger;
}

export type SiteOutcome =
  | { kind: 'stored'; outcome: string }
  | { kind: 'already-stored' }
  | { kind: 'skipped' }
  | { kind: 'retry'; until: Date; outcome: string; attempt: number }
  | { kind: 'handed-over'; delayMs: number; why: 'deadline' | 'retrying' | 'error' };

export interface BatchSummary {
  stored: number;
  alreadyStored: number;
  skipped: number;
  handedOver: number;
}

export function createNightRunner(deps: NightRunnerDeps) {
  const sites = siteNights(deps);
  return { ...batchNights(deps, sites.processSite), ...siteJobNights(deps, sites), processSite: sites.processSite };
}

/**
 * The crawler tokens new bodies are indexed for: read again at most once a minute (an `agents
 * import` reaches the workers within that; bodies stored before it are indexed by the import).
 */
function cachedCatalogueTokens(pool: pg.Pool): () => Promise<string[]> {
  let catalogue: { tokens: Promise<string[]>; at: number } | null = null;
  return () => {
    if (!catalogue || Date.now() - catalogue.at > CATALOGUE_REFRESH_MS) {
      const tokens = loadCatalogueTokens(pool);
      catalogue = { tokens, at: Date.now() };
      tokens.catch(() => (catalogue = null));
    }
    return catalogue.tokens;
  };
}

/** Waits for the host's lock (held by another fetch of it, in any process); false if aborted first. */
async function lockHost(deps: Pick<NightRunnerDeps, 'hostLock' | 'hostLockTtlMs' | 'hostBusyDelayMs'>, host: string, holder: string, signal?: AbortSignal): Promise<boolean> {
  for (;;) {
    if (signal?.aborted) return false;
    if (await deps.hostLock.acquire(host, holder, deps.hostLockTtlMs)) return true;
    await delay(deps.hostBusyDelayMs, signal);
  }
}

/** A site's answer, the confirmation of a changed body when one was fetched, and the answer's hash. */
interface FetchedSite {
  result: FetchResult;
  confirm: FetchResult | null;
  resultSha256: Buffer | null;
}

/** The site's fetch, and its confirmation, under its host's lock; null when `signal` aborted before the lock came. */
async function fetchUnderHostLock(deps: NightRunnerDeps, run: RunClock, origin: string, state: PreviousNight | null, options: { signal?: AbortSignal; holder: string }): Promise<FetchedSite | null> {
  const host = new URL(origin).hostname;
  if (!(await lockHost(deps, host, options.holder, options.signal))) return null;
  try {
    const result = await deps.fetchRobotsTxt(origin, options.signal);
    // Hashed here once; the night goes on with this hash.
    const resultSha256 = result.outcome === 'ok' && result.body ? sha256Of(result.body) : null;
    let confirm: FetchResult | null = null;
    // Confirm a change before it counts: a body other than the version in force is fetched once
    // more, on a new connection (the fetcher closes each one), after a short delay. A night that
    // brings the version in force pays nothing more than the hash it is compared by.
    if (changedBody(resultSha256, state) && isLatest(run, state) && !options.signal?.aborted) {
      await delay(deps.confirmDelayMs, options.signal);
      if (!options.signal?.aborted) confirm = await deps.fetchRobotsTxt(origin, options.signal);
    }
    return { result, confirm, resultSha256 };
  } finally {
    await deps.hostLock.release(host, options.holder);
  }
}

/** One site's attempt and the storing of its night: what batch and site jobs share. */
function siteNights(deps: NightRunnerDeps) {
  const loaders = nightLoaders(deps.pool);
  const catalogueTokens = cachedCatalogueTokens(deps.pool);

  /** Computes and stores the night of a site's final attempt; computed again if its state moved on. */
  async function storeNight(run: RunClock, context: SiteContext, result: FetchResult, attempt: number, confirm: FetchResult | null, resultSha256: Buffer | null = null): Promise<SiteOutcome> {
    let ctx = context;
    for (let tries = 1; ; tries++) {
      const night = await computeNightOf(deps.pool, loaders, run, ctx, result, attempt, await catalogueTokens(), { confirm, resultSha256, flapping: deps.flapping });
      try {
        const { stored } = await deps.writer.submitNight(night);
        return stored ? { kind: 'stored', outcome: result.outcome } : { kind: 'already-stored' };
      } catch (err) {
        if (!(err instanceof StaleNightError) || tries >= STALE_RETRIES) throw err;
        const fresh = (await loadSiteContexts(deps.pool, run, [ctx.siteId])).get(ctx.siteId);
        if (!fresh || fresh.origin === null) return { kind: 'skipped' };
        if (fresh.stored) return { kind: 'already-stored' };
        ctx = fresh;
      }
    }
  }

  /**
   * One site's attempt in `run`. `signal` (a batch's deadline) aborts a fetch under way; the site
   * is then handed over. `inBatch`: a site whose night is already being retried by its site job
   * is left to that job.
   */
  async function processSite(run: RunClock, ctx: SiteContext, options: { signal?: AbortSignal; inBatch: boolean; holder: string }): Promise<SiteOutcome> {
    if (ctx.origin === null) {
      await deps.markSkipped(run.id, ctx.siteId);
      return { kind: 'skipped' };
    }
    if (ctx.stored) return { kind: 'already-stored' };
    if (options.inBatch && ctx.failedAttempts > 0) {
      // Its site job owns the retries; make sure it exists, due when the schedule says.
      const last = ctx.lastAttemptAt?.getTime() ?? Date.now();
      const due = nextRetryDelayMs(deps.schedule, { attempt: ctx.failedAttempts, outcome: 'server_error', status: null, retryAfterSeconds: null }) ?? 0;
      return { kind: 'handed-over', delayMs: Math.max(0, last + due - Date.now()), why: 'retrying' };
    }
    const attempt = ctx.failedAttempts + 1;
    const fetched = await fetchUnderHostLock(deps, run, ctx.origin, ctx.state, options);
    if (!fetched) return { kind: 'handed-over', delayMs: 0, why: 'deadline' };
    // Aborted by the batch's deadline: not an answer of the site's, so nothing is recorded.
    if (options.signal?.aborted) return { kind: 'handed-over', delayMs: 0, why: 'deadline' };

    const { result, confirm, resultSha256 } = fetched;
    const delayMs = nextRetryDelayMs(deps.schedule, { attempt, outcome: result.outcome, status: result.status, retryAfterSeconds: result.retryAfterSeconds });
    if (delayMs !== null) {
      // Its wait is recorded on its run with the attempt (issue 26), due from now: the job that
      // retries it starts then, however long the hand-over takes.
      const retry = scheduledRetry(new Date(), delayMs, deps.runHoldSeconds);
      await deps.writer.submitAttempt(failedAttemptRow(run.id, ctx, attempt, result, retry));
      return { kind: 'retry', until: retry.until, outcome: result.outcome, attempt };
    }
    return storeNight(run, ctx, result, attempt, confirm, resultSha256);
  }

  return { processSite, storeNight };
}

type SiteNights = ReturnType<typeof siteNights>;

/** The batch job's work: many sites of a run at once, none of them waited for long. */
function batchNights(deps: NightRunnerDeps, processSite: SiteNights['processSite']) {
  return {
    /** The nights of a batch of sites of one run; sites that need more time are handed over. */
    async runBatch(runId: number, siteIds: readonly number[], options: { deadlineMs: number; holder: string }): Promise<BatchSummary> {
      const summary: BatchSummary = { stored: 0, alreadyStored: 0, skipped: 0, handedOver: 0 };
      const run = await loadRunClock(deps.pool, runId);
      if (!run) return summary;
      const contexts = await loadSiteContexts(deps.pool, run, siteIds);
      const deadline = AbortSignal.timeout(options.deadlineMs);
      // Every site of the batch listens to it (its fetch, its wait for a slot or a host).
      setMaxListeners(0, deadline);
      const outcomes = await Promise.all(
        siteIds.map(async (siteId): Promise<SiteOutcome> => {
          const ctx = contexts.get(siteId);
          if (!ctx) return { kind: 'skipped' };
          try {
            return await processSite(run, ctx, { signal: deadline, inBatch: true, holder: `${options.holder}:${siteId}` });
          } catch (err) {
            // Postgres or Redis failing (not the site): the whole job is retried.
            if (isTransientDbError(err)) throw err;
            // Something about this one site (its bytes, say) broke its night: it goes on alone, so
            // the rest of the batch is stored and its own failures are counted (and seen) apart.
            deps.log.error({ runId, siteId, err }, 'site night failed in its batch; handing it over to a site job');
            return { kind: 'handed-over', delayMs: 0, why: 'error' };
          }
        }),
      );
      for (const [i, outcome] of outcomes.entries()) {
        const siteId = siteIds[i]!;
        if (outcome.kind === 'stored') summary.stored += 1;
        else if (outcome.kind === 'already-stored') summary.alreadyStored += 1;
        else if (outcome.kind === 'skipped') summary.skipped += 1;
        else {
          summary.handedOver += 1;
          await deps.handOver(runId, siteId, outcome.kind === 'retry' ? msUntil(outcome.until, new Date()) : outcome.delayMs);
        }
      }
      return summary;
    },
  };
}

/** The site job's work: one site's attempt, or the night of a site whose jobs failed for good. */
function siteJobNights(deps: NightRunnerDeps, sites: SiteNights) {
  return {
    /** One site's attempt, for its site job: throws FetchRetryError when the schedule says to try again. */
    async runSite(runId: number, siteId: number, holder: string): Promise<SiteOutcome> {
      const run = await loadRunClock(deps.pool, runId);
      if (!run) return { kind: 'skipped' };
      const ctx = (await loadSiteContexts(deps.pool, run, [siteId])).get(siteId);
      if (!ctx) return { kind: 'skipped' };
      const outcome = await sites.processSite(run, ctx, { inBatch: false, holder });
      if (outcome.kind === 'retry') {
        const delayMs = msUntil(outcome.until, new Date());
        throw new FetchRetryError(delayMs, `${outcome.outcome} on attempt ${outcome.attempt}, retry in ${delayMs} ms (${outcome.until.toISOString()})`);
      }
      return outcome;
    },

    /**
     * Records the night of a site whose jobs failed for good (issue 17): outcome `night_failed`,
     * error code NIGHT_FAILED and the reason, the previous night's policy carried over, so that the
     * site is listed as failing, alerted, and its run counts it done. Idempotent like any night.
     * Returns false when there is no such site in the run any more.
     */
    async storeFailedNight(runId: number, siteId: number, reason: string): Promise<boolean> {
      const run = await loadRunClock(deps.pool, runId);
      if (!run) return false;
      const ctx = (await loadSiteContexts(deps.pool, run, [siteId])).get(siteId);
      if (!ctx || ctx.origin === null) return false;
      if (ctx.stored) return true;
      const outcome = await sites.storeNight(run, ctx, failedNightResult(ctx.origin, reason), ctx.failedAttempts + 1, null);
      return outcome.kind === 'stored' || outcome.kind === 'already-stored';
    },
  };
}

/** The fetch result that stands for a night that failed: no answer judged, the reason kept. */
export function failedNightResult(origin: string, reason: string, now = new Date()): FetchResult {
  const url = `${origin}/robots.txt`;
  return {
    outcome: 'night_failed',
    status: null,
    errorCode: NIGHT_FAILED_ERROR_CODE,
    errorMessage: `the night could not be stored: ${reason}`,
    hops: [],
    requestedUrl: url,
    finalUrl: url,
    remoteAddress: null,
    startedAt: now,
    durationMs: 0,
    body: null,
    bodyBytes: 0,
    fullSize: null,
    truncated: false,
    headers: { contentType: null, contentLength: null, contentEncoding: null, cacheControl: null, expires: null, age: null, date: null, retryAfter: null, lastModified: null, etag: null },
    retryAfterSeconds: null,
    cache: null,
  };
}

export type NightRunner = ReturnType<typeof createNightRunner>;

function nightLoaders(pool: pg.Pool): NightLoaders {
  return {
    body: (id) => loadBody(pool, id),
    bodyBySha: (sha256) => loadBodyBySha(pool, sha256),
    spansInForce: (ids, previous, replayed) => loadSpansInForce(pool, ids, previous, replayed),
  };
}

/** A body that is not the site's version in force (its last good one): the change to confirm. */
function changedBody(sha256: Buffer | null, state: PreviousNight | null): boolean {
  return sha256 !== null && state?.lastGood != null && !state.lastGood.sha256.equals(sha256);
}

/** Waits `ms`, or less when `signal` aborts. */
function delay(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** True when this night comes after the site's latest one (the usual case). */
function isLatest(run: RunClock, state: PreviousNight | null): boolean {
  return state === null || run.runAt.getTime() > state.runAt.getTime() || (run.runAt.getTime() === state.runAt.getTime() && run.id > state.runId);
}

/** A site's night from its final attempt: compared with its state, or (a night replayed before its latest) with the nights around it. */
async function computeNightOf(
  pool: pg.Pool,
  loaders: NightLoaders,
  run: RunClock,
  ctx: SiteContext,
  result: FetchResult,
  attempt: number,
  catalogueTokens: string[],
  extra: { confirm: FetchResult | null; resultSha256?: Buffer | null; flapping?: FlappingOptions } = { confirm: null },
): Promise<SiteNight> {
  const replay = isLatest(run, ctx.state) ? { previous: ctx.state, nextNight: null } : await loadReplayContext(pool, ctx.siteId, run);
  return computeSiteNight(
    {
      siteId: ctx.siteId,
      origin: ctx.origin!,
      runId: run.id,
      runAt: run.runAt,
      result,
      resultSha256: extra.resultSha256 ?? null,
      attempt,
      previous: replay.previous,
      targets: ctx.targets,
      targetsHash: ctx.targetsHash,
      catalogueTokens,
      nextNight: replay.nextNight,
      confirm: extra.confirm,
      flappingOptions: extra.flapping,
    },
    loaders,
  );
}

function failedAttemptRow(runId: number, ctx: SiteContext, attempt: number, r: FetchResult, retry: ScheduledRetry): FailedAttemptRow {
  const answer = answerOf(r, ctx.state);
  return {
    siteId: ctx.siteId,
    runId,
    attempt,
    startedAt: r.startedAt,
    durationMs: clampInt4(r.durationMs)!,
    response: answer.ref,
    newResponse: answer.newRow,
    fullSize: storedFullSize(r),
    outcome: r.outcome,
    status: r.status,
    errorCode: r.errorCode,
    errorMessage: clampText(r.errorMessage, MAX_ERROR_MESSAGE_CHARS),
    retryUntil: retry.until,
    holdsRun: retry.holdsRun,
  };
}

/**
 * One site's night stored at once, outside the queues (`robots-audit fetch --store`): the same
 * computation and the same store as a batch, in its own transaction, no retries.
 */
export async function storeSingleNight(pool: pg.Pool, runId: number, siteId: number, result: FetchResult): Promise<{ stored: boolean }> {
  const run = await loadRunClock(pool, runId);
  if (!run) throw new Error(`no run ${runId}`);
  const ctx = (await loadSiteContexts(pool, run, [siteId])).get(siteId);
  if (!ctx?.origin) throw new Error(`no site ${siteId}`);
  const night = await computeNightOf(pool, nightLoaders(pool), run, ctx, result, 1, await loadCatalogueTokens(pool));
  const client = await pool.connect();
  try {
    const stored = await storeNights(client, [night], []);
    if (stored.stale.size > 0) throw new StaleNightError(siteId);
    return { stored: stored.stored.size > 0 };
  } finally {
    client.release();
  }
}
