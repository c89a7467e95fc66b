/**
 * The "combined" access log of Apache and nginx, one line into a LogRequest:
 *
 *   Apache  %h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i"
 *   nginx   $remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"
 *
 * and its virtual-host variant, one more field in front: Apache's `vhost_combined` (`%v:%p %h ...`,
 * `example.com:443 192.0.2.1 - - [...]`) and nginx's common `$host $remote_addr - ...`.
 *
 * The reading is strict where a loose one would be wrong silently: the user-agent must be the last
 * field (a `"$http_x_forwarded_for"` after it is refused, not read as the user-agent), quotes end
 * only where unescaped (Apache writes `\"` inside a field), and the client must be an IP address.
 * Everything inside a field is data: control bytes from `\x1b` stay in the user-agent, unescaped
 * (log-escapes.ts), and a line is never refused for holding them. One pass, no regular expression
 * over the line; pure.
 */
import { clientAddress, requestHost } from './log-addresses.js';
import { unescapeLogField } from './log-escapes.js';
import type { LogLineError, LogLineResult } from './log-request.js';
import { parseClfTime } from './log-times.js';
import { reasonExcerpt } from './reason-excerpt.js';

export interface CombinedLineOptions {
  /** The line starts with a virtual-host field (`example.com:443` or `example.com`). */
  vhost: boolean;
}

const SPACE = 32;
const TAB = 9;
const QUOTE = 34;
const BACKSLASH = 92;

/** `dd/Mon/yyyy:HH:MM:SS +hhmm` between the brackets. */
const CLF_TIME_CHARS = 26;

/** RFC 9110 §5.6.2: a method is a token. */
const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PROTOCOL = /^HTTP\/\d(?:\.\d)?$/;
/** An absolute-form target (RFC 9112 §3.2.2), as a proxy receives it. */
const ABSOLUTE_TARGET = /^[a-z][a-z0-9+.-]*:\/\//i;

function fail(error: string): LogLineError {
  return { error };
}

/** The index of the space that ends the token at `start`, or the line's length. */
function tokenEnd(line: string, start: number): number {
  const space = line.indexOf(' ', start);
  return space === -1 ? line.length : space;
}

/**
 * The index of the quote that closes the field opened at `open`, or -1 when the line ends first.
 * A backslash escapes the character after it, so Apache's `\"` and `\\` stay inside the field.
 */
function closingQuote(line: string, open: number): number {
  for (let i = open + 1; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === QUOTE) return i;
    if (c === BACKSLASH) i++;
  }
  return -1;
}

/** A user-agent field's raw text as LogRequest.userAgent: `-` is none, escapes undone. */
function userAgentOfField(raw: string): string {
  return raw === '-' ? '' : unescapeLogField(raw, 'latin1');
}

/**
 * The request line `METHOD target HTTP/x.y`, or `METHOD target` as HTTP/0.9 wrote it. The target
 * keeps what lies between the method and the protocol, spaces included (the server logged the line
 * it received); its `\xHH` bytes that are not UTF-8 stay percent-encoded, the form the matcher reads.
 */
function requestLine(raw: string): { method: string; target: string } | null {
  const firstSpace = raw.indexOf(' ');
  if (firstSpace === -1) return null;
  const method = raw.slice(0, firstSpace);
  if (!METHOD.test(method)) return null;
  const lastSpace = raw.lastIndexOf(' ');
  const hasProtocol = lastSpace > firstSpace && PROTOCOL.test(raw.slice(lastSpace + 1));
  const target = unescapeLogField(raw.slice(firstSpace + 1, hasProtocol ? lastSpace : raw.length), 'percent');
  const plausible = target.startsWith('/') || target === '*' || ABSOLUTE_TARGET.test(target) || (method === 'CONNECT' && target !== '');
  return plausible ? { method, target } : null;
}

/**
 * The quoted field that starts at `start` (after the space before it): its raw text and where the
 * line goes on, or a reason naming the field when the line is cut short.
 */
function quotedField(line: string, start: number, name: string): { raw: string; next: number } | LogLineError {
  if (start >= line.length) return fail(`truncated before the ${name}`);
  if (line.charCodeAt(start) !== QUOTE) return fail(`no quoted ${name}: ${reasonExcerpt(line.slice(start))}`);
  const close = closingQuote(line, start);
  if (close === -1) return fail(`truncated in the ${name}`);
  return { raw: line.slice(start + 1, close), next: close + 1 };
}

/** Where the next field starts: past the one space after a field (a missing space is the next field's error). */
function afterSpace(line: string, at: number): number {
  return line.charCodeAt(at) === SPACE ? at + 1 : at;
}

function isBlankFrom(line: string, start: number): boolean {
  for (let i = start; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== SPACE && c !== TAB) return false;
  }
  return true;
}

export function parseCombinedLine(line: string, options: CombinedLineOptions): LogLineResult {
  if (isBlankFrom(line, 0)) return fail('empty line');
  let pos = 0;

  let host: string | null = null;
  if (options.vhost) {
    const end = tokenEnd(line, pos);
    host = requestHost(line.slice(pos, end));
    pos = end + 1;
  }

  const clientEnd = tokenEnd(line, pos);
  const clientIp = clientAddress(line.slice(pos, clientEnd));
  if (clientIp === null) return fail(`client is not an IP address: ${reasonExcerpt(line.slice(pos, clientEnd))}`);

  // %l and %u: the identity is one token; a user name may hold spaces, so it runs to ` [`.
  const identEnd = tokenEnd(line, clientEnd + 1);
  const timeOpen = line.indexOf(' [', identEnd);
  if (identEnd >= line.length || timeOpen === -1) return fail(`no timestamp: ${reasonExcerpt(line)}`);
  const timeClose = timeOpen + 2 + CLF_TIME_CHARS;
  const at = line.charCodeAt(timeClose) === 93 /* ] */ ? parseClfTime(line.slice(timeOpen + 2, timeClose)) : null;
  if (at === null) {
    const close = line.indexOf(']', timeOpen);
    return fail(`invalid timestamp: ${reasonExcerpt(line.slice(timeOpen + 1, close === -1 ? line.length : close + 1))}`);
  }

  const request = quotedField(line, afterSpace(line, timeClose + 1), 'request line');
  if ('error' in request) return request;
  const parsedRequest = requestLine(request.raw);
  if (parsedRequest === null) return fail(`no request line: ${reasonExcerpt(request.raw)}`);

  const statusStart = afterSpace(line, request.next);
  if (statusStart >= line.length) return fail('truncated before the status');
  const statusEnd = tokenEnd(line, statusStart);
  const statusText = line.slice(statusStart, statusEnd);
  if (statusText !== '-' && !/^\d{3}$/.test(statusText)) return fail(`invalid status: ${reasonExcerpt(statusText)}`);

  const sizeStart = afterSpace(line, statusEnd);
  if (sizeStart >= line.length) return fail('truncated before the size');
  const sizeEnd = tokenEnd(line, sizeStart);
  const sizeText = line.slice(sizeStart, sizeEnd);
  if (sizeText !== '-' && !/^\d+$/.test(sizeText)) return fail(`invalid size: ${reasonExcerpt(sizeText)}`);

  // The referer is read past, not kept: LogRequest has no use for it.
  const referer = quotedField(line, afterSpace(line, sizeEnd), 'referer');
  if ('error' in referer) return referer;
  const userAgent = quotedField(line, afterSpace(line, referer.next), 'user-agent');
  if ('error' in userAgent) return userAgent;
  if (!isBlankFrom(line, userAgent.next)) return fail(`text after the user-agent: ${reasonExcerpt(line.slice(userAgent.next))}`);

  return {
    at,
    host,
    clientIp,
    method: parsedRequest.method,
    target: parsedRequest.target,
    status: statusText === '-' ? null : Number(statusText),
    userAgent: userAgentOfField(userAgent.raw),
  };
}

/**
 * The user-agent of a combined line (plain or vhost), found from the end without reading the rest:
 * the last quoted field, escapes undone, `-` as ''. For the import to skip the many lines that no
 * crawler sent at the cost of a backwards scan and one substring. On every line parseCombinedLine
 * accepts it equals that parse's userAgent (a quote inside a field always follows an odd run of
 * backslashes, the opening quote an even one); on other lines it may be anything, or null when the
 * line does not end with a quoted field, so a caller parses a line before counting it as an error.
 */
export function combinedUserAgent(line: string): string | null {
  let end = line.length - 1;
  while (end >= 0 && (line.charCodeAt(end) === SPACE || line.charCodeAt(end) === TAB)) end--;
  if (end < 1 || line.charCodeAt(end) !== QUOTE) return null;
  let from = end - 1;
  for (;;) {
    const open = line.lastIndexOf('"', from);
    if (open === -1) return null;
    let backslashes = 0;
    while (open - backslashes > 0 && line.charCodeAt(open - backslashes - 1) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return userAgentOfField(line.slice(open + 1, end));
    from = open - 1;
  }
}
