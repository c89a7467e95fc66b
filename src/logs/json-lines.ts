/**
 * Access logs written as JSON Lines (one object a line: Cloudflare Logpush, Caddy, nginx with
 * `escape=json`, a CDN's log shipping), read through a field mapping that names where each part
 * of a LogRequest is. Pure; the cost of a line is JSON.parse's, linear in its length.
 */
import { clientAddress, requestHost } from './log-addresses.js';
import type { LogLineError, LogLineResult } from './log-request.js';
import { parseEpochTime, parseRfc3339Time } from './log-times.js';
import { reasonExcerpt } from './reason-excerpt.js';

/**
 * Where each part of a request is in a line's object: a field name, or a dotted path into nested
 * objects (`request.headers.user_agent`). A name that holds dots itself (`http.user_agent` as one
 * key, as some shippers flatten) is found too: the whole name is tried before the path.
 */
export interface JsonFieldMapping {
  /** RFC 3339 string, or Unix epoch seconds / milliseconds / microseconds / nanoseconds (number or digits). */
  at: string;
  host?: string;
  clientIp: string;
  /** When not mapped, every request is read as a GET: the method does not change what robots.txt allows. */
  method?: string;
  /** Path and query together (`/a?b=c`); or give `path` and, optionally, `query`. */
  target?: string;
  path?: string;
  /** Appended to `path` after a `?` (one already there is kept, not doubled). */
  query?: string;
  status?: string;
  userAgent: string;
}

/**
 * Cloudflare Logpush, dataset http_requests. Field names and meanings from
 * https://developers.cloudflare.com/logs/reference/log-fields/zone/http_requests/ (ClientRequestURI
 * is "the full path and query string"); EdgeStartTimestamp is written as the job's timestamp format
 * asks, rfc3339, unix (seconds) or unixnano, all read by `at`
 * (https://developers.cloudflare.com/logs/logpush/logpush-job/log-output-options/).
 */
export const CLOUDFLARE_LOGPUSH_HTTP = {
  at: 'EdgeStartTimestamp',
  host: 'ClientRequestHost',
  clientIp: 'ClientIP',
  method: 'ClientRequestMethod',
  target: 'ClientRequestURI',
  status: 'EdgeResponseStatus',
  userAgent: 'ClientRequestUserAgent',
} as const satisfies JsonFieldMapping;

/** The mapping's keys, in the order a user's `--fields` is explained. */
export const JSON_FIELD_KEYS = ['at', 'host', 'clientIp', 'method', 'target', 'path', 'query', 'status', 'userAgent'] as const;
type JsonFieldKey = (typeof JSON_FIELD_KEYS)[number];

export class FieldMappingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FieldMappingError';
  }
}

/**
 * A user's `--fields` text, `at=ts,clientIp=ip,target=uri,userAgent=ua`, as a mapping. Throws
 * FieldMappingError naming the unknown key, the repeated one or what is missing.
 */
export function parseFieldMapping(spec: string): JsonFieldMapping {
  const given = new Map<JsonFieldKey, string>();
  for (const pair of spec.split(',')) {
    if (pair.trim() === '') continue;
    const equals = pair.indexOf('=');
    const key = (equals === -1 ? pair : pair.slice(0, equals)).trim();
    const name = equals === -1 ? '' : pair.slice(equals + 1).trim();
    if (!(JSON_FIELD_KEYS as readonly string[]).includes(key)) {
      throw new FieldMappingError(`unknown key ${reasonExcerpt(key)} in --fields (known: ${JSON_FIELD_KEYS.join(', ')})`);
    }
    if (name === '') throw new FieldMappingError(`--fields: ${key} has no field name (write ${key}=<name>)`);
    if (given.has(key as JsonFieldKey)) throw new FieldMappingError(`--fields: ${key} is given twice`);
    given.set(key as JsonFieldKey, name);
  }
  const missing: string[] = (['at', 'clientIp', 'userAgent'] as const).filter((key) => !given.has(key));
  if (!given.has('target') && !given.has('path')) missing.push('target (or path)');
  if (missing.length > 0) throw new FieldMappingError(`--fields is missing ${missing.join(', ')}`);
  if (given.has('target') && (given.has('path') || given.has('query'))) {
    throw new FieldMappingError('--fields: give target (path and query together) or path and query, not both');
  }
  return Object.fromEntries(given) as unknown as JsonFieldMapping;
}

function fail(error: string): LogLineError {
  return { error };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The value at a field name or dotted path; undefined when any step is missing. */
function valueAt(record: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(record, path)) return record[path];
  let value: unknown = record;
  for (const step of path.split('.')) {
    if (!isObject(value) || !Object.hasOwn(value, step)) return undefined;
    value = value[step];
  }
  return value;
}

/** A string field's value; null or undefined when absent (`null` in the JSON counts as absent). */
function stringAt(record: Record<string, unknown>, path: string): string | undefined | LogLineError {
  const value = valueAt(record, path);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return fail(`field ${reasonExcerpt(path)} is ${kindOf(value)}, not a string`);
  return value;
}

function timeOf(value: unknown): Date | null {
  if (typeof value === 'number') return parseEpochTime(value);
  if (typeof value !== 'string') return null;
  return /^\d+(?:\.\d+)?$/.test(value) ? parseEpochTime(Number(value)) : parseRfc3339Time(value);
}

function statusOf(value: unknown): number | null | undefined {
  if (value === undefined || value === null || value === '-' || value === '') return null;
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 999 ? n : undefined;
}

/** The target from `target`, or from `path` and `query`. */
function targetOf(record: Record<string, unknown>, mapping: JsonFieldMapping): string | LogLineError {
  const field = mapping.target ?? mapping.path;
  if (field === undefined) return fail('the field mapping names neither target nor path');
  const target = stringAt(record, field);
  if (target === undefined) return fail(`missing field ${reasonExcerpt(field)}`);
  if (typeof target !== 'string' || mapping.target !== undefined || mapping.query === undefined) return target;
  const query = stringAt(record, mapping.query);
  if (typeof query === 'object') return query;
  if (query === undefined || query === '' || query === '?') return target;
  return query.startsWith('?') ? `${target}${query}` : `${target}?${query}`;
}

/**
 * One JSON line through the mapping. A field the mapping names must be there, except the host and
 * the status (null when absent) and the user-agent ('' when absent, as LogRequest has it).
 */
export function parseJsonLine(line: string, mapping: JsonFieldMapping): LogLineResult {
  if (line.trim() === '') return fail('empty line');
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return fail(`not JSON: ${reasonExcerpt(line)}`);
  }
  if (!isObject(record)) return fail(`not a JSON object but ${kindOf(record)}`);

  const atValue = valueAt(record, mapping.at);
  if (atValue === undefined || atValue === null) return fail(`missing field ${reasonExcerpt(mapping.at)}`);
  const at = timeOf(atValue);
  if (at === null) return fail(`invalid timestamp in ${reasonExcerpt(mapping.at)}: ${reasonExcerpt(String(atValue))}`);

  const ipText = stringAt(record, mapping.clientIp);
  if (ipText === undefined) return fail(`missing field ${reasonExcerpt(mapping.clientIp)}`);
  if (typeof ipText !== 'string') return ipText;
  const clientIp = clientAddress(ipText);
  if (clientIp === null) return fail(`client is not an IP address: ${reasonExcerpt(ipText)}`);

  const hostText = mapping.host === undefined ? undefined : stringAt(record, mapping.host);
  if (typeof hostText === 'object') return hostText;

  let method = 'GET';
  if (mapping.method !== undefined) {
    const methodText = stringAt(record, mapping.method);
    if (methodText === undefined) return fail(`missing field ${reasonExcerpt(mapping.method)}`);
    if (typeof methodText !== 'string') return methodText;
    method = methodText;
  }

  const target = targetOf(record, mapping);
  if (typeof target !== 'string') return target;

  const statusValue = mapping.status === undefined ? null : valueAt(record, mapping.status);
  const status = statusOf(statusValue);
  if (status === undefined) return fail(`invalid status in ${reasonExcerpt(mapping.status ?? '')}: ${reasonExcerpt(String(statusValue))}`);

  const userAgent = stringAt(record, mapping.userAgent);
  if (typeof userAgent === 'object') return userAgent;

  return { at, host: hostText === undefined ? null : requestHost(hostText), clientIp, method, target, status, userAgent: userAgent ?? '' };
}

/**
 * The text that holds a JSON line's user-agent, for the import's cheap skip: the line itself. A
 * crawler's token that is not in the line cannot be in its user-agent; the converse does not hold
 * (the token may sit in another field), so a line that passes is parsed before anything is decided.
 * A token with `/` may miss a line whose writer escapes it as `\/` (PHP's json_encode does).
 */
export function jsonLineUserAgentText(line: string): string {
  return line;
}
