/**
 * One site's fetch for one run: fetch, record the attempt, retry a 5xx or network failure
 * within the run, and on the final attempt store the snapshot with its effective
 * policy (R-10..R-15, D-3, D-4). Idempotent: a job that runs twice finds the snapshot and
 * stores nothing new; every attempt that really went out is kept once.
 */
import type { FetchResult } from '../http/index.js';
import type { AttemptInput, Repos, Snapshot } from '../db/index.js';
import { sha256Of } from '../db/index.js';
import type { Logger } from '../log/logger.js';
import { effectivePolicy, isUnreachable, nextRetryDelayMs } from '../policy/index.js';
import type { EffectivePolicy, RetrySchedule } from '../policy/index.js';
import { EMPTY_SUMMARY, summarizeBody } from './snapshot-summary.js';

export type FetchSiteRepos = Pick<Repos, 'runs' | 'sites' | 'snapshots' | 'attempts'>;

export interface FetchSiteDeps {
  repos: FetchSiteRepos;
  fetchRobotsTxt: (origin: string) => Promise<FetchResult>;
  schedule: RetrySchedule;
  log: Logger;
}

/** What to do for a (run, site): nothing more, or fetch this origin. */
export type FetchPlan =
  | { kind: 'done'; reason: 'snapshot-exists' | 'site-removed' | 'run-missing'; snapshotId?: number }
  | { kind: 'fetch'; runId: number; siteId: number; origin: string; host: string; runAt: Date; attempt: number };

export type FetchSiteOutcome =
  | { kind: 'stored'; snapshot: Snapshot; created: boolean }
  | { kind: 'retry'; delayMs: number; attempt: number; result: FetchResult };

export function createFetchSiteService(deps: FetchSiteDeps) {
  const { repos, schedule } = deps;

  /** Decides whether a fetch is still owed; cheap (one query), and safe to call on every job run. */
  async function plan(runId: number, siteId: number): Promise<FetchPlan> {
    const facts = await repos.snapshots.fetchPlanFacts(runId, siteId);
    if (facts.snapshotId !== null) return { kind: 'done', reason: 'snapshot-exists', snapshotId: facts.snapshotId };
    if (facts.runAt === null) return { kind: 'done', reason: 'run-missing' };
    if (facts.origin === null) return { kind: 'done', reason: 'site-removed' };
    return {
      kind: 'fetch',
      runId,
      siteId,
      origin: facts.origin,
      host: new URL(facts.origin).hostname,
      runAt: facts.runAt,
      // Attempts already recorded for this run count, so a retried or restarted job goes on
      // with the schedule instead of starting it again.
      attempt: facts.attempts + 1,
    };
  }

  /** Fetches once and records it; the caller turns `retry` into a queue backoff. */
  async function fetchAndStore(p: Extract<FetchPlan, { kind: 'fetch' }>): Promise<FetchSiteOutcome> {
    const result = await deps.fetchRobotsTxt(p.origin);
    const attempt = attemptRow(p, result);
    const delayMs = nextRetryDelayMs(schedule, {
      attempt: p.attempt,
      outcome: result.outcome,
      status: result.status,
      retryAfterSeconds: result.retryAfterSeconds,
    });
    if (delayMs !== null) {
      await repos.attempts.recordAttempt(attempt);
      return { kind: 'retry', delayMs, attempt: p.attempt, result };
    }

    const policy = await policyFor(p, result);
    const summary = result.body ? summarizeBody(result.body) : EMPTY_SUMMARY;
    const stored = await repos.snapshots.recordFetch({
      bodies: result.body ? [result.body] : [],
      attempts: [attempt],
      snapshot: {
        runId: p.runId,
        siteId: p.siteId,
        fetchedAt: result.startedAt,
        outcome: result.outcome,
        status: result.status,
        attempts: p.attempt,
        policy: policy.kind,
        policyReason: policy.reason,
        policySnapshotId: policy.rulesFrom === 'current' ? 'self' : (policy.rulesFrom?.snapshotId ?? null),
        unreachableSince: policy.unreachableSince,
        bodySha256: result.body ? sha256Of(result.body) : null,
        bodyBytes: result.bodyBytes,
        truncated: result.truncated,
        ...summary,
      },
    });
    return { kind: 'stored', snapshot: stored.snapshot, created: stored.created };
  }

  /** D-3: the streak start comes from the previous snapshot; the clock is the run's. */
  async function policyFor(p: Extract<FetchPlan, { kind: 'fetch' }>, result: FetchResult): Promise<EffectivePolicy<number>> {
    // History before this run on the run clock, so replayed nights see the nights before them.
    const previous = await repos.snapshots.latestSnapshot(p.siteId, { before: p.runAt, excludeRunId: p.runId });
    const unreachableSince = previous && isUnreachable(previous.outcome) ? previous.unreachableSince : null;
    const lastReachable = isUnreachable(result.outcome) ? await repos.snapshots.lastReachableSnapshot(p.siteId, { before: p.runAt }) : null;
    return effectivePolicy({
      outcome: result.outcome,
      now: p.runAt,
      unreachableSince,
      lastReachable: lastReachable ? { snapshotId: lastReachable.id, outcome: lastReachable.outcome } : null,
    });
  }

  return { plan, fetchAndStore };
}

export type FetchSiteService = ReturnType<typeof createFetchSiteService>;

/** The fetch_attempts row of a result. */
export function attemptRow(p: { runId: number; siteId: number; attempt: number }, r: FetchResult): AttemptInput {
  return {
    runId: p.runId,
    siteId: p.siteId,
    attempt: p.attempt,
    startedAt: r.startedAt,
    durationMs: r.durationMs,
    outcome: r.outcome,
    status: r.status,
    errorCode: r.errorCode,
    errorMessage: r.errorMessage,
    requestedUrl: r.requestedUrl,
    finalUrl: r.finalUrl,
    hops: r.hops,
    remoteAddress: r.remoteAddress,
    bodySha256: r.body ? sha256Of(r.body) : null,
    bodyBytes: r.bodyBytes,
    fullSize: r.fullSize,
    truncated: r.truncated,
    cacheLifetimeSeconds: r.cache?.lifetimeSeconds ?? null,
    contentType: r.headers.contentType,
    cacheControl: r.headers.cacheControl,
    expires: r.headers.expires,
    age: r.headers.age,
    retryAfter: r.headers.retryAfter,
    lastModified: r.headers.lastModified,
    etag: r.headers.etag,
    contentEncoding: r.headers.contentEncoding,
  };
}
