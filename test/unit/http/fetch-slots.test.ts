/**
 * FetchSlots: at most `size` fetches in flight in a process, first come first served; an aborted
 * waiter leaves the line without taking a slot.
 */
import { describe, expect, it } from 'vitest';
import { FetchSlots } from '../../../src/http/fetch-slots.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('FetchSlots', () => {
  it.each([0, -1, 1.5, Number.NaN])('refuses a size of %s', (size) => {
    expect(() => new FetchSlots(size)).toThrow(RangeError);
  });

  it('never more than `size` tasks at once, then the waiters in arrival order', async () => {
    const slots = new FetchSlots(2);
    const gates = Array.from({ length: 5 }, deferred);
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const done = gates.map((gate, i) =>
      slots.run(async () => {
        started.push(i);
        running++;
        most = Math.max(most, running);
        await gate.promise;
        running--;
      }),
    );
    await new Promise((r) => setImmediate(r));
    expect([slots.inUse, slots.waiting, started]).toEqual([2, 3, [0, 1]]);
    gates[1]!.resolve();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    for (const g of gates) g.resolve();
    await Promise.all(done);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
    expect([slots.inUse, slots.waiting]).toEqual([0, 0]);
  });

  it('a task that throws gives its slot back', async () => {
    const slots = new FetchSlots(1);
    await expect(slots.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await slots.run(async () => 'next')).toBe('next');
  });

  it('an aborted waiter leaves the line; the others keep their turn', async () => {
    const slots = new FetchSlots(1);
    const hold = deferred();
    const first = slots.run(() => hold.promise);
    const controller = new AbortController();
    const aborted = slots.run(async () => 'never', controller.signal);
    const third = slots.run(async () => 'third');
    controller.abort(new Error('deadline'));
    await expect(aborted).rejects.toThrow('deadline');
    expect(slots.waiting).toBe(1);
    hold.resolve();
    await first;
    expect(await third).toBe('third');
  });

  it('hold: a slot kept until its release, which gives it back once however often it is called', async () => {
    const slots = new FetchSlots(1);
    const release = await slots.hold();
    expect(slots.inUse).toBe(1);
    let second = false;
    const next = slots.hold().then((r) => {
      second = true;
      return r;
    });
    await new Promise((r) => setImmediate(r));
    expect([second, slots.waiting]).toEqual([false, 1]);
    release();
    release();
    const releaseNext = await next;
    expect([second, slots.inUse, slots.waiting]).toEqual([true, 1, 0]);
    releaseNext();
    expect(slots.inUse).toBe(0);
  });
});
