/**
 * Connection URLs as they may be shown in a message or a log line: DATABASE_URL and REDIS_URL
 * often carry a password (`redis://:pw@host`, `postgres://user:pw@host/db`, or `?password=`).
 */
import { isSentinelUrl, parseSentinelUrl, SENTINEL_SCHEME, sentinelUrlParts } from '../config/redis-options.js';

const MASK = '***';

/** A query parameter that names a password (`password`, `sentinelPassword`, ...). */
const PASSWORD_KEY = /pass/i;

/**
 * A Sentinel URL (several hosts: the WHATWG parser refuses it) masked where the product's own
 * parser finds the password, so that what is hidden is what is used; one it cannot read is
 * hidden whole but for its scheme.
 */
function maskSentinelUrl(url: string): string {
  const parts = sentinelUrlParts(url);
  try {
    parseSentinelUrl(url);
  } catch {
    return `${url.slice(0, SENTINEL_SCHEME.length)}//${MASK}`;
  }
  const { userinfo, hosts, path, query } = parts!;
  const colon = userinfo?.indexOf(':') ?? -1;
  const user = userinfo === null ? '' : colon === -1 ? `${userinfo}@` : `${userinfo.slice(0, colon)}:${MASK}@`;
  const params = query
    .split('&')
    .map((pair) => (PASSWORD_KEY.test(pair.split('=')[0]!) && pair.includes('=') ? `${pair.split('=')[0]}=${MASK}` : pair))
    .join('&');
  return `${url.slice(0, SENTINEL_SCHEME.length)}//${user}${hosts}${path}${query === '' ? '' : `?${params}`}`;
}

/** The URL with its password (and any query parameter naming one) replaced by `***`; the user is kept. */
export function maskUrlPassword(url: string): string {
  if (isSentinelUrl(url)) return maskSentinelUrl(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL the WHATWG parser reads: hide whatever sits between the scheme and an `@`.
    return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, `$1${MASK}@`);
  }
  let masked = false;
  if (parsed.password !== '') {
    parsed.password = MASK;
    masked = true;
  }
  for (const key of [...parsed.searchParams.keys()]) {
    if (PASSWORD_KEY.test(key)) {
      parsed.searchParams.set(key, MASK);
      masked = true;
    }
  }
  // Unchanged URLs are shown as given, not in the parser's normal form.
  return masked ? parsed.href.replaceAll('%2A%2A%2A', MASK) : url;
}
