/**
 * Closing the queues while BullMQ still waits for Redis's first answers (the version check each
 * queue makes when created): a command that needed no Redis and ended at once, on a busy machine.
 * BullMQ drops a closing queue's listeners, so a start-up cut off by the connection closing next
 * would fail with nobody to hear it: an unhandled rejection. Redis's answers are held back here by
 * a loopback proxy, which puts the close exactly in that window.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createQueues } from '../../../src/queues/queues.js';
import { cleanupPrefix, uniquePrefix } from '../../helpers/test-queue.js';

const REPLY_DELAY_MS = 300;
const prefix = uniquePrefix();
let proxy: net.Server;
let port: number;

/** Passes bytes to Redis at once and Redis's replies back REPLY_DELAY_MS later, in order. */
function delayingProxy(): net.Server {
  return net.createServer((client) => {
    const upstream = net.connect(6379, '127.0.0.1');
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => setTimeout(() => client.writable && client.write(chunk), REPLY_DELAY_MS));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', () => setTimeout(end, REPLY_DELAY_MS)).on('error', end);
  });
}

beforeAll(async () => {
  proxy = delayingProxy();
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  port = (proxy.address() as AddressInfo).port;
});

afterAll(async () => {
  proxy.close();
  await cleanupPrefix('redis://127.0.0.1:6379', prefix);
});

it('queues closed while their start-up is unanswered: no unhandled rejection, the close waits for the answers', async () => {
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  process.on('unhandledRejection', onRejection);
  try {
    const redis = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: null });
    await once(redis, 'ready');
    // Created now, the queues send their version checks; the answers take REPLY_DELAY_MS.
    const queues = createQueues(redis, prefix, { siteAttempts: 3, jobBackoffMs: 1_000 });
    const started = Date.now();
    await queues.close();
    const closedAfter = Date.now() - started;
    redis.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 2 * REPLY_DELAY_MS));
    expect(rejections).toEqual([]);
    expect(closedAfter).toBeGreaterThanOrEqual(REPLY_DELAY_MS - 50);
  } finally {
    process.off('unhandledRejection', onRejection);
  }
});

it('issue 17: queues closed while their connection is still being made (connecting, connect): no unhandled rejection', async () => {
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  process.on('unhandledRejection', onRejection);
  const seen = new Set<string>();
  try {
    // Straight to Redis, closed 0-5 ms after being created: the close falls in every state of
    // the connection being made, `connect` (the socket open, ioredis's ready check under way)
    // among them. Before the fix about one close in three made there left four rejections.
    for (let i = 0; i < 60; i++) {
      const redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
      const queues = createQueues(redis, prefix, { siteAttempts: 3, jobBackoffMs: 1_000 });
      await new Promise((resolve) => setTimeout(resolve, i % 6));
      seen.add(redis.status);
      await queues.close();
      redis.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(seen).toContain('connect');
    expect(rejections).toEqual([]);
  } finally {
    process.off('unhandledRejection', onRejection);
  }
});
