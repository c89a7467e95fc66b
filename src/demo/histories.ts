/**
 * Real robots.txt histories for the demo: for each host, the versions of its robots.txt in the
 * order they were collected, read from one brotli-compressed file beside this module
 * (data/README.md says where they come from and how to regenerate the file). Bodies stay
 * Buffers from end to end: decoding them to strings would rewrite BOMs, Latin-1 bytes and
 * invalid UTF-8, which an audit must see as served. No clock, no network; the only I/O is
 * reading the data file.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

/** Written into the file so that a loader never misreads a file of another layout. */
export const DEMO_HISTORIES_FORMAT = 'robots-audit demo histories v2';

/**
 * Where the data file lives, relative to this module, so that the same path works from the
 * sources (tsx) and from the compiled copy: `npm run build` copies it to dist/src/demo/data/.
 */
export const DEMO_HISTORIES_URL = new URL('./data/histories.bin.br', import.meta.url);

export interface DemoVersion {
  /** When the collecting repository recorded this body (its commit date). */
  date: Date;
  sha256: string;
  body: Buffer;
}

export interface DemoHistory {
  host: string;
  /** The repository that collected the series (the corpus's `source_repo`). */
  source: string;
  /** Oldest first; consecutive versions always differ. */
  versions: DemoVersion[];
}

/**
 * The manifest at the head of the file. The bodies follow it as raw bytes, each stored once (a
 * host that reverts, A -> B -> A, shares them), in the order of `bodies`: raw rather than base64
 * so that brotli, whose window spans the whole file, stores a body that differs from an earlier
 * one by a line as little more than that line.
 */
export interface DemoHistoriesManifest {
  format: typeof DEMO_HISTORIES_FORMAT;
  bodies: { sha256: string; bytes: number }[];
  hosts: { host: string; source: string; versions: { date: string; sha256: string }[] }[];
}

/** Thrown when the data file is missing, of another format, or corrupted. */
export class DemoHistoriesError extends Error {
  override name = 'DemoHistoriesError';
}

export function sha256Hex(body: Uint8Array): string {
  return createHash('sha256').update(body).digest('hex');
}

/** The histories in the file at `file` (by default the one shipped beside this module). */
export function loadDemoHistories(file: URL = DEMO_HISTORIES_URL): DemoHistory[] {
  let compressed: Buffer;
  try {
    compressed = readFileSync(file);
  } catch (error) {
    throw new DemoHistoriesError(`demo histories: cannot read ${file.pathname}: ${(error as Error).message}`);
  }
  return decodeDemoHistories(compressed, file.pathname);
}

/** The manifest ends at the first newline: JSON.stringify escapes every newline inside it. */
const MANIFEST_END = 0x0a;

/**
 * Parses and checks a data file: every body must hash to the sha256 it is stored under, and
 * every host's versions must be in date order, each a change from the one before. A file that
 * fails is unusable as a whole, so this throws rather than skipping a host: a demo that
 * silently lost a site would mislead.
 */
export function decodeDemoHistories(compressed: Buffer, name = 'demo histories'): DemoHistory[] {
  const fail = (why: string): never => {
    throw new DemoHistoriesError(`${name}: ${why}; regenerate it (src/demo/data/README.md)`);
  };
  let raw: Buffer;
  try {
    raw = brotliDecompressSync(compressed);
  } catch (error) {
    return fail(`not a brotli-compressed file (${(error as Error).message})`);
  }
  const end = raw.indexOf(MANIFEST_END);
  let manifest: DemoHistoriesManifest;
  try {
    manifest = JSON.parse(raw.subarray(0, end < 0 ? raw.length : end).toString('utf8')) as DemoHistoriesManifest;
  } catch (error) {
    return fail(`its manifest is not JSON (${(error as Error).message})`);
  }
  if (manifest.format !== DEMO_HISTORIES_FORMAT) fail(`format is ${JSON.stringify(manifest.format)}, expected ${JSON.stringify(DEMO_HISTORIES_FORMAT)}`);

  const payload = raw.subarray(end + 1);
  const declared = manifest.bodies.reduce((sum, b) => sum + b.bytes, 0);
  if (declared !== payload.length) fail(`the manifest lists ${declared} bytes of bodies but the file holds ${payload.length}`);
  const bodies = new Map<string, Buffer>();
  let offset = 0;
  for (const { sha256, bytes } of manifest.bodies) {
    // A copy, not a view: the histories outlive the decompressed file and should not pin it.
    const body = Buffer.from(payload.subarray(offset, offset + bytes));
    offset += bytes;
    const actual = sha256Hex(body);
    if (actual !== sha256) fail(`corrupted body: stored under sha256 ${sha256} but its bytes hash to ${actual}`);
    bodies.set(sha256, body);
  }

  return manifest.hosts.map(({ host, source, versions }) => {
    let previous: DemoVersion | undefined;
    const checked = versions.map(({ date, sha256 }) => {
      const body = bodies.get(sha256) ?? fail(`${host}: version of ${date} names body ${sha256}, which the file does not hold`);
      const version: DemoVersion = { date: new Date(date), sha256, body };
      if (Number.isNaN(version.date.getTime())) fail(`${host}: version date ${JSON.stringify(date)} is not a date`);
      if (previous && version.date <= previous.date) fail(`${host}: versions are not in date order at ${date}`);
      if (previous && version.sha256 === previous.sha256) fail(`${host}: the version of ${date} repeats the body before it`);
      previous = version;
      return version;
    });
    return { host, source, versions: checked };
  });
}

/** The manifest and the bodies it lists, before compression (the encoder's and the tests' view). */
export function demoHistoriesParts(histories: readonly DemoHistory[]): { manifest: DemoHistoriesManifest; bodies: Buffer[] } {
  const manifest: DemoHistoriesManifest = { format: DEMO_HISTORIES_FORMAT, bodies: [], hosts: [] };
  const bodies: Buffer[] = [];
  const stored = new Set<string>();
  for (const { host, source, versions } of histories) {
    for (const v of versions) {
      if (stored.has(v.sha256)) continue;
      stored.add(v.sha256);
      manifest.bodies.push({ sha256: v.sha256, bytes: v.body.length });
      bodies.push(v.body);
    }
    manifest.hosts.push({ host, source, versions: versions.map((v) => ({ date: v.date.toISOString(), sha256: v.sha256 })) });
  }
  return { manifest, bodies };
}

/** Compresses a manifest and its bodies into the file layout (also used by tests to forge damaged files). */
export function packDemoHistories(manifest: DemoHistoriesManifest, bodies: readonly Buffer[]): Buffer {
  const raw = Buffer.concat([Buffer.from(`${JSON.stringify(manifest)}\n`, 'utf8'), ...bodies]);
  // Best quality and the largest window, so that every earlier body is in reach; brotli is
  // deterministic, so regenerating the same histories gives the same bytes.
  return brotliCompressSync(raw, {
    params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_LGWIN]: constants.BROTLI_MAX_WINDOW_BITS, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
  });
}

/** The inverse of `decodeDemoHistories`, for the script that writes the file. */
export function encodeDemoHistories(histories: readonly DemoHistory[]): Buffer {
  const { manifest, bodies } = demoHistoriesParts(histories);
  return packDemoHistories(manifest, bodies);
}

/**
 * The body in force on `night`: the latest version dated at or before it (a version recorded
 * that very instant counts, as a fetch that night would have seen it), or null before the
 * first version, when the host had no robots.txt the demo knows of yet.
 */
export function bodyOnNight(history: Pick<DemoHistory, 'versions'>, night: Date): Buffer | null {
  let inForce: Buffer | null = null;
  for (const version of history.versions) {
    if (version.date > night) break;
    inForce = version.body;
  }
  return inForce;
}
