/**
 * REDIS_URL's forms: a Redis server's URL goes to ioredis as it is; a Sentinel URL becomes
 * ioredis' Sentinel options; a bad one is refused with what is wrong, never quoting the URL.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/env.js';
import { DEFAULT_SENTINEL_PORT, redisTargetOf, RedisUrlError, sentinelConnectionOptions } from '../../../src/config/redis-options.js';
import type { SentinelTarget } from '../../../src/config/redis-options.js';

describe('a Redis server: the URL as given, for ioredis to read', () => {
  it.each([
    'redis://127.0.0.1:6379',
    'redis://:s3cret@cache.internal:6380/2',
    'rediss://default:p%40ss@cache.example:6380?family=6',
    '/var/run/redis.sock',
    'REDIS://127.0.0.1',
  ])('%s', (url) => {
    expect(redisTargetOf(url)).toEqual({ kind: 'server', url });
  });
});

describe('a Sentinel URL: the Sentinels, the master name, the database and the credentials', () => {
  const sentinels = [
    { host: '10.0.0.1', port: 26379 },
    { host: '10.0.0.2', port: 26380 },
  ];
  it.each<[string, string, SentinelTarget]>([
    ['one Sentinel, its port', 'redis+sentinel://127.0.0.1:26390/mymaster', { sentinels: [{ host: '127.0.0.1', port: 26390 }], name: 'mymaster', db: 0 }],
    ['no port: Sentinel’s own', 'redis+sentinel://sentinel.internal/mymaster', { sentinels: [{ host: 'sentinel.internal', port: DEFAULT_SENTINEL_PORT }], name: 'mymaster', db: 0 }],
    ['three Sentinels, a database', 'redis+sentinel://10.0.0.1,10.0.0.2:26380,[::1]:26381/mymaster/3', { sentinels: [...sentinels, { host: '::1', port: 26381 }], name: 'mymaster', db: 3 }],
    ['a trailing slash after the master name', 'redis+sentinel://10.0.0.1,10.0.0.2:26380/mymaster/', { sentinels, name: 'mymaster', db: 0 }],
    ['a password for the Redis servers', 'redis+sentinel://:s3cret@10.0.0.1,10.0.0.2:26380/mymaster', { sentinels, name: 'mymaster', db: 0, password: 's3cret' }],
    ['an ACL user and password', 'redis+sentinel://audit:s3cret@10.0.0.1,10.0.0.2:26380/mymaster/1', { sentinels, name: 'mymaster', db: 1, username: 'audit', password: 's3cret' }],
    ['a user alone (as ioredis reads redis://)', 'redis+sentinel://audit@10.0.0.1,10.0.0.2:26380/mymaster', { sentinels, name: 'mymaster', db: 0, username: 'audit' }],
    ['escapes decoded; an unencoded @ stays in the password', 'redis+sentinel://a%3Ab:p@ss%2Fw+rd@10.0.0.1,10.0.0.2:26380/my%20master', { sentinels, name: 'my master', db: 0, username: 'a:b', password: 'p@ss/w+rd' }],
    [
      "the Sentinels' own credentials; a + is a +",
      'redis+sentinel://:s3cret@10.0.0.1,10.0.0.2:26380/mymaster?sentinelUsername=watch&sentinelPassword=wat%26ch+1',
      { sentinels, name: 'mymaster', db: 0, password: 's3cret', sentinelUsername: 'watch', sentinelPassword: 'wat&ch+1' },
    ],
    ['the scheme in capitals', 'REDIS+SENTINEL://10.0.0.1,10.0.0.2:26380/mymaster', { sentinels, name: 'mymaster', db: 0 }],
  ])('%s', (_name, url, sentinel) => {
    expect(redisTargetOf(url)).toEqual({ kind: 'sentinel', sentinel });
  });
});

describe('a bad Sentinel URL: what is wrong, and the form expected', () => {
  it.each([
    ['no host', 'redis+sentinel:///mymaster', 'no Sentinel host'],
    ['an empty host among several', 'redis+sentinel://h1,,h3/mymaster', 'Sentinel host 2 of 3 is empty'],
    ['a port that is not a number', 'redis+sentinel://h1:26379,h2:sentinel/mymaster', 'Sentinel host 2 of 2 has no port from 1 to 65535'],
    ['a port out of range', 'redis+sentinel://h1:65536/mymaster', 'the Sentinel host has no port from 1 to 65535'],
    ['a port left empty', 'redis+sentinel://h1:/mymaster', 'the Sentinel host has no port from 1 to 65535'],
    ['an IPv6 address without brackets', 'redis+sentinel://::1:26379/mymaster', 'the Sentinel host is not host or host:port'],
    ['no master name', 'redis+sentinel://h1:26379', 'the master name is missing'],
    ['an empty master name', 'redis+sentinel://h1:26379//2', 'the master name is missing'],
    ['a database that is not a number', 'redis+sentinel://h1:26379/mymaster/two', 'the database after the master name must be a number'],
    ['a path too long', 'redis+sentinel://h1:26379/mymaster/2/3', 'the path holds more than a master name and a database'],
    ['an unknown parameter', 'redis+sentinel://h1:26379/mymaster?password=x', 'a parameter other than sentinelUsername and sentinelPassword (an & in a password is written %26)'],
    ['a fragment', 'redis+sentinel://h1:26379/mymaster#x', 'a Sentinel URL has no #fragment'],
    ['a bad escape', 'redis+sentinel://:%zz@h1:26379/mymaster', 'the password has a bad %-escape'],
    ['no //', 'redis+sentinel:h1:26379/mymaster', 'not a redis+sentinel:// URL'],
    ['TLS to Sentinel', 'rediss+sentinel://h1:26379/mymaster', 'TLS to Sentinel (rediss+sentinel://) is not supported'],
  ])('%s', (_name, url, problem) => {
    let error: unknown;
    try {
      redisTargetOf(url);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RedisUrlError);
    const message = (error as Error).message;
    expect(message).toBe(`${problem} (expected redis+sentinel://[user:password@]host[:port][,host[:port]...]/master-name[/db])`);
  });

  it('never quotes the URL: a password with an unencoded ? may be read where a host was expected', () => {
    expect(() => redisTargetOf('redis+sentinel://:hunter?2@h1/mymaster')).toThrow(RedisUrlError);
    try {
      redisTargetOf('redis+sentinel://:hunter?2@h1/mymaster');
    } catch (err) {
      expect((err as Error).message).not.toContain('hunter');
    }
  });

  it('stops the process at start: loadConfig names REDIS_URL and the problem', () => {
    expect(() => loadConfig({ REDIS_URL: 'redis+sentinel://h1:26379' })).toThrow(
      /^invalid configuration:\n {2}REDIS_URL: the master name is missing \(expected redis\+sentinel:\/\/.*\)$/,
    );
    expect(loadConfig({ REDIS_URL: 'redis+sentinel://h1:26379/mymaster' }).REDIS_URL).toBe('redis+sentinel://h1:26379/mymaster');
  });
});

describe("ioredis' options for a Sentinel target", () => {
  const target: SentinelTarget = { sentinels: [{ host: 'h1', port: 26379 }], name: 'mymaster', db: 2, password: 's3cret', sentinelPassword: 'watch' };
  const options = sentinelConnectionOptions(target);

  it('asks the Sentinels for the primary of the master name, with both passwords', () => {
    expect(options).toMatchObject({ sentinels: [{ host: 'h1', port: 26379 }], name: 'mymaster', role: 'master', db: 2, password: 's3cret', sentinelPassword: 'watch' });
    expect(options).not.toHaveProperty('username');
  });

  it("no failover detector (its Sentinel connections print every error): a demoted primary is left on READONLY", () => {
    expect(options.failoverDetector).toBe(false);
  });

  it.each([
    ["READONLY You can't write against a read only replica.", 2],
    ['LOADING Redis is loading the dataset in memory', false],
    ['ERR unknown command', false],
  ])('reconnectOnError(%s): %s', (message, answer) => {
    expect(options.reconnectOnError!(new Error(message))).toBe(answer);
  });
});
