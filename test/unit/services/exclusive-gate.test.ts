import { describe, expect, it } from 'vitest';
import { createExclusiveGate } from '../../../src/services/exclusive-gate.js';
import type { GateExit } from '../../../src/services/exclusive-gate.js';

/** An entry's promise and whether it has passed the gate yet. */
function entry(pass: Promise<GateExit>) {
  const e = { passed: false, exit: (): void => {} };
  void pass.then((exit) => {
    e.passed = true;
    e.exit = exit;
  });
  return e;
}

/** Lets every resolved promise's callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('shared entries', () => {
  it('pass together while no exclusive entry waits or runs', async () => {
    const gate = createExclusiveGate();
    const [a, b, c] = [entry(gate.shared()), entry(gate.shared()), entry(gate.shared())];
    await settle();
    expect([a.passed, b.passed, c.passed]).toEqual([true, true, true]);
    expect(gate.state()).toEqual({ shared: 3, sharedWaiting: 0, exclusive: 'none' });
  });

  it('leave once, however often their exit is called', async () => {
    const gate = createExclusiveGate();
    const a = entry(gate.shared());
    entry(gate.shared());
    await settle();
    a.exit();
    a.exit();
    expect(gate.state().shared).toBe(1);
  });
});

describe('an exclusive entry', () => {
  it('passes at once into an empty gate', async () => {
    const gate = createExclusiveGate();
    const x = entry(gate.exclusive()!);
    await settle();
    expect(x.passed).toBe(true);
    expect(gate.state()).toEqual({ shared: 0, sharedWaiting: 0, exclusive: 'running' });
  });

  it('waits until every shared entry in progress has left', async () => {
    const gate = createExclusiveGate();
    const [a, b] = [entry(gate.shared()), entry(gate.shared())];
    await settle();
    const x = entry(gate.exclusive()!);
    await settle();
    expect(gate.state().exclusive).toBe('waiting');
    a.exit();
    await settle();
    expect(x.passed).toBe(false);
    b.exit();
    await settle();
    expect(x.passed).toBe(true);
    expect(gate.state()).toEqual({ shared: 0, sharedWaiting: 0, exclusive: 'running' });
  });

  it('runs alone: shared entries that come meanwhile wait until it has left, then pass together', async () => {
    const gate = createExclusiveGate();
    const x = entry(gate.exclusive()!);
    await settle();
    const [a, b] = [entry(gate.shared()), entry(gate.shared())];
    await settle();
    expect([a.passed, b.passed]).toEqual([false, false]);
    expect(gate.state()).toEqual({ shared: 0, sharedWaiting: 2, exclusive: 'running' });
    x.exit();
    x.exit();
    await settle();
    expect([a.passed, b.passed]).toEqual([true, true]);
    expect(gate.state()).toEqual({ shared: 2, sharedWaiting: 0, exclusive: 'none' });
  });

  it('is not starved: shared entries that come while it waits queue behind it', async () => {
    const gate = createExclusiveGate();
    const first = entry(gate.shared());
    await settle();
    const x = entry(gate.exclusive()!);
    // A stream of shared entries, each arriving before the one before it has left.
    const stream = [entry(gate.shared()), entry(gate.shared()), entry(gate.shared())];
    await settle();
    expect(stream.map((s) => s.passed)).toEqual([false, false, false]);
    first.exit();
    await settle();
    expect(x.passed).toBe(true);
    expect(stream.map((s) => s.passed)).toEqual([false, false, false]);
    x.exit();
    await settle();
    expect(stream.map((s) => s.passed)).toEqual([true, true, true]);
  });

  it('does not starve shared entries either: those queued behind one go before the next exclusive entry', async () => {
    const gate = createExclusiveGate();
    const x = entry(gate.exclusive()!);
    await settle();
    const a = entry(gate.shared());
    await settle();
    x.exit();
    const y = entry(gate.exclusive()!);
    await settle();
    expect(a.passed).toBe(true);
    expect(y.passed).toBe(false);
    a.exit();
    await settle();
    expect(y.passed).toBe(true);
  });
});

describe('a second exclusive entry', () => {
  it.each([
    ['waiting', true],
    ['running', false],
  ])('is refused while the first is %s, and passes once it has left', async (state, sharedInProgress) => {
    const gate = createExclusiveGate();
    const a = entry(gate.shared());
    await settle();
    if (!sharedInProgress) a.exit();
    const x = entry(gate.exclusive()!);
    await settle();
    expect(gate.state().exclusive).toBe(state);
    expect(gate.exclusive()).toBeNull();
    a.exit();
    await settle();
    x.exit();
    const y = entry(gate.exclusive()!);
    await settle();
    expect(y.passed).toBe(true);
  });
});

describe('the onExclusive hook', () => {
  it('says when an exclusive entry claims the gate, from its wait, and when it leaves', async () => {
    const calls: boolean[] = [];
    const gate = createExclusiveGate({ onExclusive: (claimed) => calls.push(claimed) });
    const a = entry(gate.shared());
    await settle();
    const x = entry(gate.exclusive()!);
    expect(calls).toEqual([true]);
    expect(gate.exclusive()).toBeNull();
    expect(calls).toEqual([true]);
    a.exit();
    await settle();
    x.exit();
    x.exit();
    expect(calls).toEqual([true, false]);
  });
});
