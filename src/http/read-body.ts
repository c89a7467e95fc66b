/**
 * Reads a response body under two caps, without ever holding more than the kept bytes:
 * - `maxBodyBytes` (R-18, D-6): bytes of the decoded body that are kept. For a body sent as is,
 *   reading stops right there: the stream is destroyed and the rest never read, so an endless
 *   body ends promptly.
 * - `maxDecodedBytes`: bytes decompression may produce. Past it decoding stops, so a gzip bomb
 *   costs neither memory nor time. Below it, decoding goes on (counting, not keeping) to learn
 *   the full size.
 * Kept bytes are the decoded bytes exactly as received: no charset conversion (BOM and Latin-1
 * bytes stay as they are, R-22, R-27).
 */
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import zlib from 'node:zlib';
import { errorMessageOf } from './outcome.js';

export interface BodyLimits {
  maxBodyBytes: number;
  maxDecodedBytes: number;
}

export interface BodyFraming {
  /** The Content-Encoding header as sent, or null. */
  contentEncoding: string | null;
  /** The Content-Length header as a number, or null. */
  contentLength: number | null;
  /** False to count the body without keeping it (responses whose body is not stored). */
  keep: boolean;
}

/**
 * How a kept body may grow past the bytes every fetch reads freely (fetch-robots-txt.ts): by
 * holding one of the process's slots for large bodies (FetchSlots.hold). Reading pauses until a
 * slot is granted, the socket's flow control holding the sender back, and the slot is given back
 * when reading ends.
 */
export interface LargeBodyGate {
  /** Kept bytes a body may hold without a slot. */
  freeBytes: number;
  /** Resolves to the slot's release; rejects if the fetch is aborted while it waits. */
  wait: () => Promise<() => void>;
}

export interface BodyRead {
  /** The kept decoded bytes (empty when `keep` is false). */
  body: Buffer;
  /** Decoded bytes seen. */
  decodedBytes: number;
  /** Full decoded size when known (read to the end, or Content-Length of an unencoded body); null otherwise. */
  fullSize: number | null;
  /** True when reading stopped at a cap before the end of the body. */
  truncated: boolean;
  /** The error that ended the body early (R-15: incomplete data), or null. */
  error: unknown;
}

/** An undecodable body: unknown Content-Encoding, corrupt or cut-short compressed data. */
export class DecodeError extends Error {
  readonly code = 'DECODE_ERROR';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DecodeError';
  }
}

/** More stacked encodings than this is an attack, not a website. */
const MAX_STACKED_ENCODINGS = 3;
/**
 * Compressed bytes read beyond the decoded cap: compression cannot make data much larger, so a
 * body whose wire size passes this without producing output (empty gzip members, endless
 * padding) is cut as well.
 */
const WIRE_SLACK_BYTES = 64 * 1024;

/**
 * "deflate" should be zlib-wrapped (RFC 9110 §8.4.1.2) but some servers send raw deflate; the
 * first two bytes tell them apart, as browsers do.
 */
class DeflateDecoder extends Transform {
  #inner: zlib.Inflate | zlib.InflateRaw | null = null;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (!this.#inner) {
      const zlibWrapped = chunk.length >= 2 && (chunk[0]! & 0x0f) === 8 && ((chunk[0]! << 8) | chunk[1]!) % 31 === 0;
      const inner = zlibWrapped ? zlib.createInflate() : zlib.createInflateRaw();
      inner.on('data', (data: Buffer) => this.push(data));
      inner.on('error', (err) => this.destroy(err));
      this.#inner = inner;
    }
    this.#inner.write(chunk, (err) => callback(err ?? null));
  }

  override _flush(callback: TransformCallback): void {
    const inner = this.#inner;
    if (!inner) return callback();
    inner.once('end', () => callback());
    inner.end();
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.#inner?.destroy();
    callback(err);
  }
}

/** Decoders for a Content-Encoding header, in the order they must run (reverse of application). */
export function decodersFor(contentEncoding: string | null): Transform[] {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length > MAX_STACKED_ENCODINGS) {
    throw new DecodeError(`too many stacked content encodings: ${contentEncoding}`);
  }
  return codings.reverse().map((coding) => {
    switch (coding) {
      case 'gzip':
      case 'x-gzip':
        return zlib.createGunzip();
      case 'deflate':
        return new DeflateDecoder();
      case 'br':
        return zlib.createBrotliDecompress();
      default:
        throw new DecodeError(`unsupported content-encoding "${coding}"`);
    }
  });
}

export function readBody(source: Readable, framing: BodyFraming, limits: BodyLimits, gate?: LargeBodyGate): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let decoded = 0;
    let wire = 0;
    let settled = false;
    let decoders: Transform[] = [];
    let gateAsked = false;
    let releaseGate: (() => void) | null = null;

    const streams = () => [source, ...decoders];
    const finish = (outcome: { truncated: boolean; fullSize: number | null; error?: unknown }) => {
      if (settled) return;
      settled = true;
      releaseGate?.();
      for (const stream of streams()) {
        // Late errors from streams torn down here are expected and carry no information.
        stream.on('error', () => {});
        stream.destroy();
      }
      resolve({
        body: Buffer.concat(chunks, kept),
        decodedBytes: decoded,
        fullSize: outcome.fullSize,
        truncated: outcome.truncated,
        error: outcome.error ?? null,
      });
    };

    try {
      decoders = decodersFor(framing.contentEncoding);
    } catch (err) {
      finish({ truncated: false, fullSize: null, error: err });
      return;
    }

    const encoded = decoders.length > 0;
    const keepLimit = encoded ? Math.min(limits.maxBodyBytes, limits.maxDecodedBytes) : limits.maxBodyBytes;
    const wireCap = Math.max(limits.maxBodyBytes, limits.maxDecodedBytes) + WIRE_SLACK_BYTES;

    const onDecoded = (chunk: Buffer) => {
      if (settled) return;
      decoded += chunk.length;
      if (framing.keep && kept < keepLimit) {
        const take = chunk.subarray(0, keepLimit - kept);
        chunks.push(take);
        kept += take.length;
        if (gate && !gateAsked && kept > gate.freeBytes) waitForLargeBodySlot(gate);
      }
      if (encoded) {
        // A bomb stops here: nothing past the decoded cap is produced.
        if (decoded > limits.maxDecodedBytes) finish({ truncated: true, fullSize: null });
        return;
      }
      if (decoded > limits.maxBodyBytes) {
        finish({ truncated: true, fullSize: framing.contentLength });
      } else if (decoded === limits.maxBodyBytes && framing.contentLength !== null && framing.contentLength > decoded) {
        // Content-Length already says there is more: no need to wait for the next chunk.
        finish({ truncated: true, fullSize: framing.contentLength });
      }
    };

    const waitForLargeBodySlot = (large: LargeBodyGate) => {
      gateAsked = true;
      sink.pause();
      large.wait().then(
        (release) => {
          if (settled) return release();
          releaseGate = release;
          sink.resume();
        },
        (err: unknown) => finish({ truncated: false, fullSize: null, error: err }),
      );
    };

    source.on('error', (err) => finish({ truncated: false, fullSize: null, error: err }));
    for (const decoder of decoders) {
      decoder.on('error', (err) => {
        const message = `cannot decode ${framing.contentEncoding} body: ${errorMessageOf(err)}`;
        finish({ truncated: false, fullSize: null, error: new DecodeError(message, { cause: err }) });
      });
    }

    const sink = decoders.at(-1) ?? source;
    sink.on('data', onDecoded);
    sink.on('end', () => finish({ truncated: decoded > limits.maxBodyBytes, fullSize: decoded }));

    if (encoded) {
      source.on('data', (chunk: Buffer) => {
        wire += chunk.length;
        if (wire > wireCap) finish({ truncated: true, fullSize: null });
      });
      let upstream: Readable = source;
      for (const decoder of decoders) upstream = upstream.pipe(decoder);
    }
  });
}
