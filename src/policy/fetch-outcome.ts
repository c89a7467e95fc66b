/**
 * The outcome classes of a robots.txt fetch (R-10..R-15, D-4), shared by the fetcher, the
 * policy and the database enum. One is not a fetch's: `night_failed`, a night that could not be
 * computed or stored (its jobs failed for good), recorded so that it is seen, listed and alerted.
 * `challenged`: a bot wall or WAF answered in the site's place (src/http/challenge.ts). Both are
 * appended last: the order is the database enum's.
 */
export const FETCH_OUTCOMES = ['ok', 'unavailable', 'rate_limited', 'server_error', 'network_error', 'redirect_limit', 'night_failed', 'challenged'] as const;

export type FetchOutcome = (typeof FETCH_OUTCOMES)[number];

/** The error code of a `night_failed` night. */
export const NIGHT_FAILED_ERROR_CODE = 'NIGHT_FAILED';

/** outcomes that mean the site could not be reached; they start or extend a streak. */
export function isUnreachable(outcome: FetchOutcome): boolean {
  return outcome === 'server_error' || outcome === 'network_error';
}
