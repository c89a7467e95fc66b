/**
 * `robots-audit worker` as a real child process, for the tests of what processes do together:
 * SIGTERM and SIGKILL, several workers sharing runs. The connection comes from the flags, the
 * rest of the pipeline's environment (allowlist, pins, timeouts) from the test's `Pipeline`.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cliProcess } from './cli-process.js';
import { until as poll } from './poll.js';
import type { Pipeline } from './pipeline.js';

/** Start-up (TypeScript through tsx), Redis and Postgres connections. */
export const STARTUP_TIMEOUT_MS = 20_000;

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything written to stderr so far (the JSON log lines). */
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  /** Resolves once the worker logged that it started. */
  started(): Promise<void>;
}

export function spawnWorker(p: Pipeline, env: Record<string, string> = {}, databaseUrl = p.db.url): WorkerProcess {
  const { DATABASE_URL: _url, ROBOTS_AUDIT_QUEUE_PREFIX: prefix, ...pipelineEnv } = p.env;
  const child = spawn(...cliProcess(['worker', '--database-url', databaseUrl, '--queue-prefix', prefix!]), {
    env: { ...process.env, ...pipelineEnv, ROBOTS_AUDIT_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return {
    child,
    stderr: () => stderr,
    exited,
    started: () => until('a worker to start', () => stderr.includes('"worker started"'), STARTUP_TIMEOUT_MS),
  };
}

/** Waits until `check` says yes, every 25 ms; an error it throws fails at once. */
export function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  return poll(what, check, timeoutMs, { everyMs: 25, retryOn: () => false });
}

/** Stops a worker that is still running (SIGTERM) and waits for it. */
export async function stopWorker(worker: WorkerProcess): Promise<void> {
  if (worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  worker.child.kill('SIGTERM');
  await worker.exited;
}
