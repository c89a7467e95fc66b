import { describe, expect, it } from 'vitest';
import { FieldMappingError } from '../../../src/logs/json-lines.js';
import { detectLogFormat, LOG_FORMATS, logLineReader } from '../../../src/logs/log-formats.js';
import type { LogFormat } from '../../../src/logs/log-formats.js';
import { isLogLineError } from '../../../src/logs/log-request.js';

const COMBINED = '192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] "GET /robots.txt HTTP/1.1" 200 52 "-" "Googlebot/2.1"';
const VHOST = `example.com:443 ${COMBINED}`;
const IP_VHOST = `198.51.100.1 ${COMBINED}`;
const CLOUDFLARE = '{"EdgeStartTimestamp":1714564800,"ClientIP":"192.0.2.1","ClientRequestHost":"example.com","ClientRequestMethod":"GET","ClientRequestURI":"/robots.txt","EdgeResponseStatus":200,"ClientRequestUserAgent":"Googlebot/2.1"}';
const OTHER_JSON = '{"ts":1714564800,"ip":"192.0.2.1","uri":"/robots.txt","ua":"Googlebot/2.1"}';

describe('detectLogFormat: the format from the first lines', () => {
  it.each<[string, string[], LogFormat | null]>([
    ['combined', [COMBINED, COMBINED], 'combined'],
    ['vhost-combined with a port', [VHOST, VHOST], 'vhost-combined'],
    ['vhost-combined whose host is an IP address (both readings accept it)', [IP_VHOST], 'vhost-combined'],
    ['combined with a bad line among good ones', ['garbage', COMBINED, COMBINED], 'combined'],
    ['blank lines passed over', ['', '  ', COMBINED], 'combined'],
    ['Cloudflare Logpush', [CLOUDFLARE], 'cloudflare'],
    ['other JSON Lines', [OTHER_JSON, OTHER_JSON], 'jsonl'],
    ['nothing but blank lines', ['', ' '], null],
    ['no lines', [], null],
    ['text no format reads', ['hello world', 'foo bar'], null],
    ['JSON that is not an object', ['{not json', '[1]'], null],
  ])('%s', (_name, lines, format) => {
    expect(detectLogFormat(lines)).toBe(format);
  });
});

describe('logLineReader: one interface for every format', () => {
  it.each<[LogFormat, string]>([
    ['combined', COMBINED],
    ['vhost-combined', VHOST],
    ['cloudflare', CLOUDFLARE],
  ])('%s reads its line and finds the user-agent text', (format, line) => {
    const reader = logLineReader(format);
    const result = reader.parse(line);
    if (isLogLineError(result)) throw new Error(result.error);
    expect(result).toMatchObject({ clientIp: '192.0.2.1', target: '/robots.txt', userAgent: 'Googlebot/2.1' });
    expect(reader.userAgentOf(line)).toContain(result.userAgent);
  });

  it('jsonl reads through the mapping it is given', () => {
    const reader = logLineReader('jsonl', { at: 'ts', clientIp: 'ip', target: 'uri', userAgent: 'ua' });
    expect(reader.parse(OTHER_JSON)).toMatchObject({ target: '/robots.txt', userAgent: 'Googlebot/2.1' });
  });

  it('jsonl without a mapping is refused', () => {
    expect(() => logLineReader('jsonl')).toThrow(FieldMappingError);
  });

  it('every format has a reader', () => {
    for (const format of LOG_FORMATS.filter((f) => f !== 'jsonl')) expect(typeof logLineReader(format).parse).toBe('function');
  });
});
