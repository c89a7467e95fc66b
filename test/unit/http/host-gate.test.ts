import { describe, expect, it } from 'vitest';
import { GateAbortedError, HostGate } from '../../../src/http/host-gate.js';

/** A promise with its resolver, to finish tasks in a chosen order. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise<void>((r) => setImmediate(r));

describe('HostGate: one request at a time per host', () => {
  it('runs tasks of one host one after another, in arrival order', async () => {
    const gate = new HostGate();
    const events: string[] = [];
    const gates = [deferred(), deferred(), deferred()];
    const runs = gates.map((d, i) =>
      gate.run('a.example', async () => {
        events.push(`start ${i}`);
        await d.promise;
        events.push(`end ${i}`);
        return i;
      }),
    );
    await settle();
    expect(events).toEqual(['start 0']);
    expect(gate.waiting('a.example')).toBe(2);
    gates[2]!.resolve(); // finishing out of order changes nothing: 2 has not started
    gates[0]!.resolve();
    await settle();
    expect(events).toEqual(['start 0', 'end 0', 'start 1']);
    gates[1]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(events).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('lets different hosts run at the same time', async () => {
    const gate = new HostGate();
    const block = deferred();
    let running = 0;
    let peak = 0;
    const task = async () => {
      running++;
      peak = Math.max(peak, running);
      await block.promise;
      running--;
    };
    const all = Promise.all([gate.run('a', task), gate.run('b', task), gate.run('c', task)]);
    await settle();
    expect(peak).toBe(3);
    expect(gate.busyKeys).toBe(3);
    block.resolve();
    await all;
  });

  it('never runs two tasks of one host at once, whatever the load', async () => {
    const gate = new HostGate();
    const running = new Map<string, number>();
    let violations = 0;
    const task = (key: string) => async () => {
      running.set(key, (running.get(key) ?? 0) + 1);
      if (running.get(key)! > 1) violations++;
      await settle();
      running.set(key, running.get(key)! - 1);
    };
    await Promise.all(Array.from({ length: 60 }, (_, i) => gate.run(`host-${i % 4}`, task(`host-${i % 4}`))));
    expect(violations).toBe(0);
  });

  it('releases the gate when the task throws, and passes the error on', async () => {
    const gate = new HostGate();
    await expect(gate.run('a', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(gate.isBusy('a')).toBe(false);
    expect(await gate.run('a', () => 'next')).toBe('next');
  });

  it('forgets a host once idle', async () => {
    const gate = new HostGate();
    await gate.run('a', async () => {
      expect(gate.isBusy('a')).toBe(true);
    });
    expect(gate.isBusy('a')).toBe(false);
    expect(gate.busyKeys).toBe(0);
  });

  it('a release called twice does not let a third caller in early', async () => {
    const gate = new HostGate();
    const release = await gate.acquire('a');
    const second = gate.acquire('a');
    const third = gate.acquire('a');
    release();
    release();
    const releaseSecond = await second;
    let thirdIn = false;
    void third.then(() => (thirdIn = true));
    await settle();
    expect(thirdIn).toBe(false);
    releaseSecond();
    await third;
    expect(thirdIn).toBe(true);
  });

  it('an aborted waiter leaves the queue; the others keep their order', async () => {
    const gate = new HostGate();
    const release = await gate.acquire('a');
    const controller = new AbortController();
    const order: string[] = [];
    const leaving = gate.acquire('a', controller.signal);
    const staying = gate.acquire('a').then((r) => (order.push('staying'), r));
    controller.abort();
    await expect(leaving).rejects.toBeInstanceOf(GateAbortedError);
    expect(gate.waiting('a')).toBe(1);
    release();
    (await staying)();
    expect(order).toEqual(['staying']);
    expect(gate.isBusy('a')).toBe(false);
  });

  it('an already aborted signal is refused at once', async () => {
    const gate = new HostGate();
    await expect(gate.acquire('a', AbortSignal.abort())).rejects.toBeInstanceOf(GateAbortedError);
    expect(gate.isBusy('a')).toBe(false);
  });
});
