/**
 * One line when a service goes away, one when it is back, however many connections, queues and
 * probes report the same outage in between.
 */
import { describe, expect, it } from 'vitest';
import { createOutageLog } from '../../../src/health/outage-log.js';

function recorder() {
  const lines: { fields: Record<string, unknown>; message: string }[] = [];
  return { lines, log: { warn: (fields: Record<string, unknown>, message: string) => void lines.push({ fields, message }) } };
}

describe('createOutageLog', () => {
  it('logs the first failure of an outage and its end, nothing in between', () => {
    const { lines, log } = recorder();
    let now = 1_000;
    const outage = createOutageLog('Redis', 'redis://:s3cret@10.0.0.5:6379', log as never, () => now);
    outage.failed('ECONNREFUSED');
    outage.failed('ECONNREFUSED');
    outage.failed('Connection is closed.');
    expect(outage.down).toBe(true);
    now += 12_400;
    outage.recovered();
    outage.recovered();
    expect(outage.down).toBe(false);
    expect(lines.map((l) => l.message)).toEqual([
      'Redis at redis://:***@10.0.0.5:6379 unreachable: ECONNREFUSED; retrying',
      'Redis at redis://:***@10.0.0.5:6379 reachable again after 12 s',
    ]);
    expect(lines[0]!.fields).toEqual({ dependency: 'Redis', url: 'redis://:***@10.0.0.5:6379', reason: 'ECONNREFUSED' });
    expect(JSON.stringify(lines)).not.toContain('s3cret');
  });

  it('two outages: two pairs of lines', () => {
    const { lines, log } = recorder();
    const outage = createOutageLog('Postgres', 'postgres://db/robots', log as never);
    for (let i = 0; i < 2; i++) {
      outage.failed('ECONNREFUSED');
      outage.failed('ECONNRESET');
      outage.recovered();
    }
    expect(lines.map((l) => l.message.split(' ').slice(3, 4)[0])).toEqual(['unreachable:', 'reachable', 'unreachable:', 'reachable']);
  });

  it('a service that was never down: recovering says nothing', () => {
    const { lines, log } = recorder();
    createOutageLog('Postgres', 'postgres://db/robots', log as never).recovered();
    expect(lines).toEqual([]);
  });
});
