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
    ['Sentinel, password only', 'redis+sentinel://:s3cret@10.0.0.1:26379,10.0.0.2:26379/mymaster', 'redis+sentinel://:***@10.0.0.1:26379,10.0.0.2:26379/mymaster'],
    ['Sentinel, user and password, database', 'redis+sentinel://audit:s3cret@h1,h2,h3/mymaster/2', 'redis+sentinel://audit:***@h1,h2,h3/mymaster/2'],
    ['Sentinel, an unencoded @ in the password', 'redis+sentinel://audit:p@ss%40s3cret@h1/mymaster', 'redis+sentinel://audit:***@h1/mymaster'],
    ["Sentinel, the Sentinels' password", 'redis+sentinel://h1:26379/mymaster?sentinelUsername=watch&sentinelPassword=s3cret', 'redis+sentinel://h1:26379/mymaster?sentinelUsername=watch&sentinelPassword=***'],
    ['Sentinel, no password: as given', 'redis+sentinel://audit@h1:26379/mymaster', 'redis+sentinel://audit@h1:26379/mymaster'],
    ['Sentinel, not readable (an unencoded ? in the password): all hidden but the scheme', 'redis+sentinel://:hunter?2@h1/mymaster', 'redis+sentinel://***'],
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
    [
      'no Sentinel reached: said so, with the last code',
      new Error('All sentinels are unreachable and retry is disabled. Last error: connect ECONNREFUSED 127.0.0.1:26390'),
      "no Sentinel answered with the primary's address (ECONNREFUSED)",
    ],
    ['Sentinels that do not know the master name', new Error('All sentinels are unreachable and retry is disabled.'), "no Sentinel answered with the primary's address"],
  ])('%s', (_name, err, reason) => {
    expect(reasonOf(err, 3000)).toBe(reason);
  });
});

describe('isConnectionError', () => {
  it.each([
    [socketError('connect ECONNREFUSED 127.0.0.1:6379', 'ECONNREFUSED'), true],
    [new Error('Connection is closed.'), true],
    [new Error("Stream isn't writeable and enableOfflineQueue options is false"), true],
    [new Error('All sentinels are unreachable. Retrying from scratch after 10ms.'), true],
    [new Error('Missing lock for job 12. moveToFinished'), false],
    [Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }), false],
  ])('%s: %s', (err, expected) => {
    expect(isConnectionError(err)).toBe(expected);
  });
});
