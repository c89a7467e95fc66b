/**
 * The outcome classes of a robots.txt fetch (R-10..R-15, D-4), shared by the fetcher, the
 * policy and the database enum. `challenged`: a bot wall or WAF answered in the site's place
 * (src/http/challenge.ts); appended last (Postgres adds enum values at the end).
 */
export const FETCH_OUTCOMES = ['ok', 'unavailable', 'rate_limited', 'server_error', 'network_error', 'redirect_limit', 'challenged'] as const;

export type FetchOutcome = (typeof FETCH_OUTCOMES)[number];

/** outcomes that mean the site could not be reached; they start or extend a streak. */
export function isUnreachable(outcome: FetchOutcome): boolean {
  return outcome === 'server_error' || outcome === 'network_error';
}
