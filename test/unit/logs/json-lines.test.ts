import { describe, expect, it } from 'vitest';
import { CLOUDFLARE_LOGPUSH_HTTP, FieldMappingError, parseFieldMapping, parseJsonLine } from '../../../src/logs/json-lines.js';
import type { JsonFieldMapping } from '../../../src/logs/json-lines.js';
import { isLogLineError } from '../../../src/logs/log-request.js';

/** A Logpush http_requests record, with the timestamp and any field overridden. */
function logpush(fields: Record<string, unknown>): string {
  return JSON.stringify({
    EdgeStartTimestamp: '2024-05-01T12:00:00Z',
    ClientRequestHost: 'Example.com',
    ClientIP: '2001:db8::1',
    ClientRequestMethod: 'GET',
    ClientRequestURI: '/a?b=c',
    EdgeResponseStatus: 200,
    ClientRequestUserAgent: 'Mozilla/5.0 (compatible; GPTBot/1.0)',
    RayID: '8a1b2c3d4e5f6789',
    ...fields,
  });
}

describe('Cloudflare Logpush (http_requests), each timestamp format', () => {
  // The timestamp as JSON text, as Logpush writes it: a nanosecond count is past 2^53.
  it.each([
    ['rfc3339', '"2024-05-01T12:00:00Z"', '2024-05-01T12:00:00.000Z'],
    ['rfc3339 with a fraction and an offset', '"2024-05-01T14:00:00.123456789+02:00"', '2024-05-01T12:00:00.123Z'],
    ['unix (seconds)', '1714564800', '2024-05-01T12:00:00.000Z'],
    ['unixnano', '1714564800123456789', '2024-05-01T12:00:00.123Z'],
    ['milliseconds', '1714564800123', '2024-05-01T12:00:00.123Z'],
    ['microseconds', '1714564800123456', '2024-05-01T12:00:00.123Z'],
    ['seconds with a fraction (Caddy)', '1714564800.5', '2024-05-01T12:00:00.500Z'],
    ['seconds as digits', '"1714564800"', '2024-05-01T12:00:00.000Z'],
    ['nanoseconds as digits', '"1714564800123456789"', '2024-05-01T12:00:00.123Z'],
  ])('%s', (_name, timestampJson, iso) => {
    const line = logpush({ EdgeStartTimestamp: 0 }).replace('"EdgeStartTimestamp":0', `"EdgeStartTimestamp":${timestampJson}`);
    const result = parseJsonLine(line, CLOUDFLARE_LOGPUSH_HTTP);
    if (isLogLineError(result)) throw new Error(result.error);
    expect(result.at.toISOString()).toBe(iso);
  });

  it('reads every field of the preset', () => {
    expect(parseJsonLine(logpush({}), CLOUDFLARE_LOGPUSH_HTTP)).toEqual({
      at: new Date('2024-05-01T12:00:00Z'),
      host: 'example.com',
      clientIp: '2001:db8::1',
      method: 'GET',
      target: '/a?b=c',
      status: 200,
      userAgent: 'Mozilla/5.0 (compatible; GPTBot/1.0)',
    });
  });

  it('keeps control characters in the user-agent as data', () => {
    expect(parseJsonLine(logpush({ ClientRequestUserAgent: '\u001b[31mred' }), CLOUDFLARE_LOGPUSH_HTTP)).toMatchObject({ userAgent: '\u001b[31mred' });
  });
});

const CUSTOM: JsonFieldMapping = {
  at: 'time',
  host: 'request.host',
  clientIp: 'request.remote_ip',
  method: 'request.method',
  path: 'request.path',
  query: 'request.query',
  status: 'status',
  userAgent: 'request.headers.user_agent',
};

function custom(request: Record<string, unknown>, rest: Record<string, unknown> = {}): string {
  return JSON.stringify({
    time: '2024-05-01T12:00:00Z',
    status: '404',
    request: { host: 'shop.example.com:8443', remote_ip: '192.0.2.1', method: 'HEAD', path: '/p', query: 'x=1', headers: { user_agent: 'ClaudeBot/1.0' }, ...request },
    ...rest,
  });
}

describe('a custom mapping with dotted paths', () => {
  it.each([
    ['path and query joined', custom({}), { host: 'shop.example.com', clientIp: '192.0.2.1', method: 'HEAD', target: '/p?x=1', status: 404, userAgent: 'ClaudeBot/1.0' }],
    ['a query that keeps its own ?', custom({ query: '?x=1' }), { target: '/p?x=1' }],
    ['an empty query', custom({ query: '' }), { target: '/p' }],
    ['no query field', custom({ query: undefined }), { target: '/p' }],
    ['no host: null', custom({ host: undefined }), { host: null }],
    ['status null', custom({}, { status: null }), { status: null }],
    ['status as a number', custom({}, { status: 301 }), { status: 301 }],
    ['no user-agent: empty', custom({ headers: {} }), { userAgent: '' }],
    ['an IPv6 client in brackets', custom({ remote_ip: '[2001:db8::5]' }), { clientIp: '2001:db8::5' }],
  ])('%s', (_name, text, expected) => {
    expect(parseJsonLine(text, CUSTOM)).toMatchObject(expected);
  });

  it('finds a name that holds dots itself before walking the path', () => {
    const mapping: JsonFieldMapping = { at: 'ts', clientIp: 'ip', target: 'uri', userAgent: 'http.user_agent' };
    expect(parseJsonLine('{"ts":1714564800,"ip":"192.0.2.1","uri":"/","http.user_agent":"Bingbot"}', mapping)).toMatchObject({ userAgent: 'Bingbot', method: 'GET', host: null, status: null });
  });
});

describe('lines that are not requests, with their reasons', () => {
  it.each([
    ['an empty line', '', 'empty line'],
    ['not JSON', 'GET / HTTP/1.1', 'not JSON: "GET / HTTP/1.1"'],
    ['JSON cut short', logpush({}).slice(0, 40), /^not JSON: "\{/],
    ['a JSON array instead of an object', '[1,2]', 'not a JSON object but an array'],
    ['a JSON string', '"x"', 'not a JSON object but a string'],
    ['a missing timestamp', logpush({ EdgeStartTimestamp: undefined }), 'missing field "EdgeStartTimestamp"'],
    ['a timestamp that is not one', logpush({ EdgeStartTimestamp: 'yesterday' }), 'invalid timestamp in "EdgeStartTimestamp": "yesterday"'],
    ['a date that does not exist', logpush({ EdgeStartTimestamp: '2024-02-30T00:00:00Z' }), /^invalid timestamp/],
    ['a missing client', logpush({ ClientIP: undefined }), 'missing field "ClientIP"'],
    ['a client of the wrong type', logpush({ ClientIP: 3221225985 }), 'field "ClientIP" is a number, not a string'],
    ['a client that is not an address', logpush({ ClientIP: 'example.com' }), 'client is not an IP address: "example.com"'],
    ['a missing target', logpush({ ClientRequestURI: undefined }), 'missing field "ClientRequestURI"'],
    ['a user-agent of the wrong type', logpush({ ClientRequestUserAgent: ['a'] }), 'field "ClientRequestUserAgent" is an array, not a string'],
    ['a status that is not one', logpush({ EdgeResponseStatus: 'OK' }), 'invalid status in "EdgeResponseStatus": "OK"'],
  ])('%s', (_name, text, reason) => {
    const result = parseJsonLine(text, CLOUDFLARE_LOGPUSH_HTTP);
    expect(isLogLineError(result) ? result.error : result).toMatch(typeof reason === 'string' ? new RegExp(`^${reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : reason);
  });
});

describe('parseFieldMapping: a user\'s --fields', () => {
  it.each([
    ['the required keys', 'at=ts,clientIp=ip,target=uri,userAgent=ua', { at: 'ts', clientIp: 'ip', target: 'uri', userAgent: 'ua' }],
    ['path and query, dotted, with spaces', ' at = time , clientIp=req.ip, path=req.path,query=req.q, userAgent=req.headers.ua, status=s, host=h, method=m ', {
      at: 'time', clientIp: 'req.ip', path: 'req.path', query: 'req.q', userAgent: 'req.headers.ua', status: 's', host: 'h', method: 'm',
    }],
  ])('%s', (_name, spec, expected) => {
    expect(parseFieldMapping(spec)).toEqual(expected);
  });

  it.each([
    ['an unknown key', 'at=ts,clientIp=ip,target=uri,userAgent=ua,referer=r', /^unknown key "referer" in --fields \(known: at, host/],
    ['a key without a name', 'at=,clientIp=ip,target=uri,userAgent=ua', '--fields: at has no field name (write at=<name>)'],
    ['a key given twice', 'at=a,at=b,clientIp=ip,target=uri,userAgent=ua', '--fields: at is given twice'],
    ['the required keys missing', 'host=h', '--fields is missing at, clientIp, userAgent, target (or path)'],
    ['target and path both', 'at=ts,clientIp=ip,target=uri,path=p,userAgent=ua', /not both$/],
    ['target and query both', 'at=ts,clientIp=ip,target=uri,query=q,userAgent=ua', /not both$/],
  ])('refuses %s', (_name, spec, message) => {
    expect(() => parseFieldMapping(spec)).toThrow(FieldMappingError);
    expect(() => parseFieldMapping(spec)).toThrow(message);
  });
});
