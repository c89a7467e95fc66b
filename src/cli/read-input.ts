/**
 * Reads a robots.txt for a command: a file path, or `-` for standard input. Always bytes, never
 * a decoded string: the engine works on bytes as Google's parser does (BOM, Latin-1 and invalid
 * UTF-8 must reach it untouched).
 */
import { readFile, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';

/**
 * Upper bound on what a command reads into memory. Far above any real robots.txt (Google reads
 * 500 KiB, R-18; the largest file of the corpus is 1.4 MB) and only there so that `--robots
 * /dev/zero` or a wrong file fails instead of exhausting memory.
 */
export const DEFAULT_MAX_INPUT_BYTES = 64 * 1024 * 1024;

export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

export interface ReadInputOptions {
  maxBytes?: number;
}

/** Reads `source` (a path, or `-` for `stdin`) as bytes. Throws InputError with a readable reason. */
export async function readInput(source: string, stdin: Readable, options: ReadInputOptions = {}): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_INPUT_BYTES;
  if (source === '-') return readStream(stdin, maxBytes, 'standard input');
  let size: number;
  try {
    const info = await stat(source);
    if (info.isDirectory()) throw new InputError(`cannot read ${source}: is a directory`);
    size = info.size;
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`cannot read ${source}: ${reason(err)}`);
  }
  if (size > maxBytes) throw new InputError(`${source} is ${size} bytes, more than the ${maxBytes} this command reads`);
  try {
    const body = await readFile(source);
    // A special file (a FIFO, /dev/stdin) reports size 0 and may still be large.
    if (body.length > maxBytes) throw new InputError(`${source} is more than the ${maxBytes} bytes this command reads`);
    return body;
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`cannot read ${source}: ${reason(err)}`);
  }
}

async function readStream(stream: Readable, maxBytes: number, name: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer);
    total += buf.length;
    if (total > maxBytes) {
      stream.destroy();
      throw new InputError(`${name} is more than the ${maxBytes} bytes this command reads`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks, total);
}

function reason(err: unknown): string {
  if (err && typeof err === 'object' && 'code' in err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'no such file';
    if (code === 'EACCES') return 'permission denied';
    if (code === 'EISDIR') return 'is a directory';
  }
  return err instanceof Error ? err.message : String(err);
}
