import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FetchSlots } from '../../../src/http/fetch-slots.js';
import { DecodeError, readBody } from '../../../src/http/read-body.js';
import type { LargeBodyGate } from '../../../src/http/read-body.js';

const limits = { maxBodyBytes: 1000, maxDecodedBytes: 5000 };
const identity = { contentEncoding: null, contentLength: null, keep: true };
const text = (n: number, seed = 'abcdefghij') => Buffer.from(seed.repeat(Math.ceil(n / seed.length)).slice(0, n));

/** A stream of `chunk` repeated forever, counting how many chunks were pulled. */
function endless(chunk: Buffer) {
  const stats = { pulled: 0, destroyed: false };
  const stream = new Readable({
    read() {
      stats.pulled++;
      this.push(chunk);
    },
    destroy(err, cb) {
      stats.destroyed = true;
      cb(err);
    },
  });
  return { stream, stats };
}

function chunked(buffer: Buffer, size = 100): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < buffer.length; i += size) parts.push(buffer.subarray(i, i + size));
  return Readable.from(parts, { objectMode: false });
}

describe('R-18, D-6: unencoded bodies are cut at maxBodyBytes', () => {
  it('keeps a body under the cap whole', async () => {
    const body = text(999);
    const read = await readBody(chunked(body), identity, limits);
    expect(read).toMatchObject({ decodedBytes: 999, fullSize: 999, truncated: false, error: null });
    expect(read.body.equals(body)).toBe(true);
  });

  it('a body of exactly the cap is not truncated', async () => {
    const read = await readBody(chunked(text(1000)), identity, limits);
    expect(read).toMatchObject({ fullSize: 1000, truncated: false });
    expect(read.body.length).toBe(1000);
  });

  it('keeps the first maxBodyBytes bytes and knows the full size from Content-Length', async () => {
    const body = text(3000);
    const read = await readBody(chunked(body), { ...identity, contentLength: 3000 }, limits);
    expect(read).toMatchObject({ fullSize: 3000, truncated: true, error: null });
    expect(read.body.equals(body.subarray(0, 1000))).toBe(true);
  });

  it('stops at the cap without Content-Length: full size unknown', async () => {
    const read = await readBody(chunked(text(3000)), identity, limits);
    expect(read).toMatchObject({ fullSize: null, truncated: true });
    expect(read.body.length).toBe(1000);
  });

  it('an endless body ends promptly and the stream is destroyed, not drained', async () => {
    const { stream, stats } = endless(text(256));
    const read = await readBody(stream, identity, limits);
    expect(read).toMatchObject({ truncated: true, fullSize: null, error: null });
    expect(read.body.length).toBe(1000);
    expect(stats.destroyed).toBe(true);
    expect(stats.pulled).toBeLessThan(100);
  });

  it('keeps Latin-1 bytes and a BOM exactly as sent (R-22, R-27)', async () => {
    const body = Buffer.from([0xef, 0xbb, 0xbf, 0x41, 0xe9, 0xff, 0x0a]);
    expect((await readBody(Readable.from([body]), identity, limits)).body.equals(body)).toBe(true);
  });

  it('keep: false counts without keeping', async () => {
    const read = await readBody(chunked(text(500)), { ...identity, keep: false }, limits);
    expect(read).toMatchObject({ decodedBytes: 500, fullSize: 500, truncated: false });
    expect(read.body.length).toBe(0);
  });
});

describe('compressed bodies: decoded with a cap on decoded bytes', () => {
  const body = text(800, 'User-agent: *\nDisallow: /x/\n');

  it.each<[string, Buffer, string]>([
    ['gzip', zlib.gzipSync(body), 'gzip'],
    ['x-gzip', zlib.gzipSync(body), 'x-gzip'],
    ['deflate (zlib-wrapped)', zlib.deflateSync(body), 'deflate'],
    ['deflate (raw, as some servers send it)', zlib.deflateRawSync(body), 'deflate'],
    ['br', zlib.brotliCompressSync(body), 'br'],
    ['gzip then br', zlib.brotliCompressSync(zlib.gzipSync(body)), 'gzip, br'],
    ['identity listed', zlib.gzipSync(body), 'identity, gzip'],
    ['upper case', zlib.gzipSync(body), 'GZIP'],
  ])('%s', async (_name, wire, encoding) => {
    const read = await readBody(chunked(wire, 37), { contentEncoding: encoding, contentLength: wire.length, keep: true }, limits);
    expect(read.error).toBeNull();
    expect(read.body.equals(body)).toBe(true);
    expect(read).toMatchObject({ fullSize: 800, truncated: false });
  });

  it('decodes past maxBodyBytes (counting) to learn the full size, up to maxDecodedBytes', async () => {
    const big = text(4000);
    const read = await readBody(chunked(zlib.gzipSync(big)), { contentEncoding: 'gzip', contentLength: null, keep: true }, limits);
    expect(read).toMatchObject({ fullSize: 4000, truncated: true, error: null });
    expect(read.body.equals(big.subarray(0, 1000))).toBe(true);
  });

  it('a gzip bomb stops at maxDecodedBytes: little memory, little time', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
    const started = performance.now();
    const read = await readBody(chunked(bomb, 16 * 1024), { contentEncoding: 'gzip', contentLength: bomb.length, keep: true }, limits);
    expect(read).toMatchObject({ truncated: true, fullSize: null, error: null });
    expect(read.body.length).toBe(1000);
    expect(read.decodedBytes).toBeLessThan(limits.maxDecodedBytes + 64 * 1024);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('a compressed stream that decodes to nothing forever is cut by its wire size', async () => {
    const { stream, stats } = endless(zlib.gzipSync(Buffer.alloc(0)));
    const read = await readBody(stream, { contentEncoding: 'gzip', contentLength: null, keep: true }, limits);
    expect(read).toMatchObject({ truncated: true, fullSize: null, decodedBytes: 0 });
    expect(stats.destroyed).toBe(true);
  });

  it.each<[string, Buffer, string, RegExp]>([
    ['corrupt gzip', Buffer.from('not gzip at all'), 'gzip', /cannot decode gzip body/],
    ['gzip cut short', zlib.gzipSync(body).subarray(0, 40), 'gzip', /unexpected end of file/],
    ['corrupt br', Buffer.from([0xff, 0xff, 0xff, 0xff]), 'br', /cannot decode br body/],
    ['unknown coding', body, 'compress', /unsupported content-encoding "compress"/],
    ['too many stacked codings', body, 'gzip, gzip, gzip, gzip', /too many stacked/],
  ])('%s -> DECODE_ERROR', async (_name, wire, encoding, message) => {
    const read = await readBody(Readable.from([wire]), { contentEncoding: encoding, contentLength: null, keep: true }, limits);
    expect(read.error).toBeInstanceOf(DecodeError);
    expect((read.error as DecodeError).code).toBe('DECODE_ERROR');
    expect((read.error as Error).message).toMatch(message);
  });
});

describe('R-15: a body that breaks off is reported with its error', () => {
  it('passes the stream error through with its code', async () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const source = new Readable({ read() {} });
    source.push(text(100));
    setImmediate(() => source.destroy(reset));
    const read = await readBody(source, identity, limits);
    expect(read.error).toBe(reset);
    expect(read.truncated).toBe(false);
    expect(read.fullSize).toBeNull();
  });
});

describe('a kept body past the free bytes waits for a large-body slot (the bound on body bytes held)', () => {
  const gateOf = (slots: FetchSlots, freeBytes = 300) => {
    const asked = { count: 0 };
    const gate: LargeBodyGate = {
      freeBytes,
      wait: () => {
        asked.count++;
        return slots.hold();
      },
    };
    return { gate, asked };
  };

  it('a body within the free bytes never asks for a slot', async () => {
    const slots = new FetchSlots(1);
    const hold = await slots.hold();
    const { gate, asked } = gateOf(slots);
    const read = await readBody(chunked(text(300)), identity, limits, gate);
    expect([read.body.length, asked.count]).toEqual([300, 0]);
    hold();
  });

  it('a larger body pauses past the free bytes until a slot is free, then reads on and gives it back', async () => {
    const slots = new FetchSlots(1);
    const hold = await slots.hold();
    const { gate, asked } = gateOf(slots);
    const body = text(900);
    let settled = false;
    const reading = readBody(chunked(body), identity, limits, gate).then((r) => {
      settled = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect([settled, asked.count, slots.waiting]).toEqual([false, 1, 1]);
    hold();
    const read = await reading;
    expect(read).toMatchObject({ decodedBytes: 900, fullSize: 900, truncated: false, error: null });
    expect(read.body.equals(body)).toBe(true);
    expect([slots.inUse, slots.waiting]).toEqual([0, 0]);
  });

  it('an encoded body counts its kept decoded bytes, and pauses its decoder', async () => {
    const slots = new FetchSlots(1);
    const hold = await slots.hold();
    const { gate } = gateOf(slots);
    const body = text(900, 'gzip me ');
    const reading = readBody(chunked(zlib.gzipSync(body), 10), { contentEncoding: 'gzip', contentLength: null, keep: true }, limits, gate);
    await new Promise((r) => setTimeout(r, 20));
    expect(slots.waiting).toBe(1);
    hold();
    const read = await reading;
    expect(read.body.equals(body)).toBe(true);
    expect(slots.inUse).toBe(0);
  });

  it('a body that is only counted (keep: false) holds nothing and never waits', async () => {
    const slots = new FetchSlots(1);
    const hold = await slots.hold();
    const { gate, asked } = gateOf(slots);
    const read = await readBody(chunked(text(900)), { ...identity, keep: false }, limits, gate);
    expect([read.decodedBytes, asked.count]).toEqual([900, 0]);
    hold();
  });

  it('a wait that fails (the fetch aborted) ends the read with its error', async () => {
    const aborted = new Error('total deadline');
    const gate: LargeBodyGate = { freeBytes: 300, wait: () => Promise.reject(aborted) };
    const read = await readBody(chunked(text(900)), identity, limits, gate);
    expect(read.error).toBe(aborted);
  });

  it('a body that breaks off while it waits gives back the slot it is granted later', async () => {
    const slots = new FetchSlots(1);
    const hold = await slots.hold();
    const { gate } = gateOf(slots);
    const source = new Readable({ read() {} });
    source.push(text(400));
    const reading = readBody(source, identity, limits, gate);
    await new Promise((r) => setTimeout(r, 20));
    source.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    expect((await reading).error).toMatchObject({ code: 'ECONNRESET' });
    hold();
    await new Promise((r) => setImmediate(r));
    expect([slots.inUse, slots.waiting]).toEqual([0, 0]);
  });
});
