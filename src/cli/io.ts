/** What a command needs from the outside world, so tests can run commands in-process. */
import type { Readable, Writable } from 'node:stream';

export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Set by a command to report failure without throwing (e.g. lint found errors: 1). */
  exitCode?: number;
}

export function processIo(): CliIo {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}
