import { describe, expect, it } from 'vitest';
import { errorCodeOf, errorMessageOf, outcomeForStatus, FOLLOWED_REDIRECT_STATUSES } from '../../../src/http/outcome.js';
import type { FetchOutcome } from '../../../src/http/outcome.js';

describe('R-10..R-13, D-4: outcome by final status', () => {
  it.each<[number, FetchOutcome, string]>([
    [200, 'ok', 'R-10'],
    [204, 'ok', 'R-10'],
    [299, 'ok', 'R-10'],
    [400, 'unavailable', 'R-12'],
    [401, 'unavailable', 'R-12'],
    [403, 'unavailable', 'R-12'],
    [404, 'unavailable', 'R-12'],
    [410, 'unavailable', 'R-12'],
    [429, 'rate_limited', 'D-4'],
    [499, 'unavailable', 'R-12'],
    [500, 'server_error', 'R-13'],
    [503, 'server_error', 'R-13'],
    [599, 'server_error', 'R-13'],
    [100, 'network_error', 'R-15 invalid response'],
    [199, 'network_error', 'R-15 invalid response'],
    [304, 'network_error', 'R-15 invalid response'],
    [600, 'network_error', 'R-15 invalid response'],
  ])('%i -> %s (%s)', (status, outcome) => {
    expect(outcomeForStatus(status)).toBe(outcome);
  });

  it('R-11: follows 301, 302, 303, 307 and 308 only', () => {
    expect([...FOLLOWED_REDIRECT_STATUSES].sort()).toEqual([301, 302, 303, 307, 308]);
  });
});

describe('R-15: error codes of failed requests', () => {
  const coded = (code: string, message = code) => Object.assign(new Error(message), { code });
  const parserError = (message: string) => Object.assign(new Error(message), { name: 'HTTPParserError', code: undefined });

  it.each<[string, unknown, string]>([
    ['its own code', coded('ECONNREFUSED'), 'ECONNREFUSED'],
    ['undici codes as they are', coded('UND_ERR_HEADERS_TIMEOUT'), 'UND_ERR_HEADERS_TIMEOUT'],
    ['the code of a cause', new Error('wrapped', { cause: coded('ECONNRESET') }), 'ECONNRESET'],
    ['the first error of happy eyeballs', new AggregateError([coded('ETIMEDOUT'), coded('ENETUNREACH')]), 'ETIMEDOUT'],
    ['undici parser error without a code: chunk size', parserError('Response does not match the HTTP/1.1 protocol (Invalid character in chunk size)'), 'HPE_INVALID_CHUNK_SIZE'],
    ['undici parser error without a code: content-length', parserError('Response does not match the HTTP/1.1 protocol (Invalid character in Content-Length)'), 'HPE_INVALID_CONTENT_LENGTH'],
    ['undici parser error without a code: other', parserError('Response does not match the HTTP/1.1 protocol (Pause on CONNECT/Upgrade)'), 'HPE_INVALID_RESPONSE'],
    ['no code at all', new Error('odd'), 'UNKNOWN'],
    ['not an error', 'a string', 'UNKNOWN'],
  ])('%s', (_name, err, code) => {
    expect(errorCodeOf(err)).toBe(code);
  });

  it('messages: the error message, or every attempt of an AggregateError', () => {
    expect(errorMessageOf(new Error('refused'))).toBe('refused');
    expect(errorMessageOf(new AggregateError([new Error('a'), new Error('b')]))).toBe('a; b');
    expect(errorMessageOf(42)).toBe('42');
  });
});
