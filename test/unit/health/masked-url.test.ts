/**
 * Connection URLs in messages and logs: passwords never shown, everything else as given, so an
 * operator still sees which host, port, user and database a process tried.
 */
import { describe, expect, it } from 'vitest';
import { maskUrlPassword } from '../../../src/health/masked-url.js';
import { isConnectionError, reasonOf } from '../../../src/health/service-probes.js';

describe('maskUrlPassword', () => {
  it.each([
    ['Redis, password only', 'redis://:s3cret@127.0.0.1:6399', 'redis://:***@127.0.0.1:6399'],
    ['Redis, user and password', 'redis://app:s3cret@redis.internal:6379/2', 'redis://app:***@redis.internal:6379/2'],
    ['Redis over TLS', 'rediss://default:p%40ss@cache.example:6380', 'rediss://default:***@cache.example:6380'],
    ['Postgres, user and password', 'postgres://audit:hunter2@db.internal:5432/robots', 'postgres://audit:***@db.internal:5432/robots'],
    ['Postgres, password in the query', 'postgresql://audit@db/robots?password=hunter2&sslmode=require', 'postgresql://audit@db/robots?password=***&sslmode=require'],
    ['no password: as given', 'postgres://postgres@127.0.0.1:5432/test', 'postgres://postgres@127.0.0.1:5432/test'],
    ['no credentials: as given', 'redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
    ['not a URL the parser reads: the credentials hidden all the same', 'redis://u:p@[bad', 'redis://***@[bad'],
  ])('%s', (_name, url, shown) => {
    expect(maskUrlPassword(url)).toBe(shown);
    expect(maskUrlPassword(url)).not.toMatch(/s3cret|hunter2|p%40ss/);
  });
});

/** An error as the socket layer makes them: a message and a code. */
function socketError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('reasonOf: the short reason of a connection failure', () => {
  it.each([
    ['refused: the code', socketError('connect ECONNREFUSED 127.0.0.1:6399', 'ECONNREFUSED'), 'ECONNREFUSED'],
    ['unknown host: the code', socketError('getaddrinfo ENOTFOUND redis.internal', 'ENOTFOUND'), 'ENOTFOUND'],
    ['every address refused (IPv6 and IPv4)', Object.assign(new AggregateError([socketError('a', 'ECONNREFUSED'), socketError('b', 'ECONNREFUSED')], ''), {}), 'ECONNREFUSED'],
    ['a server refusal (SQLSTATE is not a socket code): its message', Object.assign(new Error('password authentication failed for user "audit"'), { code: '28P01' }), 'password authentication failed for user "audit"'],
    ['a timeout', new Error('timeout expired'), 'no answer within 3000 ms'],
    ['a long message: its first line', new Error('WRONGPASS invalid username-password pair\n    at stack'), 'WRONGPASS invalid username-password pair'],
  ])('%s', (_name, err, reason) => {
    expect(reasonOf(err, 3000)).toBe(reason);
  });
});

describe('isConnectionError', () => {
  it.each([
    [socketError('connect ECONNREFUSED 127.0.0.1:6379', 'ECONNREFUSED'), true],
    [new Error('Connection is closed.'), true],
    [new Error("Stream isn't writeable and enableOfflineQueue options is false"), true],
    [new Error('Missing lock for job 12. moveToFinished'), false],
    [Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }), false],
  ])('%s: %s', (err, expected) => {
    expect(isConnectionError(err)).toBe(expected);
  });
});
