/**
 * Loads the corpus fixtures (test/fixtures/corpus, README there). Bodies come out as Buffers,
 * never strings: decoding would rewrite BOMs, Latin-1 bytes and invalid sequences, which are
 * exactly what the corpus is for. Each file is read once per process.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

export const CORPUS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/corpus');

export type SampleKind = 'robots' | 'html' | 'empty' | 'comments';

export interface SampleFile {
  /** First 16 hex digits of the body's sha256; unique in the sample. */
  id: string;
  host: string;
  kind: SampleKind;
  /** Length of the body in bytes. */
  bytes: number;
  tags: string[];
  body: Buffer;
}

export interface UserAgentEntry {
  token: string;
  family: 'search' | 'ai' | 'seo' | 'social' | 'other';
  full: string | null;
  source: string;
}

interface SampleLine {
  id: string;
  host: string;
  kind: SampleKind;
  bytes: number;
  tags: string[];
  body_b64: string;
}

let sample: SampleFile[] | undefined;
let userAgents: UserAgentEntry[] | undefined;

/** The 3,000 bodies of robots-sample.jsonl.gz, in file order (sorted by host). */
export function loadRobotsSample(): SampleFile[] {
  if (sample) return sample;
  const text = zlib.gunzipSync(fs.readFileSync(path.join(CORPUS_DIR, 'robots-sample.jsonl.gz'))).toString('utf8');
  sample = text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      const row = JSON.parse(line) as SampleLine;
      const body = Buffer.from(row.body_b64, 'base64');
      if (body.length !== row.bytes) throw new Error(`corpus ${row.id} (${row.host}): ${body.length} bytes decoded, ${row.bytes} expected`);
      return { id: row.id, host: row.host, kind: row.kind, bytes: row.bytes, tags: row.tags, body };
    });
  return sample;
}

/** The crawler tokens of user-agents.json, most relevant first. */
export function loadUserAgents(): UserAgentEntry[] {
  userAgents ??= JSON.parse(fs.readFileSync(path.join(CORPUS_DIR, 'user-agents.json'), 'utf8')) as UserAgentEntry[];
  return userAgents;
}

/** The one sample file of `host` (throws when there is none or several). */
export function sampleByHost(host: string): SampleFile {
  const found = loadRobotsSample().filter((f) => f.host === host);
  if (found.length !== 1) throw new Error(`corpus: ${found.length} files for host ${host}, expected 1`);
  return found[0]!;
}
