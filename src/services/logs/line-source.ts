/**
 * The lines of an access log, from a file or a stream (stdin), gzip or not: the I/O half of the log
 * import, kept apart from the pure readers in src/logs. Gzip is recognised by its magic bytes
 * (1f 8b), never by a file name: `access.log.1` may be compressed and `x.gz` may not, and stdin has
 * no name. zlib's gunzip reads member after member, so rotated logs concatenated into one file
 * (`cat access.log.*.gz`) read as one log.
 *
 * Lines are split on Buffers with indexOf(10), with no readline: the import is benchmarked against
 * a plain readline loop, and a line decoded once, straight from the chunk it sits in, costs less.
 * Memory is bounded by `maxLineBytes`, not by the longest line: a longer line is dropped as it
 * arrives, keeping only its first bytes for the report.
 */
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/**
 * The default longest line read, in bytes. Apache's LimitRequestLine and LimitRequestFieldSize
 * default to 8190 bytes and nginx's large_client_header_buffers to 8 KiB, so a line holding a
 * request line, a referer and a user-agent at their limits, with the fixed fields, fits with room
 * for escapes (`\xHH` is four bytes for one). A longer line is not a request a default server
 * accepted whole, and reading it would let one line cost the import unbounded memory.
 */
export const LOG_MAX_LINE_BYTES = 64 * 1024;

/** Bytes of a too-long line kept to show in the import's summary. */
export const TOO_LONG_PREFIX_BYTES = 200;

/** Bytes read from a file at a time: large reads keep the per-chunk cost off the per-line one. */
const FILE_READ_BYTES = 256 * 1024;

const NEWLINE = 10;
const CARRIAGE_RETURN = 13;
const GZIP_MAGIC = [0x1f, 0x8b] as const;

/**
 * One line of the log, numbered from 1 in the file as it is (skipped lines counted). Text is
 * UTF-8, an invalid sequence read as U+FFFD: servers escape what is not printable ASCII, so
 * invalid UTF-8 only comes from a writer that does not, and LogRequest holds text, not bytes.
 */
export type LogLine = { lineNo: number; text: string } | { lineNo: number; tooLong: true; prefix: string };

export interface ReadLogLinesOptions {
  /** Longest line read, without its line ending (LOG_MAX_LINE_BYTES by default at the caller). */
  maxLineBytes: number;
  /** Lines to pass over unread, to resume an import: only their newlines are counted. */
  skipLines?: number;
}

/** A path is opened and closed here; a stream (stdin) is the caller's, read to its end. */
export async function* readLogLines(source: string | NodeJS.ReadableStream, options: ReadLogLinesOptions): AsyncGenerator<LogLine> {
  for await (const lines of readLogLineBatches(source, options)) yield* lines;
}

/**
 * The same lines, those of each chunk read at once: a caller that loops over them itself pays one
 * promise a chunk, not one a line (a log's lines are mostly dropped after a few microseconds each,
 * and an async generator's step costs about as much).
 */
export async function* readLogLineBatches(source: string | NodeJS.ReadableStream, options: ReadLogLinesOptions): AsyncGenerator<LogLine[]> {
  const input = typeof source === 'string' ? createReadStream(source, { highWaterMark: FILE_READ_BYTES }) : source;
  const splitter = new LineSplitter(options.maxLineBytes, options.skipLines ?? 0);
  try {
    for await (const chunk of decompressed(input)) {
      const lines = splitter.push(chunk);
      if (lines.length > 0) yield lines;
    }
    const last = splitter.end();
    if (last.length > 0) yield last;
  } finally {
    if (typeof source === 'string') (input as Readable).destroy();
  }
}

function asBuffer(chunk: string | Buffer): Buffer {
  return typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
}

/** The input's bytes, gunzipped when it starts with gzip's magic bytes. */
async function* decompressed(input: NodeJS.ReadableStream): AsyncGenerator<Buffer> {
  const chunks = input[Symbol.asyncIterator]();
  // The magic is two bytes, and a stream may deliver one at a time.
  const head: Buffer[] = [];
  let headBytes = 0;
  while (headBytes < GZIP_MAGIC.length) {
    const next = await chunks.next();
    if (next.done) break;
    const chunk = asBuffer(next.value);
    head.push(chunk);
    headBytes += chunk.length;
  }
  const first = Buffer.concat(head, headBytes);
  async function* all(): AsyncGenerator<Buffer> {
    if (first.length > 0) yield first;
    for (;;) {
      const next = await chunks.next();
      if (next.done) return;
      yield asBuffer(next.value);
    }
  }
  if (first[0] !== GZIP_MAGIC[0] || first[1] !== GZIP_MAGIC[1]) {
    yield* all();
    return;
  }
  const compressed = Readable.from(all(), { objectMode: false });
  const gunzip = createGunzip();
  // A read error reaches the reader as gunzip's, so a failed read is never a short log.
  compressed.on('error', (error) => gunzip.destroy(error));
  compressed.pipe(gunzip);
  for await (const chunk of gunzip) yield chunk as Buffer;
}

/**
 * Buffers in, lines out. A line within one chunk is decoded straight from it; one that spans chunks
 * keeps its pieces (at most maxLineBytes of them) until its newline comes.
 */
class LineSplitter {
  /** The number of the line the next bytes belong to. */
  private lineNo = 1;
  private pieces: Buffer[] = [];
  private pieceBytes = 0;
  /** The current line passed maxLineBytes: its first bytes, and the rest is dropped until its newline. */
  private tooLongPrefix: Buffer | null = null;

  constructor(
    private readonly maxLineBytes: number,
    private readonly skipLines: number,
  ) {}

  push(chunk: Buffer): LogLine[] {
    const lines: LogLine[] = [];
    let start = 0;
    while (this.lineNo <= this.skipLines) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) return lines;
      this.lineNo++;
      start = newline + 1;
    }
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) break;
      lines.push(this.finish(chunk, start, newline));
      start = newline + 1;
    }
    if (start < chunk.length) this.keep(chunk.subarray(start));
    return lines;
  }

  /** The last line, when the log does not end with a newline. */
  end(): LogLine[] {
    if (this.lineNo <= this.skipLines || (this.tooLongPrefix === null && this.pieceBytes === 0)) return [];
    return [this.finish(Buffer.alloc(0), 0, 0)];
  }

  private keep(piece: Buffer): void {
    if (this.tooLongPrefix !== null) {
      this.growPrefix(piece);
      return;
    }
    // One byte of slack: a CR before the newline is not part of the line.
    if (this.pieceBytes + piece.length <= this.maxLineBytes + 1) {
      this.pieces.push(piece);
      this.pieceBytes += piece.length;
      return;
    }
    this.tooLongPrefix = Buffer.alloc(0);
    for (const kept of this.pieces) this.growPrefix(kept);
    this.growPrefix(piece);
    this.pieces = [];
    this.pieceBytes = 0;
  }

  /** A too-long line's first TOO_LONG_PREFIX_BYTES, however small the pieces it arrives in. */
  private growPrefix(piece: Buffer): void {
    const prefix = this.tooLongPrefix!;
    if (prefix.length >= TOO_LONG_PREFIX_BYTES) return;
    this.tooLongPrefix = Buffer.concat([prefix, piece.subarray(0, TOO_LONG_PREFIX_BYTES - prefix.length)]);
  }

  /** The line that ends at `end` in `chunk`, with the pieces kept before it. */
  private finish(chunk: Buffer, start: number, end: number): LogLine {
    const lineNo = this.lineNo++;
    if (this.tooLongPrefix !== null) {
      this.growPrefix(chunk.subarray(start, end));
      const prefix = this.tooLongPrefix!.toString('utf8');
      this.tooLongPrefix = null;
      return { lineNo, tooLong: true, prefix };
    }
    let bytes = chunk;
    if (this.pieces.length > 0) {
      this.pieces.push(chunk.subarray(start, end));
      bytes = Buffer.concat(this.pieces);
      start = 0;
      end = bytes.length;
      this.pieces = [];
      this.pieceBytes = 0;
    }
    if (end > start && bytes[end - 1] === CARRIAGE_RETURN) end--;
    if (end - start > this.maxLineBytes) {
      return { lineNo, tooLong: true, prefix: bytes.toString('utf8', start, start + TOO_LONG_PREFIX_BYTES) };
    }
    const text = bytes.toString('utf8', start, end);
    // A BOM opens some files written on Windows; it is not part of the first line's text.
    return { lineNo, text: lineNo === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
  }
}
