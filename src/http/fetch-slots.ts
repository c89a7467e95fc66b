/**
 * At most `size` holders at once, whatever the number of jobs. A worker has two: its fetches in
 * flight (the bound on open sockets), and among them the fetches whose body grew past the small
 * size every fetch may read (the bound on body bytes held, read-body.ts). Waiters are served
 * first come, first served; an aborted signal takes a waiter out of the line.
 */
interface Waiter {
  grant: () => void;
  reject: (err: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export class FetchSlots {
  #free: number;
  readonly #waiters: Waiter[] = [];

  constructor(readonly size: number) {
    if (!Number.isSafeInteger(size) || size < 1) throw new RangeError('fetch slots: size must be a positive integer');
    this.#free = size;
  }

  /** Fetches in flight now. */
  get inUse(): number {
    return this.size - this.#free;
  }

  get waiting(): number {
    return this.#waiters.length;
  }

  /** Runs `task` in a slot. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.hold(signal);
    try {
      return await task();
    } finally {
      release();
    }
  }

  /** Takes a slot until the returned function is called (once; later calls do nothing). */
  async hold(signal?: AbortSignal): Promise<() => void> {
    await this.#acquire(signal);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#release();
    };
  }

  #acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#free > 0) {
      this.#free -= 1;
      return Promise.resolve();
    }
    return new Promise<void>((grant, reject) => {
      const waiter: Waiter = { grant, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const i = this.#waiters.indexOf(waiter);
          if (i >= 0) this.#waiters.splice(i, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.#waiters.push(waiter);
    });
  }

  #release(): void {
    const next = this.#waiters.shift();
    if (!next) {
      this.#free += 1;
      return;
    }
    if (next.onAbort) next.signal?.removeEventListener('abort', next.onAbort);
    next.grant();
  }
}
