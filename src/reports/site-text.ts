/**
 * Words and shapes shared by the site reports' text output: nights in UTC, a night's outcome
 * and its effective policy with the spec rule behind it. Pure.
 */
import type { PolicyReason } from '../policy/effective-policy.js';
import type { FetchOutcome } from '../policy/fetch-outcome.js';

/** `2026-03-01 03:00Z`, with seconds only when the night has them (`audit --at` may). */
export function formatNight(at: Date): string {
  const iso = at.toISOString();
  const seconds = iso.slice(17, 23) === '00.000' ? '' : `:${iso.slice(17, 19)}`;
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}${seconds}Z`;
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** `ok 200`, `server_error 503`, `network_error ECONNREFUSED`, `redirect_limit 301 REDIRECT_LOOP`. */
export function outcomeText(outcome: FetchOutcome, status: number | null, errorCode: string | null): string {
  return [outcome, status, errorCode].filter((part) => part !== null).join(' ');
}

/** What each policy reason means, for people (`fetch`, the dashboard's badges). */
export const POLICY_REASON_TEXT: Readonly<Record<PolicyReason, string>> = {
  'R-10': 'robots.txt fetched: its rules apply',
  'R-11': 'too many redirects: read as a 404, everything allowed',
  'R-12': '4xx: no robots.txt, everything allowed',
  'D-4': '429: everything allowed, reported apart',
  'R-13': '5xx: everything disallowed',
  'R-15': 'no response: everything disallowed',
  'D-3': 'unreachable for more than 30 days: the last good copy applies, or everything allowed',
  night_failed: 'the night could not be stored, and there was none before: nothing decided, everything allowed',
  challenged: "a bot wall answered, not the site: the last known policy stands, unverified",
};

/** `rules (R-10)`, `disallow_all (R-13)`, `rules (D-3, copy of 2026-03-01 03:00Z)`. */
export function policyText(policy: string, reason: string, rulesNight: Date | null): string {
  if (reason === 'D-3') return policy === 'rules' && rulesNight ? `${policy} (D-3, copy of ${formatNight(rulesNight)})` : `${policy} (D-3, no copy)`;
  if (reason === 'challenged') return policy === 'rules' && rulesNight ? `${policy} (challenged: unverified, rules of ${formatNight(rulesNight)})` : `${policy} (challenged: unverified)`;
  return `${policy} (${reason})`;
}

/**
 * Rows as lines of columns padded to their widest cell, two spaces apart: text left-aligned, the
 * `rightAligned` columns (numbers) right-aligned; the last column is not padded unless it is
 * right-aligned (no trailing blanks).
 */
export function alignColumns(rows: readonly (readonly string[])[], rightAligned: readonly number[] = []): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  const right = new Set(rightAligned);
  return rows.map((row) =>
    row.map((cell, i) => (right.has(i) ? cell.padStart(widths[i]!) : i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '),
  );
}
