/** What a command needs from the outside world, so tests can run commands in-process. */
import type { Readable, Writable } from 'node:stream';
import type { WriteStream } from 'node:tty';

export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Set by a command to report failure without throwing (e.g. lint found errors: 1). */
  exitCode?: number;
  /** Environment entries layered over process.env for this invocation (in-process callers, tests). */
  env?: Record<string, string>;
  /** Aborted to stop a long-running command (worker, scheduler) as SIGTERM would. */
  signal?: AbortSignal;
}

export function processIo(): CliIo {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}

/** The terminal's width when stdout is one, for tables that fit it; undefined when piped. */
export function terminalWidth(io: CliIo): number | undefined {
  const out = io.stdout as Partial<WriteStream>;
  return out.isTTY && typeof out.columns === 'number' && out.columns > 0 ? out.columns : undefined;
}
