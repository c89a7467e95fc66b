/**
 * Which waits hold a run (issue 26). A site whose fetch is to be retried waits for its retry
 * 503 is how a site asks to be left alone; its Retry-After is honoured up to
 * ROBOTS_AUDIT_RETRY_AFTER_CAP). Its run waits with it only when the retry is due within
 * ROBOTS_AUDIT_RUN_HOLD_SECONDS of the moment it is scheduled: a longer wait holds that site
 * only. The run then ends for every other site, the waiting site is `pending`, and its night
 * comes when its retry does. Pure: the clock is passed in.
 */

/**
 * A run waits this long, at most, for one site's retry (ROBOTS_AUDIT_RUN_HOLD_SECONDS). The
 * default retry schedule (30, 120, 600 s) fits in it, so an unreachable site's final night is
 * still in the run's digest; a server's Retry-After past it does not hold anybody else.
 */
export const DEFAULT_RUN_HOLD_SECONDS = 900;

/**
 * A wait longer than this many seconds is said by `audit --wait` as soon as it is seen (`stats`,
 * the metrics and the dashboard show every wait): shorter ones pass before anybody could act on them.
 */
export const WAIT_NOTICE_SECONDS = 5;

/** A retry that was just scheduled: when it is due, and whether its run waits for it. */
export interface ScheduledRetry {
  until: Date;
  holdsRun: boolean;
}

/** The retry due `delayMs` after `now`; it holds its run when that is within the hold. */
export function scheduledRetry(now: Date, delayMs: number, holdSeconds: number): ScheduledRetry {
  return { until: new Date(now.getTime() + delayMs), holdsRun: holdsRun(delayMs, holdSeconds) };
}

/** A retry due this many milliseconds after it was scheduled holds its run (0 s: none does). */
export function holdsRun(delayMs: number, holdSeconds: number): boolean {
  return delayMs <= holdSeconds * 1000;
}

/** Where a run's sites are, from its row: every site is in exactly one of these, or still under way. */
export interface RunSitesTally {
  total: number;
  /** Nights stored. */
  done: number;
  skipped: number;
  failed: number;
  /** Waiting for a retry the run does not wait for. */
  pending: number;
}

/**
 * The run is over for everyone: every site is done, skipped, failed, or pending (its retry is
 * due past the hold). A site under way, or waiting within the hold, keeps it running.
 */
export function runSettled(t: RunSitesTally): boolean {
  return t.done + t.skipped + t.failed + t.pending >= t.total;
}

/** Milliseconds from `now` until `until` (0 once it is due). */
export function msUntil(until: Date, now: Date): number {
  return Math.max(0, until.getTime() - now.getTime());
}

/**
 * A wait worth showing: longer than WAIT_NOTICE_SECONDS from the failure it follows (`since`) to
 * its retry (`until`), however much of it is left when it is seen.
 */
export function noticeableWait(since: Date, until: Date, noticeSeconds = WAIT_NOTICE_SECONDS): boolean {
  return until.getTime() - since.getTime() > noticeSeconds * 1000;
}

/** Why a site waits, as one short phrase: its answer, and whether its Retry-After set the delay. */
export interface WaitReason {
  outcome: string;
  status: number | null;
  errorCode: string | null;
  /** The server's Retry-After, seconds (null: none, or one that does not parse). */
  retryAfterSeconds: number | null;
  /** ROBOTS_AUDIT_RETRY_AFTER_CAP. */
  retryAfterCapSeconds: number;
  /** The attempt that failed, and how many the schedule allows. */
  attempt: number;
  attempts: number;
}

export function waitReasonText(r: WaitReason): string {
  const answer = r.status !== null ? String(r.status) : (r.errorCode ?? r.outcome);
  let why = answer;
  if (r.retryAfterSeconds !== null) {
    why += r.retryAfterSeconds > r.retryAfterCapSeconds
      ? ` with Retry-After ${r.retryAfterSeconds} s (capped at ${r.retryAfterCapSeconds} s)`
      : ` with Retry-After ${r.retryAfterSeconds} s`;
  }
  return `${why}; attempt ${Math.min(r.attempt + 1, r.attempts)} of ${r.attempts} next`;
}

/** `1h02m`, `3m20s`, `45s`: how long a wait has to go. */
export function durationText(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}
