/**
 * Runs the CLI in-process, as `main(argv, io)` with captured streams, so command tests need no
 * child process.
 */
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';

export interface CliRun {
  stdout: string;
  stderr: string;
  code: number;
}

export interface RunCliOptions {
  /** Standard input: bytes, text, or a stream (ended by the caller). Empty when omitted. */
  stdin?: string | Buffer | Readable;
  /** Environment entries layered over process.env for this run (CliIo.env). */
  env?: Record<string, string>;
}

export async function runCli(argv: string[], options: RunCliOptions = {}): Promise<CliRun> {
  let stdin: Readable;
  if (options.stdin === undefined || typeof options.stdin === 'string' || Buffer.isBuffer(options.stdin)) {
    const pass = new PassThrough();
    pass.end(options.stdin ?? '');
    stdin = pass;
  } else {
    stdin = options.stdin;
  }
  const stdout = collect();
  const stderr = collect();
  const code = await main(argv, { stdin, stdout: stdout.stream, stderr: stderr.stream, ...(options.env ? { env: options.env } : {}) });
  return { stdout: await stdout.done(), stderr: await stderr.done(), code };
}

function collect() {
  const chunks: Buffer[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  // 'data' may come a tick after a write: end the stream and wait for the last chunk.
  const done = async () => {
    const ended = once(stream, 'end');
    stream.end();
    await ended;
    return Buffer.concat(chunks).toString('utf8');
  };
  return { stream, done };
}
