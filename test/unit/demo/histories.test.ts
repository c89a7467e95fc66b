import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { DemoHistoriesManifest, DemoHistory } from '../../../src/demo/histories.js';
import {
  DEMO_HISTORIES_FORMAT,
  DEMO_HISTORIES_URL,
  DemoHistoriesError,
  bodyOnNight,
  decodeDemoHistories,
  demoHistoriesParts,
  encodeDemoHistories,
  loadDemoHistories,
  packDemoHistories,
  sha256Hex,
} from '../../../src/demo/histories.js';

// Bodies written for these tests, with the bytes a string would lose: a BOM, CR-only line ends,
// a Latin-1 byte (0xE9, invalid as UTF-8), a NUL, and a newline (the manifest's end marker).
const BEFORE = Buffer.from('\ufeffUser-agent: *\nDisallow: /search\n', 'utf8');
const AI_BLOCKED = Buffer.concat([Buffer.from('User-agent: *\rDisallow: /search\r\rUser-agent: GPTBot\rDisallow: /\r# caf'), Buffer.from([0xe9, 0x00, 0x0a])]);
const COMMENT_EDIT = Buffer.from('# reviewed\nUser-agent: *\nDisallow: /search\n');

const version = (date: string, body: Buffer) => ({ date: new Date(date), sha256: sha256Hex(body), body });

const NEWS: DemoHistory = {
  host: 'news.example',
  source: 'tests',
  versions: [
    version('2025-07-29T13:16:45Z', BEFORE),
    version('2025-07-31T22:00:00Z', AI_BLOCKED), // recorded exactly at a night
    version('2025-08-01T06:55:00Z', BEFORE), // a revert: the first body again
  ],
};
const SHOP: DemoHistory = {
  host: 'shop.example',
  source: 'tests',
  versions: [version('2025-07-31T16:30:00Z', BEFORE), version('2025-08-29T06:46:00Z', COMMENT_EDIT)],
};

describe('bodyOnNight: the latest version dated at or before the night', () => {
  it.each<[string, string, Buffer | null]>([
    ['before the first version', '2025-07-29T13:16:44.999Z', null],
    ['exactly on the first version', '2025-07-29T13:16:45.000Z', BEFORE],
    ['a millisecond before the second', '2025-07-31T21:59:59.999Z', BEFORE],
    ['exactly on the second', '2025-07-31T22:00:00.000Z', AI_BLOCKED],
    ['between the second and the third', '2025-08-01T03:00:00.000Z', AI_BLOCKED],
    ['exactly on the last version', '2025-08-01T06:55:00.000Z', BEFORE],
    ['long after the last version', '2030-01-01T00:00:00.000Z', BEFORE],
  ])('%s (%s)', (_, night, expected) => {
    expect(bodyOnNight(NEWS, new Date(night))).toEqual(expected);
  });

  it('gives null for a host with no versions', () => {
    expect(bodyOnNight({ versions: [] }, new Date('2025-08-01T00:00:00Z'))).toBeNull();
  });
});

describe('the data file round trip', () => {
  const file = encodeDemoHistories([NEWS, SHOP]);

  it('gives back every body byte for byte, with its host, source and dates', () => {
    const [news, shop] = decodeDemoHistories(file);
    expect(news?.host).toBe('news.example');
    expect(news?.source).toBe('tests');
    expect(news?.versions.map((v) => [v.date.toISOString(), v.sha256])).toEqual(NEWS.versions.map((v) => [v.date.toISOString(), v.sha256]));
    expect(news?.versions.map((v) => v.body)).toEqual([BEFORE, AI_BLOCKED, BEFORE]);
    expect(shop?.versions.map((v) => v.body)).toEqual([BEFORE, COMMENT_EDIT]);
    expect(Buffer.isBuffer(news?.versions[1]?.body)).toBe(true);
  });

  it('stores a body once however many versions and hosts share it', () => {
    expect(demoHistoriesParts([NEWS, SHOP]).manifest.bodies.map((b) => b.sha256)).toEqual([sha256Hex(BEFORE), sha256Hex(AI_BLOCKED), sha256Hex(COMMENT_EDIT)]);
  });

  it('gives the same bytes when encoded twice', () => {
    expect(encodeDemoHistories([NEWS, SHOP]).equals(file)).toBe(true);
  });

  it('reads a file put together by hand in the documented layout: a JSON line, then the bodies', () => {
    const manifest = {
      format: DEMO_HISTORIES_FORMAT,
      bodies: [{ sha256: sha256Hex(AI_BLOCKED), bytes: AI_BLOCKED.length }],
      hosts: [{ host: 'a.example', source: 'tests', versions: [{ date: '2025-08-20T06:44:05+00:00', sha256: sha256Hex(AI_BLOCKED) }] }],
    };
    const [history] = decodeDemoHistories(brotliCompressSync(Buffer.concat([Buffer.from(`${JSON.stringify(manifest)}\n`), AI_BLOCKED])));
    expect(history?.versions[0]?.date.toISOString()).toBe('2025-08-20T06:44:05.000Z');
    expect(history?.versions[0]?.body.equals(AI_BLOCKED)).toBe(true);
  });
});

describe('a damaged data file fails loudly, naming what is wrong', () => {
  const sha = sha256Hex(AI_BLOCKED);
  /** The file with its manifest or bodies changed before compression. */
  const tampered = (change: (m: DemoHistoriesManifest, bodies: Buffer[]) => void) => {
    const { manifest, bodies } = structuredClone(demoHistoriesParts([NEWS, SHOP]));
    const buffers = bodies.map((b) => Buffer.from(b));
    change(manifest, buffers);
    return packDemoHistories(manifest, buffers);
  };

  it.each<[string, Buffer, RegExp]>([
    [
      'a body whose bytes changed (same length)',
      tampered((_, bodies) => void (bodies[1]![0] = 0x75)), // 'U' -> 'u'
      new RegExp(`corrupted body: stored under sha256 ${sha} but its bytes hash to [0-9a-f]{64}`),
    ],
    ['a body that went missing', tampered((m, bodies) => void (m.bodies.splice(1, 1), bodies.splice(1, 1))), new RegExp(`news\\.example: version of .* names body ${sha}, which the file does not hold`)],
    ['bodies longer than the manifest says', tampered((_, bodies) => void bodies.push(Buffer.from('extra'))), /the manifest lists \d+ bytes of bodies but the file holds \d+/],
    ['versions out of date order', tampered((m) => void m.hosts[0]?.versions.reverse()), /news\.example: versions are not in date order/],
    ['a version that repeats the one before', tampered((m) => m.hosts[1]?.versions.forEach((v) => (v.sha256 = sha256Hex(BEFORE)))), /shop\.example: the version of .* repeats the body before it/],
    ['a date that is not a date', tampered((m) => void (m.hosts[1]!.versions[0]!.date = 'spring')), /shop\.example: version date "spring" is not a date/],
    ['another format', tampered((m) => void ((m as { format: string }).format = 'robots-audit demo histories v1')), /format is "robots-audit demo histories v1", expected "robots-audit demo histories v2"/],
    ['a manifest that is not JSON', brotliCompressSync(Buffer.from('format: v2\n')), /its manifest is not JSON/],
    ['not brotli at all', Buffer.from('{"format":"robots-audit demo histories v2"}\n'), /not a brotli-compressed file/],
  ])('%s', (_, file, message) => {
    expect(() => decodeDemoHistories(file, 'histories.bin.br')).toThrow(DemoHistoriesError);
    expect(() => decodeDemoHistories(file, 'histories.bin.br')).toThrow(message);
    expect(() => decodeDemoHistories(file, 'histories.bin.br')).toThrow(/^histories\.bin\.br: .*; regenerate it \(src\/demo\/data\/README\.md\)$/);
  });
});

describe('loadDemoHistories reads a file', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'demo-histories-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads the histories of the file it is given', () => {
    const file = path.join(dir, 'histories.bin.br');
    writeFileSync(file, encodeDemoHistories([SHOP]));
    expect(loadDemoHistories(pathToFileURL(file)).map((h) => [h.host, h.versions.length])).toEqual([['shop.example', 2]]);
  });

  it('names the file it cannot read', () => {
    const missing = pathToFileURL(path.join(dir, 'absent.bin.br'));
    expect(() => loadDemoHistories(missing)).toThrow(DemoHistoriesError);
    expect(() => loadDemoHistories(missing)).toThrow(/cannot read .*absent\.bin\.br/);
  });
});

describe('the shipped file (src/demo/data/histories.bin.br)', () => {
  const histories = loadDemoHistories();
  const versions = histories.flatMap((h) => h.versions);

  it('holds the 21 hosts and 84 versions of avuim/RobotsTXTCrawler (ISC), and nothing from a source without a licence', () => {
    expect(histories).toHaveLength(21);
    expect(versions).toHaveLength(84);
    expect(new Set(histories.map((h) => h.source))).toEqual(new Set(['avuim/RobotsTXTCrawler']));
  });

  it('spans 29 July to 30 August 2025, the window the demo replays', () => {
    const dates = versions.map((v) => v.date.getTime());
    expect(new Date(Math.min(...dates)).toISOString().slice(0, 10)).toBe('2025-07-29');
    expect(new Date(Math.max(...dates)).toISOString().slice(0, 10)).toBe('2025-08-30');
  });

  it('stays small in the npm package (the tarball may weigh 2 MB in all)', () => {
    expect(statSync(DEMO_HISTORIES_URL).size).toBeLessThan(200_000);
  });
});
