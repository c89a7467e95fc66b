/**
 * The dashboard never runs CPU-heavy work on its event loop without a bound (issue 26): what its
 * pages compute from a site's bytes or a posted draft (the site page's lint and crawler rules,
 * "Check a URL", "Test a draft") runs in a worker thread (src/offload/thread-pool.ts) with a
 * deadline. Meanwhile the server answers every other page; past the deadline (or the thread's
 * heap, or a full queue) the page says what it could not compute and why, instead of waiting.
 * What the pages read stays on the event loop: queries, and linear work on at most 500 KiB
 * (decoding the file into lines, finding its hidden characters, rendering).
 */
import { createThreadPool } from '../offload/thread-pool.js';
import type { Offloaded } from '../offload/thread-pool.js';
import type { Computed, SiteFileInput } from '../reports/web-site.js';
import type { SiteFileView } from './page-compute.thread.js';
import type { ExplainState, SiteExplanation } from '../reports/site-explain.js';
import type { SiteRef } from '../reports/site-lookup.js';
import type { DraftCheckInput } from '../services/draft-check.js';
import type { DraftPageResult } from './draft-result.js';

/** A computation's deadline, ms (ROBOTS_AUDIT_DASHBOARD_COMPUTE_MS): a 500 KiB file takes about a second. */
export const PAGE_COMPUTE_MS = 5_000;
/** Threads computing at once (ROBOTS_AUDIT_DASHBOARD_COMPUTE_THREADS): one core, the other for the event loop and Postgres. */
export const PAGE_COMPUTE_THREADS = 1;
/** A thread's heap, MB: a draft of 500 KiB compared with a file of 500 KiB fits in a fraction of it. */
export const PAGE_COMPUTE_HEAP_MB = 1_024;
/** Computations waiting for a thread at most; the next page says the server is busy. */
export const PAGE_COMPUTE_QUEUE = 16;

export interface PageComputeOptions {
  timeoutMs?: number;
  threads?: number;
}

export interface PageCompute {
  siteFile(input: SiteFileInput): Promise<Computed<SiteFileView>>;
  explain(input: ExplainState & { site: SiteRef; url: string; userAgent: string }): Promise<Computed<SiteExplanation>>;
  draft(input: DraftCheckInput): Promise<Computed<DraftPageResult>>;
  /** Starts the threads (the server does when it listens). */
  warm(): Promise<void>;
  close(): Promise<void>;
}

/** The page's words for a computation it could not wait for. */
export function notComputedNote(done: Extract<Offloaded<unknown>, { ok: false }>, what: string): string {
  if (done.reason === 'busy') return `Not computed: the server is busy with other large files (${done.message}); try again in a moment.`;
  if (done.reason === 'error') return `Not computed: ${done.message}.`;
  return `Not computed: ${what} is too large to analyse here (it ${done.message}).`;
}

export function createPageCompute(options: PageComputeOptions = {}): PageCompute {
  const pool = createThreadPool({
    module: new URL('./page-compute.thread.js', import.meta.url),
    threads: options.threads ?? PAGE_COMPUTE_THREADS,
    timeoutMs: options.timeoutMs ?? PAGE_COMPUTE_MS,
    heapMb: PAGE_COMPUTE_HEAP_MB,
    maxQueue: PAGE_COMPUTE_QUEUE,
    // The event loop, which answers every other page, wins a busy core.
    nice: 10,
    // Loading the thread's modules takes a while: not on a page's deadline.
    keepWarm: true,
  });
  const run = async <I, O>(task: string, input: I, what: string): Promise<Computed<O>> => {
    const done = await pool.run<I, O>(task, input);
    return done.ok ? { ok: true, value: done.value } : { ok: false, note: notComputedNote(done, what) };
  };
  return {
    siteFile: (input) => run('siteFile', input, 'the file'),
    explain: (input) => run('explain', input, 'the file'),
    draft: (input) => run('draft', input, 'the draft'),
    warm: () => pool.warm(),
    close: () => pool.close(),
  };
}
