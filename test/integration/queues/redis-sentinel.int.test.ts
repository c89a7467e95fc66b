/**
 * REDIS_URL naming a Sentinel-managed Redis (`redis+sentinel://`): a primary, a replica and a
 * Sentinel of the test's own. Two failovers in a row: one forced while the primary answers (it
 * is demoted to a replica under its clients), then the new primary killed (SIGKILL, as a crashed
 * machine). Each time, the connections our code made before, the
 * pipeline's workers among them, go on against the new primary, and a run whose jobs are added
 * after the failover completes.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisProbe } from '../../../src/health/service-probes.js';
import { createRedis } from '../../../src/queues/connection.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import { startRedisSentinel, stopRedisSentinel } from '../../helpers/redis-sentinel.js';
import type { RedisSentinel } from '../../helpers/redis-sentinel.js';

let set: RedisSentinel | undefined;
let p: Pipeline | undefined;
let connection: Redis | undefined;

beforeAll(async () => {
  set = await startRedisSentinel();
  p = await startPipeline({ env: { REDIS_URL: set.url } });
  connection = createRedis(set.url, 'producer');
  connection.on('error', () => {});
});
afterAll(async () => {
  connection?.disconnect();
  await p?.close();
  await stopRedisSentinel(set);
});

/** The port of the server that answered: which one a connection is on. */
async function serverPort(redis: Redis): Promise<number> {
  return Number(/^tcp_port:(\d+)/m.exec(await redis.info('server'))?.[1]);
}

async function auditNight(at: string): Promise<void> {
  const run = await p!.cli(['audit', '--wait', '--at', at]);
  expect(run.code, run.stderr + run.stdout).toBe(0);
  expect(run.stdout).toContain('completed');
}

describe('Sentinel fails over: what our code connected follows the new primary', () => {
  it('forced, the old primary alive and demoted under its clients (Sentinel disconnects them): the next write reaches the new primary; the workers go on', async () => {
    const { url } = set!;
    expect(url).toMatch(/^redis\+sentinel:\/\/127\.0\.0\.1:\d+\/robots-audit-test$/);
    for (const name of ['s1', 's2']) p!.web.set(`${name}.test`, { status: 200, body: `User-agent: *\nDisallow: /${name}/\n` });
    for (const name of ['s1', 's2']) expect((await p!.cli(['sites', 'add', p!.origin(name)])).code).toBe(0);
    const first = await set!.primaryPort();
    expect(await serverPort(connection!)).toBe(first);
    await connection!.set('sentinel-test:first', 'kept');
    expect(await connection!.wait(1, 5_000)).toBe(1);
    await auditNight('2026-03-01T03:00:00Z');

    const { from, to } = await set!.forceFailover();
    expect(from).toBe(first);
    // The connection was on the demoted server, now a replica, which Sentinel made drop its clients.
    await connection!.set('sentinel-test:forced', 'written');
    expect(await serverPort(connection!)).toBe(to);
    expect(await connection!.mget('sentinel-test:first', 'sentinel-test:forced')).toEqual(['kept', 'written']);
    await auditNight('2026-03-02T03:00:00Z');
  });

  it('the primary killed (SIGKILL): a command on a connection made before, the workers, a command and the probe, against the promoted replica', async () => {
    const { url } = set!;
    const before = await set!.primaryPort();
    expect(await connection!.wait(1, 5_000)).toBe(1);
    const killed = await set!.killPrimary();
    expect(killed).toBe(before);
    const promoted = await set!.failedOver(killed);
    expect(promoted).not.toBe(before);

    // The connection made before: its next commands go to the new primary, writes included.
    await connection!.set('sentinel-test:after', 'written');
    expect(await serverPort(connection!)).toBe(promoted);
    expect(await connection!.mget('sentinel-test:first', 'sentinel-test:forced', 'sentinel-test:after')).toEqual(['kept', 'written', 'written']);

    // The workers started before the failovers take the jobs of a run queued after them.
    await auditNight('2026-03-03T03:00:00Z');
    const stats = await p!.cli(['stats']);
    expect(stats.code, stats.stderr).toBe(0);
    expect(await redisProbe(url, 2_000).check()).toEqual({ reachable: true });
  });
});
