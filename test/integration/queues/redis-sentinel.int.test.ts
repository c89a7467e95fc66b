/**
 * REDIS_URL naming a Sentinel-managed Redis (`redis+sentinel://`): a primary, a replica and a
 * Sentinel of the test's own. The primary is killed (SIGKILL, as a crashed machine); Sentinel
 * promotes the replica; the connections our code made before, the pipeline's workers among them,
 * go on against the new primary, and a run whose jobs are added after the failover completes.
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

describe('Sentinel promotes the replica: what our code connected follows it', () => {
  it('a command on a connection made before the failover, the workers, a command and the probe, against the new primary', async () => {
    const { url } = set!;
    expect(url).toMatch(/^redis\+sentinel:\/\/127\.0\.0\.1:\d+\/robots-audit-test$/);
    for (const name of ['s1', 's2']) p!.web.set(`${name}.test`, { status: 200, body: `User-agent: *\nDisallow: /${name}/\n` });
    for (const name of ['s1', 's2']) expect((await p!.cli(['sites', 'add', p!.origin(name)])).code).toBe(0);

    // Before: the primary answers, and what it holds reaches the replica.
    const first = await set!.primaryPort();
    expect(await serverPort(connection!)).toBe(first);
    await connection!.set('sentinel-test:before', 'kept');
    expect(await connection!.wait(1, 5_000)).toBe(1);
    await auditNight('2026-03-01T03:00:00Z');

    const killed = await set!.killPrimary();
    expect(killed).toBe(first);
    const promoted = await set!.failedOver(killed);
    expect(promoted).not.toBe(first);

    // The connection made before: its next commands go to the new primary, writes included.
    await connection!.set('sentinel-test:after', 'written');
    expect(await serverPort(connection!)).toBe(promoted);
    expect(await connection!.mget('sentinel-test:before', 'sentinel-test:after')).toEqual(['kept', 'written']);

    // The workers started before the failover take the jobs of a run queued after it.
    await auditNight('2026-03-02T03:00:00Z');
    const stats = await p!.cli(['stats']);
    expect(stats.code, stats.stderr).toBe(0);
    expect(await redisProbe(url, 2_000).check()).toEqual({ reachable: true });
  });
});
