/**
 * HostGate: at most one request at a time per host key, waiters served first come, first
 * served. The fetch worker holds the gate of an origin's host around each fetch so that a site
 * never sees two of our requests at once, whatever the global concurrency. Pure promises: no
 * timers, no I/O; politeness delays are the worker's business.
 */

export type Release = () => void;

interface Waiter {
  grant: (release: Release) => void;
  cancel?: () => void;
}

export class GateAbortedError extends Error {
  constructor(readonly key: string) {
    super(`gave up waiting for host ${key}`);
    this.name = 'GateAbortedError';
  }
}

export class HostGate {
  /** A key is present while its gate is held; the array holds the waiters in arrival order. */
  readonly #queues = new Map<string, Waiter[]>();

  /**
   * Resolves with a release function once the caller holds the gate of `key`. Calling release
   * more than once does nothing. An aborted signal takes a waiter out of the queue (rejecting
   * with GateAbortedError); it does not affect a gate already held.
   */
  acquire(key: string, signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(new GateAbortedError(key));
    const queue = this.#queues.get(key);
    if (!queue) {
      this.#queues.set(key, []);
      return Promise.resolve(this.#releaser(key));
    }
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = { grant: resolve };
      if (signal) {
        const onAbort = () => {
          const index = queue.indexOf(waiter);
          if (index >= 0) queue.splice(index, 1);
          reject(new GateAbortedError(key));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        waiter.cancel = () => signal.removeEventListener('abort', onAbort);
      }
      queue.push(waiter);
    });
  }

  /** Runs `task` while holding the gate of `key`; the gate is released however the task ends. */
  async run<T>(key: string, task: () => Promise<T> | T, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(key, signal);
    try {
      return await task();
    } finally {
      release();
    }
  }

  /** True while someone holds the gate of `key`. */
  isBusy(key: string): boolean {
    return this.#queues.has(key);
  }

  /** Callers waiting for `key` (not counting the holder). */
  waiting(key: string): number {
    return this.#queues.get(key)?.length ?? 0;
  }

  /** Number of keys currently held. */
  get busyKeys(): number {
    return this.#queues.size;
  }

  #releaser(key: string): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const queue = this.#queues.get(key);
      const next = queue?.shift();
      if (!next) {
        this.#queues.delete(key);
        return;
      }
      next.cancel?.();
      next.grant(this.#releaser(key));
    };
  }
}
