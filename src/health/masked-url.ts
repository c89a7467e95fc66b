/**
 * Connection URLs as they may be shown in a message or a log line: DATABASE_URL and REDIS_URL
 * often carry a password (`redis://:pw@host`, `postgres://user:pw@host/db`, or `?password=`).
 */

const MASK = '***';

/** The URL with its password (and any query parameter naming one) replaced by `***`; the user is kept. */
export function maskUrlPassword(url: string): string {
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
    if (/pass/i.test(key)) {
      parsed.searchParams.set(key, MASK);
      masked = true;
    }
  }
  // Unchanged URLs are shown as given, not in the parser's normal form.
  return masked ? parsed.href.replaceAll('%2A%2A%2A', MASK) : url;
}
