/**
 * How a finding quotes a site's text: bounded, so that a 16 KiB value makes a one-line message.
 * The text is quoted as written; the CLI and the dashboard escape control and invisible
 * characters where they show it (reports/terminal-text.ts, web/html-text.ts).
 */

/** Longest excerpt of a value quoted in a message. */
export const QUOTE_CHARS = 60;

export function quote(s: string): string {
  return s.length <= QUOTE_CHARS ? s : `${s.slice(0, QUOTE_CHARS)}…`;
}
