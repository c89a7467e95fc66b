/**
 * The words of compliance (issue 29, docs/compliance.md): what a crawler request from a server
 * log was judged, and who made it. Each list once, `as const`: the table's checks, the report's
 * filters and the dashboard's parameters import them.
 */

/**
 * What a crawler request was, judged by the site's robots.txt in force when it was made:
 * - `allowed`: the version in force allowed it;
 * - `violation`: the version in force disallowed it, and so did every version in force in the
 *   cache window before it;
 * - `cache_window`: disallowed by the version in force, but allowed by one in force within the
 *   previous `ROBOTS_TXT_CACHE_HOURS` (RFC 9309 section 2.4: a crawler may use a cached copy);
 * - `between_versions`: disallowed by the version in force, but made after the last night that saw
 *   it and before the first that saw the next version, which allows it: the site may already have
 *   served the next one (the nights observe a change, they do not see when it shipped);
 * - `not_bound`: disallowed, but the crawler's operator documents that robots.txt does not
 *   apply to its fetches (user-triggered fetchers: crawler-rules.json `robotsTxt`);
 * - `robots_txt`: the request for /robots.txt itself;
 * - `unjudged`: made before the site's first audited night: no version is known.
 */
export const JUDGEMENTS = ['allowed', 'violation', 'cache_window', 'between_versions', 'not_bound', 'robots_txt', 'unjudged'] as const;
export type Judgement = (typeof JUDGEMENTS)[number];

/** Whether a request claiming a crawler passed its operator's published check (src/crawlers/identity). */
export const IDENTITIES = ['verified', 'spoofed', 'unverifiable'] as const;
export type Identity = (typeof IDENTITIES)[number];

/** How an identity was decided: an operator's IP range file, forward-confirmed reverse DNS, or no check. */
export const IDENTITY_METHODS = ['ip_ranges', 'reverse_dns', 'none'] as const;
export type IdentityMethod = (typeof IDENTITY_METHODS)[number];

/**
 * RFC 9309 section 2.4: "Crawlers SHOULD NOT use the cached version for more than 24 hours,
 * unless the robots.txt file is unreachable." A request the version in force at any moment of the
 * 24 hours before it allowed is no violation.
 */
export const ROBOTS_TXT_CACHE_HOURS = 24;
