/**
 * User-agent names: what Google reads from a `User-agent:` value, and how a caller's name is
 * compared with it (T14-T17, C9-C12, C30). Pure.
 */
import { asciiLower } from './encoding.js';

/** The token of the global group. */
export const GLOBAL_AGENT = '*';

function isAgentChar(c: number): boolean {
  // [A-Za-z_-]
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x2d || c === 0x5f;
}

/** C isspace() in the C locale. */
function isCSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

/**
 * The token Google reads from a robots.txt `User-agent:` value (trimmed, comment cut):
 * - `*` when the value is `*` or `*` followed by whitespace (C9: `* foo` is global);
 * - otherwise the longest prefix of `[A-Za-z_-]`, lower-cased (T16, C10, C12), which may be
 *   empty (`*foo`, `2bot`, an empty value: C9, C11).
 */
export function agentToken(value: string): string {
  if (value.charCodeAt(0) === 0x2a && (value.length === 1 || isCSpace(value.charCodeAt(1)))) {
    return GLOBAL_AGENT;
  }
  // One pass finds the end of the token and whether it needs lower-casing; the token is
  // ASCII, so the native lower-casing is the ASCII one (C12).
  let end = 0;
  let upper = false;
  for (; end < value.length; end++) {
    const c = value.charCodeAt(end);
    if (c >= 0x41 && c <= 0x5a) upper = true;
    else if (!isAgentChar(c)) break;
  }
  // A value that is all token (the common case) needs no slice.
  const token = end === value.length ? value : value.slice(0, end);
  return upper ? token.toLowerCase() : token;
}

/**
 * agentToken of a value read from the bytes it was decoded from, `bytes[start, end)`: the same
 * token (its characters are ASCII, one byte each, and a byte above 0x7f ends it as the
 * character it starts would), found without reading the string character by character.
 * `value` is that range decoded; the token is sliced from it.
 */
export function agentTokenOfBytes(bytes: Uint8Array, start: number, end: number, value: string): string {
  if (bytes[start] === 0x2a && (end - start === 1 || isCSpace(bytes[start + 1] as number))) return GLOBAL_AGENT;
  let p = start;
  let upper = false;
  for (; p < end; p++) {
    const c = bytes[p] as number;
    if (c >= 0x41 && c <= 0x5a) upper = true;
    else if (!isAgentChar(c)) break;
  }
  const token = p === end ? value : value.slice(0, p - start);
  return upper ? token.toLowerCase() : token;
}

/**
 * T14: Google's `IsValidUserAgentToObey`: a non-empty name made only of `[A-Za-z_-]`. The
 * matcher never applies it to the caller's name; tools may use it to vet a crawler's token.
 */
export function isValidUserAgentToObey(userAgent: string): boolean {
  if (userAgent.length === 0) return false;
  for (let i = 0; i < userAgent.length; i++) {
    if (!isAgentChar(userAgent.charCodeAt(i))) return false;
  }
  return true;
}

/**
 * The key a caller's user-agent is looked up by: the whole string, ASCII lower-cased, never
 * trimmed or cut (T17, C10, C30). A name with characters outside `[A-Za-z_-]` can therefore
 * only match no named group.
 */
export function callerAgentKey(userAgent: string): string {
  return asciiLower(userAgent);
}
