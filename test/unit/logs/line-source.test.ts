import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { LOG_MAX_LINE_BYTES, readLogLines, TOO_LONG_PREFIX_BYTES } from '../../../src/services/logs/line-source.js';
import type { LogLine, ReadLogLinesOptions } from '../../../src/services/logs/line-source.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'robots-audit-line-source-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let files = 0;
function file(bytes: Buffer | string): string {
  const name = path.join(dir, `log-${files++}`);
  fs.writeFileSync(name, bytes);
  return name;
}

async function lines(source: string | NodeJS.ReadableStream, options: Partial<ReadLogLinesOptions> = {}): Promise<LogLine[]> {
  const out: LogLine[] = [];
  for await (const line of readLogLines(source, { maxLineBytes: LOG_MAX_LINE_BYTES, ...options })) out.push(line);
  return out;
}

/** A stream that hands over its bytes `size` at a time: lines, CRs and gzip's magic cut anywhere. */
function trickle(bytes: Buffer, size: number): Readable {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return Readable.from(chunks);
}

const TEXT = 'first\nsecond\nthird\n';
const EXPECTED = [
  { lineNo: 1, text: 'first' },
  { lineNo: 2, text: 'second' },
  { lineNo: 3, text: 'third' },
];

describe('readLogLines: the lines of a file or a stream', () => {
  it.each([
    ['a plain file', () => file(TEXT), EXPECTED],
    ['a gzip file (found by its magic bytes, not its name)', () => file(gzipSync(TEXT)), EXPECTED],
    ['a multi-member gzip file (rotated logs concatenated)', () => file(Buffer.concat([gzipSync('first\nsec'), gzipSync('ond\nthird\n')])), EXPECTED],
    ['CRLF line endings', () => file('first\r\nsecond\r\nthird\r\n'), EXPECTED],
    ['no newline at the end', () => file('first\nsecond\nthird'), EXPECTED],
    ['empty lines kept, numbered', () => file('a\n\nb\n'), [{ lineNo: 1, text: 'a' }, { lineNo: 2, text: '' }, { lineNo: 3, text: 'b' }]],
    ['a CR inside a line is data', () => file('a\rb\n'), [{ lineNo: 1, text: 'a\rb' }]],
    ['an empty file', () => file(''), []],
    ['a BOM before the first line', () => file('\ufefffirst\n'), [{ lineNo: 1, text: 'first' }]],
    ['UTF-8 text', () => file('café ✓\n'), [{ lineNo: 1, text: 'café ✓' }]],
    ['invalid UTF-8 as U+FFFD', () => file(Buffer.from([0x61, 0xe9, 0x62, 0x0a])), [{ lineNo: 1, text: 'a\ufffdb' }]],
    ['a stream, one byte at a time', () => trickle(Buffer.from('first\r\nsecond\r\nthird'), 1), EXPECTED],
    ['a gzip stream, one byte at a time', () => trickle(gzipSync(TEXT), 1), EXPECTED],
    ['a one-byte stream', () => trickle(Buffer.from('x'), 1), [{ lineNo: 1, text: 'x' }]],
  ])('%s', async (_name, source, expected) => {
    expect(await lines(source())).toEqual(expected);
  });

  it('a gzip stream that is cut short is an error, not a short log', async () => {
    const gz = gzipSync(TEXT.repeat(100));
    await expect(lines(file(gz.subarray(0, gz.length - 10)))).rejects.toThrow(/unexpected end of file/);
  });
});

describe('too-long lines: bounded, reported, and the next line read', () => {
  const MIB = 1024 * 1024;
  const huge = `${'é'.repeat(100)}${'x'.repeat(MIB)}`;

  it.each([
    ['a plain file', () => file(`before\n${huge}\nafter\n`)],
    ['a gzip file', () => file(gzipSync(`before\n${huge}\nafter\n`))],
    ['a stream in 1000-byte chunks', () => trickle(Buffer.from(`before\n${huge}\nafter\n`), 1000)],
  ])('a line of 1 MiB in %s', async (_name, source) => {
    const read = await lines(source());
    expect(read).toEqual([
      { lineNo: 1, text: 'before' },
      { lineNo: 2, tooLong: true, prefix: 'é'.repeat(TOO_LONG_PREFIX_BYTES / 2) },
      { lineNo: 3, text: 'after' },
    ]);
  });

  it.each([
    ['exactly the limit', 'x'.repeat(10), [{ lineNo: 1, text: 'x'.repeat(10) }]],
    ['exactly the limit with a CR', `${'x'.repeat(10)}\r`, [{ lineNo: 1, text: 'x'.repeat(10) }]],
    ['one byte over', 'x'.repeat(11), [{ lineNo: 1, tooLong: true, prefix: 'x'.repeat(11) }]],
    ['too long at the end, no newline', `a\n${'x'.repeat(300)}`, [{ lineNo: 1, text: 'a' }, { lineNo: 2, tooLong: true, prefix: 'x'.repeat(TOO_LONG_PREFIX_BYTES) }]],
  ])('%s (limit 10)', async (_name, text, expected) => {
    expect(await lines(trickle(Buffer.from(`${text}\n`.replace(/\n\n$/, '\n')), 3), { maxLineBytes: 10 })).toEqual(expected);
    expect(await lines(file(text), { maxLineBytes: 10 })).toEqual(expected);
  });
});

describe('skipLines: resuming an import', () => {
  const text = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join('\n');

  it.each([
    ['a plain file', () => file(text)],
    ['a gzip file', () => file(gzipSync(text))],
    ['a stream in 7-byte chunks', () => trickle(Buffer.from(text), 7)],
  ])('%s: numbers go on from where the skip ends', async (_name, source) => {
    const read = await lines(source(), { skipLines: 997 });
    expect(read).toEqual([
      { lineNo: 998, text: 'line 998' },
      { lineNo: 999, text: 'line 999' },
      { lineNo: 1000, text: 'line 1000' },
    ]);
  });

  it('skipping more lines than there are reads nothing', async () => {
    expect(await lines(file(text), { skipLines: 5000 })).toEqual([]);
  });

  it('a skipped line too long is not reported', async () => {
    expect(await lines(file(`${'x'.repeat(100)}\nok\n`), { skipLines: 1, maxLineBytes: 10 })).toEqual([{ lineNo: 2, text: 'ok' }]);
  });
});
