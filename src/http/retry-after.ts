/**
 * Retry-After (RFC 9110 §10.2.3) on 429 and 503 responses (D-4, R-13): how long the site asks
 * us to wait. The worker decides how much of it to honour (its cap lives in config). Pure.
 */
import { parseHttpDate } from './http-date.js';

/**
 * Seconds to wait from `now`: delta-seconds as given, or an HTTP-date minus now (never below 0).
 * Null when the header is absent or neither form.
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  if (value == null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds : null;
  }
  const date = parseHttpDate(text, now);
  if (!date) return null;
  return Math.max(0, Math.ceil((date.getTime() - now.getTime()) / 1000));
}
