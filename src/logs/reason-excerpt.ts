/**
 * A log's text quoted inside a LogLineError's reason: cut, so that a 64 KiB line of TLS bytes
 * gives a one-line reason, and with control characters written as `\xHH`, so that a reason is
 * never a way for a log to send escape sequences to a terminal (house style, habit 13).
 */

/** Characters of the log's text a reason quotes (the same bound as origin.ts's errors). */
export const REASON_EXCERPT_CHARS = 80;

/** C0 controls, DEL and C1 controls. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f-\x9f]/g;

/** `"text"`, cut at REASON_EXCERPT_CHARS with `…`, controls shown as `\xHH`. */
export function reasonExcerpt(text: string): string {
  const cut = text.length <= REASON_EXCERPT_CHARS ? text : `${text.slice(0, REASON_EXCERPT_CHARS)}…`;
  const visible = cut.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return `"${visible}"`;
}
