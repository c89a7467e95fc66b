/**
 * Is this Redis safe for the queues? What `worker` and `scheduler` read of it at start (its
 * eviction policy and its persistence, src/health/redis-settings.ts) turned into a verdict under
 * ROBOTS_AUDIT_REDIS_CHECK: start or not, and the lines to log. Pure: readings in, verdict out.
 *
 * - Eviction: BullMQ keeps jobs, their locks and its schedulers in keys; a Redis that evicts
 *   (any `maxmemory-policy` but `noeviction`, the `volatile-*` ones included: job locks expire)
 *   drops them silently when memory runs short, and jobs are lost or run twice. Refused unless
 *   the setting is `warn`: with a memory limit set later (`CONFIG SET maxmemory`), keys go
 *   without anything restarting.
 * - Persistence: with neither AOF nor RDB save points, a Redis restart forgets every queued job.
 *   Postgres holds the runs, so the scheduler's reconcile loop queues what was lost again within
 *   a minute (docs/architecture.md): a restart costs time, not data. A warning, refused by `strict`.
 *   RDB snapshots alone are enough here (what they miss is re-enqueued the same way).
 */
import type { RedisCheckMode } from '../config/env.js';

/** The setting that chooses; named in every line that says how to change the outcome. */
export const REDIS_CHECK_SETTING = 'ROBOTS_AUDIT_REDIS_CHECK';

export interface RedisReadings {
  /** How they were read: `CONFIG GET` (the server's configuration) or `INFO` (a managed service that refuses CONFIG). */
  via: 'CONFIG GET' | 'INFO';
  /** `maxmemory-policy`; null when not read. */
  evictionPolicy: string | null;
  /** `appendonly`; null when not read. */
  appendOnly: boolean | null;
  /** `save`: its save points, `''` for none; null when not read (INFO does not show them). */
  savePoints: string | null;
}

/** What reading Redis gave: its settings, or why there are none. */
export type RedisReading =
  | { kind: 'read'; readings: RedisReadings }
  /** No answer at all: the outage log says so; the settings are not checked. */
  | { kind: 'unreachable'; reason: string }
  /** It answers, but neither CONFIG nor INFO (an ACL that allows neither, say). */
  | { kind: 'unreadable'; reason: string };

export interface RedisVerdict {
  /** The process must not start: the one line it stops with. Null: it starts. */
  refusal: string | null;
  /** Lines for the log at warn level. */
  warnings: string[];
  /** Lines for the log at info level (what was read, what could not be). */
  notes: string[];
}

type Persistence = 'aof' | 'rdb' | 'none' | 'unknown';

function persistenceOf(r: RedisReadings): Persistence {
  if (r.appendOnly === true) return 'aof';
  if (r.savePoints !== null && r.savePoints.trim() !== '') return 'rdb';
  if (r.appendOnly === false && r.savePoints !== null) return 'none';
  return 'unknown';
}

function describe(r: RedisReadings): string {
  const save = r.savePoints === null ? 'save not shown' : r.savePoints.trim() === '' ? 'no save points' : `save "${r.savePoints.trim()}"`;
  const aof = r.appendOnly === null ? 'appendonly not shown' : `appendonly ${r.appendOnly ? 'yes' : 'no'}`;
  return `maxmemory-policy ${r.evictionPolicy ?? 'not shown'}, ${aof}, ${save} (read with ${r.via})`;
}

/** One unsafe setting: what it is, why it matters, how to fix it. */
interface Finding {
  found: string;
  consequence: string;
  fix: string;
}

function evictionFinding(policy: string): Finding {
  return {
    found: `may evict keys (maxmemory-policy ${policy})`,
    consequence: 'an evicted key loses a queued job or the lock of a running one, and BullMQ needs noeviction',
    fix: 'CONFIG SET maxmemory-policy noeviction, and the same in redis.conf or your service\'s parameters',
  };
}

const NO_PERSISTENCE: Finding = {
  found: 'keeps nothing on disk (appendonly no, no save points)',
  consequence: "a Redis restart forgets every queued job; the scheduler's reconcile loop queues them again from Postgres within a minute, so a restart costs time, not data",
  fix: 'CONFIG SET appendonly yes, and appendonly yes with appendfsync everysec in redis.conf',
};

/** The setting's value that would let a refused process start: eviction is refused by strict and standard alike. */
function lowerSetting(evicts: boolean): string {
  return evicts ? `${REDIS_CHECK_SETTING}=warn to start anyway` : `${REDIS_CHECK_SETTING}=standard to start with a warning`;
}

/** The verdict on what was read, under the setting's `mode`. `shownUrl` is REDIS_URL with its password masked. */
export function judgeRedis(reading: RedisReading, mode: RedisCheckMode, shownUrl: string): RedisVerdict {
  const verdict: RedisVerdict = { refusal: null, warnings: [], notes: [] };
  if (mode === 'off') return verdict;
  const at = `Redis at ${shownUrl}`;
  if (reading.kind === 'unreachable') {
    // The outage log names Redis and its URL already: this line only says what was not done.
    verdict.notes.push(`eviction policy and persistence of Redis not checked: it does not answer (${reading.reason}); starting`);
    return verdict;
  }
  if (reading.kind === 'unreadable') {
    verdict.warnings.push(`${at} not checked for eviction and persistence: neither CONFIG GET nor INFO could be read (${reading.reason}); starting. Make sure its maxmemory-policy is noeviction`);
    return verdict;
  }
  const r = reading.readings;
  verdict.notes.push(`${at}: ${describe(r)}`);
  const persistence = persistenceOf(r);
  const evicts = r.evictionPolicy !== null && r.evictionPolicy !== 'noeviction';
  const refused: Finding[] = [];
  if (evicts) {
    const finding = evictionFinding(r.evictionPolicy!);
    if (mode === 'warn') verdict.warnings.push(`${at} ${finding.found}: ${finding.consequence}. Fix: ${finding.fix}; started anyway (${REDIS_CHECK_SETTING}=warn)`);
    else refused.push(finding);
  }
  if (persistence === 'none') {
    if (mode === 'strict') refused.push(NO_PERSISTENCE);
    else verdict.warnings.push(`${at} ${NO_PERSISTENCE.found}: ${NO_PERSISTENCE.consequence}. To keep the queues across a restart: ${NO_PERSISTENCE.fix}; ${REDIS_CHECK_SETTING}=strict refuses such a Redis`);
  }
  if (r.evictionPolicy === null) verdict.notes.push(`${at}: its eviction policy could not be read; make sure it is noeviction`);
  if (persistence === 'unknown') verdict.notes.push(`${at}: its persistence could not be read whole (${r.via} does not show save points); AOF or RDB snapshots are recommended`);
  if (refused.length > 0) {
    verdict.refusal =
      `${at} ${refused.map((f) => f.found).join(' and ')}: ${refused.map((f) => f.consequence).join('; ')}. ` +
      `Fix: ${refused.map((f) => f.fix).join('; ')}; or set ${lowerSetting(evicts)}`;
  }
  return verdict;
}
