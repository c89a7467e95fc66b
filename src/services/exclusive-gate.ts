/**
 * A process's gate for the jobs that compute nights (batches and site jobs): ordinary jobs pass
 * it together (shared entries), a site job that stalled before passes it alone (an exclusive
 * entry). A stall means the process running the job died; the job may have killed it (a body
 * that exhausts memory), or shared the process with the one that did. Run alone, a job that dies
 * again dies by itself, and only it reaches SITE_MAX_STALLS: its process-mates never die twice
 * with it (docs/architecture.md, idempotency).
 *
 * Pure: no I/O and no clock, only promises the caller awaits.
 *
 * - A shared entry passes at once unless an exclusive entry is waiting or running; then it waits
 *   until that one has left. Waiting behind an exclusive entry that has not begun yet is what
 *   keeps it from being starved by a stream of shared entries.
 * - An exclusive entry waits until the shared entries in progress have left, then runs with
 *   nothing else in the gate.
 * - One exclusive entry at a time, waiting or running: a second one is refused (`null`), so that
 *   the caller hands its job back instead of holding it in the process. A job held here, even
 *   one only waiting, dies with the process; two once-stalled jobs held together would be the
 *   very case the gate exists to prevent.
 */

/** Leaves the gate; a second call does nothing. */
export type GateExit = () => void;

export interface ExclusiveGate {
  /** Resolves once an ordinary job may run: no exclusive entry waiting or running. */
  shared(): Promise<GateExit>;
  /**
   * Resolves once the job may run alone: every shared entry in progress has left. `null`, at
   * once, when another exclusive entry is already waiting or running.
   */
  exclusive(): Promise<GateExit> | null;
  /** Who is in the gate, for logs and tests. */
  state(): GateState;
}

export interface GateState {
  /** Shared entries in progress. */
  shared: number;
  /** Shared entries waiting behind an exclusive one. */
  sharedWaiting: number;
  exclusive: 'none' | 'waiting' | 'running';
}

export interface ExclusiveGateHooks {
  /**
   * Called with true when an exclusive entry starts waiting, and false when it leaves: the
   * process takes no new jobs of this kind meanwhile, since it could run none of them.
   */
  onExclusive?(claimed: boolean): void;
}

export function createExclusiveGate(hooks: ExclusiveGateHooks = {}): ExclusiveGate {
  let sharedIn = 0;
  let exclusive: GateState['exclusive'] = 'none';
  /** Lets the waiting exclusive entry in, once the last shared entry has left. */
  let admitExclusive: (() => void) | null = null;
  const sharedQueue: Array<() => void> = [];

  const once = (leave: () => void): GateExit => {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      leave();
    };
  };

  /** A shared entry's way out: the last one to leave lets the waiting exclusive entry in. */
  const sharedExit = (): GateExit =>
    once(() => {
      sharedIn -= 1;
      if (sharedIn === 0 && admitExclusive) {
        const admit = admitExclusive;
        admitExclusive = null;
        admit();
      }
    });

  const leaveExclusive = (): void => {
    exclusive = 'none';
    // The shared entries that queued behind it go in together, before any later exclusive entry.
    sharedIn += sharedQueue.length;
    for (const admit of sharedQueue.splice(0)) admit();
    hooks.onExclusive?.(false);
  };

  return {
    shared() {
      if (exclusive === 'none') {
        sharedIn += 1;
        return Promise.resolve(sharedExit());
      }
      return new Promise<GateExit>((resolve) => sharedQueue.push(() => resolve(sharedExit())));
    },
    exclusive() {
      if (exclusive !== 'none') return null;
      exclusive = 'waiting';
      hooks.onExclusive?.(true);
      const run = (): GateExit => {
        exclusive = 'running';
        return once(leaveExclusive);
      };
      if (sharedIn === 0) return Promise.resolve(run());
      return new Promise<GateExit>((resolve) => (admitExclusive = () => resolve(run())));
    },
    state: () => ({ shared: sharedIn, sharedWaiting: sharedQueue.length, exclusive }),
  };
}
