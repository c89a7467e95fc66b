/**
 * The bounded thread pool (src/offload/thread-pool.ts): a task answers through it; one past its
 * deadline, one that exhausts its heap and one turned away by a full queue each come back as what
 * they are, in bounded time, and the pool goes on answering; the caller's event loop is free while
 * a task spins.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createThreadPool, threadModule } from '../../../src/offload/thread-pool.js';

const MODULE = new URL('./sample.thread.js', import.meta.url);
const pools: { close(): Promise<void> }[] = [];
const pool = (options: Partial<Parameters<typeof createThreadPool>[0]> = {}) => {
  const p = createThreadPool({ module: MODULE, threads: 1, timeoutMs: 10_000, heapMb: 64, maxQueue: 4, ...options });
  pools.push(p);
  return p;
};

afterAll(async () => {
  for (const p of pools) await p.close();
});

describe('the task module', () => {
  it('is the .ts source, loaded through tsx-thread.mjs, when no compiled .js sits beside it', () => {
    const found = threadModule(MODULE);
    expect(found.filename.endsWith('/src/offload/tsx-thread.mjs')).toBe(true);
    expect(found.workerData?.taskModule.endsWith('/test/integration/offload/sample.thread.ts')).toBe(true);
  });

  it('a module that is not there is refused at once', () => {
    expect(() => threadModule(new URL('./missing.thread.js', import.meta.url))).toThrow(/no task module/);
  });
});

describe('a task', () => {
  it('answers with its value, its input and output cloned across', async () => {
    const done = await pool().run<{ text: string; bytes: Uint8Array }, { text: string; length: number }>('echo', { text: 'gptbot', bytes: new Uint8Array(3) });
    expect(done).toMatchObject({ ok: true, value: { text: 'GPTBOT', length: 3 } });
  });

  it('past its deadline is stopped and said so, and the pool answers the next one', async () => {
    const p = pool({ timeoutMs: 1_500 });
    const started = Date.now();
    const done = await p.run<number, number>('spin', 60_000);
    expect(done).toMatchObject({ ok: false, reason: 'timeout', message: 'took longer than 1.5 s' });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await p.run('echo', { text: 'x', bytes: new Uint8Array() })).toMatchObject({ ok: true });
  });

  it('keeps the event loop free while it spins in its thread', async () => {
    const p = pool();
    // The thread is up before the timing starts.
    await p.run('echo', { text: '', bytes: new Uint8Array() });
    const spinning = p.run<number, number>('spin', 1_500);
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(Date.now()), 50);
    await spinning;
    clearInterval(timer);
    // Held for 1.5 s, the loop would have ticked once or twice; free, about 30 times.
    expect(ticks.length).toBeGreaterThan(10);
  });

  it('that exhausts its heap loses its thread, not the process', async () => {
    const p = pool({ heapMb: 32 });
    const done = await p.run('hog', null);
    expect(done).toMatchObject({ ok: false, reason: 'memory', message: 'needed more than 32 MB of memory' });
    expect(await p.run('echo', { text: 'after', bytes: new Uint8Array() })).toMatchObject({ ok: true, value: { text: 'AFTER' } });
  });

  it('beyond a full queue is turned away at once', async () => {
    const p = pool({ maxQueue: 1, timeoutMs: 10_000 });
    await p.run('echo', { text: '', bytes: new Uint8Array() });
    const started = Date.now();
    const done = await Promise.all(Array.from({ length: 6 }, () => p.run('spin', 500)));
    expect(done.filter((d) => !d.ok).map((d) => !d.ok && d.reason)).toContain('busy');
    expect(done.every((d) => d.ok || d.reason === 'busy')).toBe(true);
    // Those turned away did not wait their turn: six tasks of 0.5 s did not take 3 s.
    expect(Date.now() - started).toBeLessThan(2_900);
  });

  it('that throws is an error with its message', async () => {
    expect(await pool().run('fail', 'no such rule')).toMatchObject({ ok: false, reason: 'error', message: 'no such rule' });
  });

  it('that the module does not have is an error', async () => {
    expect(await pool().run('toString', null)).toMatchObject({ ok: false, reason: 'error', message: 'no task "toString" in this module' });
  });
});
