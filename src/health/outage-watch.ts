/**
 * Workers and the scheduler do not stop when Postgres or Redis goes away: their jobs are retried
 * and the reconcile loop catches up. What an operator needs is to know: every few seconds each
 * service is asked whether it answers, and its outage log says when that changes. The same
 * question, asked in a loop, makes a process starting before Postgres wait for it instead of
 * exiting.
 */
import type { OutageLog } from './outage-log.js';
import type { ServiceProbe } from './service-probes.js';

export interface WatchedService {
  probe: ServiceProbe;
  outage: OutageLog;
}

async function checkOnce({ probe, outage }: WatchedService): Promise<boolean> {
  const result = await probe.check();
  if (result.reachable) outage.recovered();
  else outage.failed(result.reason);
  return result.reachable;
}

/** Checks every service each `intervalMs` until stopped; a check still running skips the next tick. */
export function watchServices(services: readonly WatchedService[], intervalMs: number): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void Promise.all(services.map(checkOnce)).finally(() => (running = false));
  }, intervalMs);
  // The watch alone never keeps a process alive.
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Resolves true once the service answers, false if `signal` aborts first; each failed try goes to its outage log. */
export async function waitUntilReachable(service: WatchedService, intervalMs: number, signal?: AbortSignal): Promise<boolean> {
  for (;;) {
    if (signal?.aborted) return false;
    if (await checkOnce(service)) return true;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, intervalMs);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
