/**
 * The log formats the import reads, what each line becomes through one interface, and a guess of
 * the format from a file's first lines (for when `--format` is not given). Pure.
 */
import { combinedUserAgent, parseCombinedLine } from './combined.js';
import { CLOUDFLARE_LOGPUSH_HTTP, FieldMappingError, jsonLineUserAgentText, parseJsonLine } from './json-lines.js';
import type { JsonFieldMapping } from './json-lines.js';
import type { LogLineResult } from './log-request.js';

export const LOG_FORMATS = ['combined', 'vhost-combined', 'jsonl', 'cloudflare'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** What the import asks of a line, whatever the format. */
export interface LogLineReader {
  /** The line as a request, or the reason it is not one. */
  parse(line: string): LogLineResult;
  /**
   * Cheap text that holds the line's user-agent, for skipping lines no crawler sent before parsing
   * them: the user-agent itself (combined formats) or the whole line (JSON formats), so a crawler
   * token absent from it is absent from the user-agent. Null when it cannot be found cheaply: parse
   * the line to learn why. Never a substitute for `parse(line).userAgent`.
   */
  userAgentOf(line: string): string | null;
}

/** The reader of a format; `jsonl` needs a mapping, `cloudflare` takes Logpush's unless one is given. */
export function logLineReader(format: LogFormat, mapping?: JsonFieldMapping): LogLineReader {
  switch (format) {
    case 'combined':
    case 'vhost-combined': {
      const options = { vhost: format === 'vhost-combined' };
      return { parse: (line) => parseCombinedLine(line, options), userAgentOf: combinedUserAgent };
    }
    case 'jsonl':
    case 'cloudflare': {
      const fields = mapping ?? (format === 'cloudflare' ? CLOUDFLARE_LOGPUSH_HTTP : undefined);
      if (fields === undefined) throw new FieldMappingError('the jsonl format needs a field mapping (--fields at=...,clientIp=...,target=...,userAgent=...)');
      return { parse: (line) => parseJsonLine(line, fields), userAgentOf: jsonLineUserAgentText };
    }
  }
}

/** Fields that only Logpush's http_requests names so: one of them in an object says Cloudflare. */
const CLOUDFLARE_MARKERS = [CLOUDFLARE_LOGPUSH_HTTP.at, CLOUDFLARE_LOGPUSH_HTTP.target, CLOUDFLARE_LOGPUSH_HTTP.userAgent];

function jsonObjectOf(line: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The fields before the timestamp: four with a virtual host (`host ip ident user [`), three without. */
function fieldsBeforeTime(line: string): number {
  const timeOpen = line.indexOf(' [');
  return timeOpen === -1 ? 0 : line.slice(0, timeOpen).split(' ').length;
}

/**
 * The format of a log from its first lines, or null when none is read by any format. JSON objects
 * are Cloudflare's when they carry Logpush's field names, any other JSON Lines otherwise; text lines
 * are tried as combined and as vhost-combined, and the reading that accepts more lines wins. The
 * two tie only when a virtual host is itself an IP address and the rest reads both ways; the count
 * of fields before the timestamp then decides.
 */
export function detectLogFormat(firstLines: string[]): LogFormat | null {
  const lines = firstLines.filter((line) => line.trim() !== '');
  if (lines.length === 0) return null;

  if (lines[0]!.trimStart().startsWith('{')) {
    const objects = lines.map(jsonObjectOf).filter((o) => o !== null);
    if (objects.length === 0) return null;
    return objects.some((o) => CLOUDFLARE_MARKERS.some((field) => Object.hasOwn(o, field))) ? 'cloudflare' : 'jsonl';
  }

  const accepted = (vhost: boolean) => lines.filter((line) => !('error' in parseCombinedLine(line, { vhost }))).length;
  const plain = accepted(false);
  const vhost = accepted(true);
  if (plain === 0 && vhost === 0) return null;
  if (plain !== vhost) return plain > vhost ? 'combined' : 'vhost-combined';
  const withHost = lines.filter((line) => fieldsBeforeTime(line) === 4).length;
  return withHost * 2 > lines.length ? 'vhost-combined' : 'combined';
}
