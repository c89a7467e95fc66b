/**
 * CPU-heavy work on a site's bytes off the event loop, bounded (issue 26): a pool of worker
 * threads (piscina) where each task has a deadline and each thread a heap limit. A task past its
 * deadline has its thread terminated, one that exhausts its heap loses only its thread, and a
 * queue that is full turns new tasks away: the caller gets an `Offloaded` that says which, never
 * a promise that waits without end, and the process's own event loop stays free (a dashboard
 * keeps answering its other pages, a worker keeps its fetches' timers on time).
 *
 * A task module sits beside its caller and exports its tasks by name as its default
 * (`threadTasks`, thread-tasks.ts). From dist/ the compiled `.js` is the threads' entry; from the
 * sources (tsx, vitest) the entry is tsx-thread.mjs, which registers tsx in the thread and then
 * imports the `.ts`. piscina is loaded on the first task, so a command that never offloads anything
 * does not load it.
 */
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Piscina } from 'piscina';
import type { TaskMessage } from './thread-tasks.js';

/** What a task came to. `reason`: past its deadline, out of heap, turned away (queue full), or it threw. */
export type Offloaded<T> =
  | { ok: true; value: T; ms: number }
  | { ok: false; reason: 'timeout' | 'memory' | 'busy' | 'error'; message: string; ms: number };

export interface ThreadPoolOptions {
  /** The task module: `new URL('./x.thread.js', import.meta.url)` (its `.ts` sibling is used from the sources). */
  module: URL;
  /** Threads at most (each takes a core while it works). */
  threads: number;
  /** A task's deadline from the moment it is asked for, waiting in the queue included. */
  timeoutMs: number;
  /** The heap of each thread, MB (V8's old generation): past it the thread dies, the process does not. */
  heapMb: number;
  /** Tasks waiting for a thread at most; the next is `busy`. */
  maxQueue: number;
  /** A thread idle this long is ended (an idle pool holds no thread). */
  idleMs?: number;
  /** Lower the threads' CPU priority (Linux `nice`), so the process's own event loop wins a busy core. */
  nice?: number;
  /** Keep the threads started (a server's first page does not wait for one to load); else each ends when idle. */
  keepWarm?: boolean;
}

/** Default idle time before a thread ends: long enough to serve a burst of pages warm. */
export const THREAD_IDLE_MS = 60_000;

export interface ThreadPool {
  /** Runs the module's task `task` on `input` (structured-cloned both ways). */
  run<I, O>(task: string, input: I): Promise<Offloaded<O>>;
  /** Starts the pool now rather than at its first task (its threads load their module meanwhile). */
  warm(): Promise<void>;
  /** Ends every thread; tasks in flight end as `error`. */
  close(): Promise<void>;
}

/** The threads' entry and what it loads: the compiled `.js`, or tsx-thread.mjs and the `.ts` source. */
export function threadModule(module: URL): { filename: string; workerData: { taskModule: string } | undefined } {
  const path = fileURLToPath(module);
  if (fs.existsSync(path)) return { filename: path, workerData: undefined };
  const source = path.replace(/\.js$/, '.ts');
  if (!fs.existsSync(source)) throw new Error(`no task module at ${path} (nor ${source})`);
  return { filename: fileURLToPath(new URL('./tsx-thread.mjs', import.meta.url)), workerData: { taskModule: pathToFileURL(source).href } };
}

const OUT_OF_MEMORY = 'ERR_WORKER_OUT_OF_MEMORY';

/** `800 ms`, `5 s`, `2.5 s`. */
const duration = (ms: number) => (ms < 1_000 ? `${ms} ms` : `${Number((ms / 1_000).toFixed(1))} s`);

export function createThreadPool(options: ThreadPoolOptions): ThreadPool {
  const { filename, workerData } = threadModule(options.module);
  let pool: Promise<Piscina> | null = null;
  const open = () =>
    (pool ??= import('piscina').then(
      ({ Piscina }) =>
        new Piscina({
          filename,
          workerData,
          minThreads: options.keepWarm === true ? options.threads : 0,
          maxThreads: options.threads,
          idleTimeout: options.idleMs ?? THREAD_IDLE_MS,
          resourceLimits: { maxOldGenerationSizeMb: options.heapMb },
          niceIncrement: options.nice ?? 0,
          recordTiming: false,
        }),
    ));

  // Tasks running or waiting: past threads + maxQueue, a task is turned away before it waits.
  let inFlight = 0;

  return {
    async run<I, O>(task: string, input: I): Promise<Offloaded<O>> {
      const started = performance.now();
      const ms = () => Math.round(performance.now() - started);
      if (inFlight >= options.threads + options.maxQueue) return { ok: false, reason: 'busy', message: `${options.maxQueue} tasks already wait`, ms: 0 };
      inFlight += 1;
      const signal = AbortSignal.timeout(options.timeoutMs);
      try {
        const message: TaskMessage = { task, input };
        const value = (await (await open()).run(message, { signal })) as O;
        return { ok: true, value, ms: ms() };
      } catch (err) {
        const e = err as { name?: string; code?: string; message?: string };
        if (signal.aborted || e.name === 'AbortError') return { ok: false, reason: 'timeout', message: `took longer than ${duration(options.timeoutMs)}`, ms: ms() };
        if (e.code === OUT_OF_MEMORY) return { ok: false, reason: 'memory', message: `needed more than ${options.heapMb} MB of memory`, ms: ms() };
        return { ok: false, reason: 'error', message: e.message ?? String(err), ms: ms() };
      } finally {
        inFlight -= 1;
      }
    },
    async warm() {
      await open();
    },
    async close() {
      const opened = pool;
      pool = null;
      if (opened) await (await opened).destroy();
    },
  };
}
