/**
 * A site's wait for its retry as the CLI says it (`audit --wait`, `stats`): the site, until when
 * (UTC), how long that is from now, and why (its answer, the Retry-After that set the delay, the
 * attempt to come), and whether its run waits for it (issue 26). Pure.
 */
import type { SiteWait } from '../db/run-waits.js';
import { parseRetryAfter } from '../http/retry-after.js';
import { durationText, msUntil, waitReasonText } from '../policy/run-hold.js';
import type { RetrySchedule } from '../policy/retry-schedule.js';
import { maxAttempts } from '../policy/retry-schedule.js';
import { terminalText } from '../reports/terminal-text.js';

/** Why the site waits: its answer, the Retry-After that set the delay, the attempt to come. */
export function waitWhy(wait: SiteWait, schedule: RetrySchedule, now: Date): string {
  if (wait.attempt === null || wait.outcome === null) return 'its retry';
  return waitReasonText({
    outcome: wait.outcome,
    status: wait.status,
    errorCode: wait.errorCode,
    retryAfterSeconds: parseRetryAfter(wait.retryAfter, now),
    retryAfterCapSeconds: schedule.retryAfterCapSeconds,
    attempt: wait.attempt,
    attempts: maxAttempts(schedule),
  });
}

/** `<origin> until <ISO> (in 59m58s): 503 with Retry-After ...; attempt 2 of 4 next; the run does not wait for it` */
export function waitLine(wait: SiteWait, schedule: RetrySchedule, now: Date): string {
  const site = terminalText(wait.origin ?? `site ${wait.siteId} (removed)`);
  const runWaits = wait.runStatus === 'running' && !wait.pending ? 'the run waits for it' : 'the run does not wait for it';
  return `${site} until ${wait.until.toISOString()} (in ${durationText(msUntil(wait.until, now))}): ${waitWhy(wait, schedule, now)}; ${runWaits}`;
}

/** Which wait of a site this is: a site waits again, until another time, after each failed retry. */
export const waitKey = (w: Pick<SiteWait, 'runId' | 'siteId' | 'until'>) => `${w.runId}:${w.siteId}:${w.until.toISOString()}`;
