/**
 * Failed logins counted per client: past `limit` failures within a window, the client is told
 * to wait (429 with Retry-After) until its oldest failure leaves the window. Clients are kept in
 * memory, at most `maxClients` of them (the least recent go first), so a flood of addresses
 * cannot grow the process. Pure given its clock.
 */

export interface FailureThrottleOptions {
  /** Failures a client may make within the window. */
  limit: number;
  windowMs: number;
  /** Clients remembered at most. */
  maxClients?: number;
  now?: () => number;
}

/** Clients remembered by default: far more than a dashboard's users, little memory. */
const DEFAULT_MAX_CLIENTS = 10_000;

export class FailureThrottle {
  private readonly failures = new Map<string, number[]>();
  private readonly maxClients: number;
  private readonly now: () => number;

  constructor(private readonly options: FailureThrottleOptions) {
    this.maxClients = options.maxClients ?? DEFAULT_MAX_CLIENTS;
    this.now = options.now ?? Date.now;
  }

  /** Milliseconds the client must wait before trying again; 0 when it may try now. */
  waitMs(client: string): number {
    const recent = this.recent(client);
    if (recent.length < this.options.limit) return 0;
    return Math.max(1, recent[0]! + this.options.windowMs - this.now());
  }

  /** Records a failure of the client. */
  fail(client: string): void {
    const recent = this.recent(client);
    recent.push(this.now());
    // Only the last `limit` failures decide when the client may try again.
    if (recent.length > this.options.limit) recent.splice(0, recent.length - this.options.limit);
    this.failures.delete(client);
    this.failures.set(client, recent);
    if (this.failures.size > this.maxClients) this.failures.delete(this.failures.keys().next().value!);
  }

  private recent(client: string): number[] {
    const since = this.now() - this.options.windowMs;
    const kept = (this.failures.get(client) ?? []).filter((t) => t > since);
    if (kept.length === 0) this.failures.delete(client);
    return kept;
  }
}
