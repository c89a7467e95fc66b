/**
 * What a worker or the scheduler does at start with what it read of Redis: refuse, warn, or start
 * saying what it found, under each value of ROBOTS_AUDIT_REDIS_CHECK.
 */
import { describe, expect, it } from 'vitest';
import type { RedisCheckMode } from '../../../src/config/env.js';
import { judgeRedis } from '../../../src/health/redis-check.js';
import type { RedisReading, RedisReadings } from '../../../src/health/redis-check.js';

const URL = 'redis://:***@cache:6379';

function read(readings: Partial<RedisReadings>): RedisReading {
  return { kind: 'read', readings: { via: 'CONFIG GET', evictionPolicy: 'noeviction', appendOnly: true, savePoints: '', ...readings } };
}

const SAFE_AOF = read({});
const SAFE_RDB = read({ appendOnly: false, savePoints: '3600 1 300 100 60 10000' });
const NO_PERSISTENCE = read({ appendOnly: false, savePoints: '' });
const EVICTS = read({ evictionPolicy: 'allkeys-lru' });
const EVICTS_VOLATILE = read({ evictionPolicy: 'volatile-lru' });
const EVICTS_NO_PERSISTENCE = read({ evictionPolicy: 'allkeys-lru', appendOnly: false, savePoints: '' });
const BY_INFO_AOF_OFF = read({ via: 'INFO', appendOnly: false, savePoints: null });

/** What the verdict comes to, in short: refused, warned (how many lines), or started quietly. */
function outcome(reading: RedisReading, mode: RedisCheckMode): string {
  const v = judgeRedis(reading, mode, URL);
  if (v.refusal !== null) return 'refuse';
  return v.warnings.length > 0 ? `warn ${v.warnings.length}` : 'start';
}

describe('the outcome under each setting', () => {
  it.each<[string, RedisReading, Record<RedisCheckMode, string>]>([
    ['noeviction and AOF', SAFE_AOF, { strict: 'start', standard: 'start', warn: 'start', off: 'start' }],
    ['noeviction and RDB save points', SAFE_RDB, { strict: 'start', standard: 'start', warn: 'start', off: 'start' }],
    ['noeviction, nothing on disk', NO_PERSISTENCE, { strict: 'refuse', standard: 'warn 1', warn: 'warn 1', off: 'start' }],
    ['allkeys-lru, AOF', EVICTS, { strict: 'refuse', standard: 'refuse', warn: 'warn 1', off: 'start' }],
    ['volatile-lru (job locks expire, so they may go)', EVICTS_VOLATILE, { strict: 'refuse', standard: 'refuse', warn: 'warn 1', off: 'start' }],
    ['allkeys-lru, nothing on disk', EVICTS_NO_PERSISTENCE, { strict: 'refuse', standard: 'refuse', warn: 'warn 2', off: 'start' }],
    ['INFO only: AOF off, save points unknown', BY_INFO_AOF_OFF, { strict: 'start', standard: 'start', warn: 'start', off: 'start' }],
    ['not answering (the outage log says so)', { kind: 'unreachable', reason: 'ECONNREFUSED' }, { strict: 'start', standard: 'start', warn: 'start', off: 'start' }],
    ['answering, nothing readable', { kind: 'unreadable', reason: 'CONFIG GET: NOPERM; INFO: NOPERM' }, { strict: 'warn 1', standard: 'warn 1', warn: 'warn 1', off: 'start' }],
  ])('%s', (_name, reading, expected) => {
    for (const mode of ['strict', 'standard', 'warn', 'off'] as const) expect([mode, outcome(reading, mode)]).toEqual([mode, expected[mode]]);
  });
});

describe('the lines, as an operator reads them', () => {
  it('eviction refused: what was found, why, the fix, and the setting that lets it start', () => {
    expect(judgeRedis(EVICTS, 'standard', URL).refusal).toBe(
      'Redis at redis://:***@cache:6379 may evict keys (maxmemory-policy allkeys-lru): an evicted key loses a queued job or the lock of a running one, and BullMQ needs noeviction. ' +
        "Fix: CONFIG SET maxmemory-policy noeviction, and the same in redis.conf or your service's parameters; or set ROBOTS_AUDIT_REDIS_CHECK=warn to start anyway",
    );
  });

  it('no persistence refused by strict: the lower setting starts it with a warning', () => {
    expect(judgeRedis(NO_PERSISTENCE, 'strict', URL).refusal).toBe(
      'Redis at redis://:***@cache:6379 keeps nothing on disk (appendonly no, no save points): a Redis restart forgets every queued job; ' +
        "the scheduler's reconcile loop queues them again from Postgres within a minute, so a restart costs time, not data. " +
        'Fix: CONFIG SET appendonly yes, and appendonly yes with appendfsync everysec in redis.conf; or set ROBOTS_AUDIT_REDIS_CHECK=standard to start with a warning',
    );
  });

  it('both refused by strict: one line naming both', () => {
    const { refusal } = judgeRedis(EVICTS_NO_PERSISTENCE, 'strict', URL);
    expect(refusal).toMatch(/^Redis at redis:\/\/:\*\*\*@cache:6379 may evict keys \(maxmemory-policy allkeys-lru\) and keeps nothing on disk \(appendonly no, no save points\): /);
    expect(refusal).toMatch(/Fix: CONFIG SET maxmemory-policy noeviction.*; CONFIG SET appendonly yes.*; or set ROBOTS_AUDIT_REDIS_CHECK=warn to start anyway$/);
    expect(refusal).not.toContain('\n');
  });

  it('no persistence under the default: a warning that says a restart costs time, not data, and names strict', () => {
    const v = judgeRedis(NO_PERSISTENCE, 'standard', URL);
    expect(v.warnings).toEqual([
      'Redis at redis://:***@cache:6379 keeps nothing on disk (appendonly no, no save points): a Redis restart forgets every queued job; ' +
        "the scheduler's reconcile loop queues them again from Postgres within a minute, so a restart costs time, not data. " +
        'To keep the queues across a restart: CONFIG SET appendonly yes, and appendonly yes with appendfsync everysec in redis.conf; ROBOTS_AUDIT_REDIS_CHECK=strict refuses such a Redis',
    ]);
    expect(v.notes).toEqual(['Redis at redis://:***@cache:6379: maxmemory-policy noeviction, appendonly no, no save points (read with CONFIG GET)']);
  });

  it('eviction under warn: started anyway, said so', () => {
    expect(judgeRedis(EVICTS, 'warn', URL).warnings).toEqual([expect.stringMatching(/^Redis at .* may evict keys \(maxmemory-policy allkeys-lru\): .*; started anyway \(ROBOTS_AUDIT_REDIS_CHECK=warn\)$/)]);
  });

  it('a safe Redis: one note of what was read, nothing else', () => {
    expect(judgeRedis(SAFE_RDB, 'strict', URL)).toEqual({
      refusal: null,
      warnings: [],
      notes: ['Redis at redis://:***@cache:6379: maxmemory-policy noeviction, appendonly no, save "3600 1 300 100 60 10000" (read with CONFIG GET)'],
    });
  });

  it('read through INFO: what it cannot show is said, not guessed', () => {
    expect(judgeRedis(BY_INFO_AOF_OFF, 'strict', URL).notes).toEqual([
      'Redis at redis://:***@cache:6379: maxmemory-policy noeviction, appendonly no, save not shown (read with INFO)',
      'Redis at redis://:***@cache:6379: its persistence could not be read whole (INFO does not show save points); AOF or RDB snapshots are recommended',
    ]);
  });

  it('nothing readable: a warning, and the process starts', () => {
    expect(judgeRedis({ kind: 'unreadable', reason: "CONFIG GET: NOPERM this user has no permissions to run the 'config|get' command; INFO: NOPERM" }, 'strict', URL)).toEqual({
      refusal: null,
      warnings: [
        "Redis at redis://:***@cache:6379 not checked for eviction and persistence: neither CONFIG GET nor INFO could be read (CONFIG GET: NOPERM this user has no permissions to run the 'config|get' command; INFO: NOPERM); starting. Make sure its maxmemory-policy is noeviction",
      ],
      notes: [],
    });
  });

  it('off: nothing read, nothing said', () => {
    expect(judgeRedis(EVICTS_NO_PERSISTENCE, 'off', URL)).toEqual({ refusal: null, warnings: [], notes: [] });
  });
});
