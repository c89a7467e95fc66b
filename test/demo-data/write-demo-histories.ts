/**
 * Writes src/demo/data/histories.bin.br (format: src/demo/histories.ts) from the development
 * corpus's history.jsonl.gz: every series whose collecting repository states a licence
 * (demo-history-sources.ts), today avuim/RobotsTXTCrawler's 21 hosts. Run by a developer, never
 * at run time:
 *
 *   node --import tsx test/demo-data/write-demo-histories.ts [--corpus PATH] [--dry-run]
 *
 * --corpus   history.jsonl.gz (default: ../shared/corpus/history.jsonl.gz beside the repo)
 * --dry-run  report, write nothing
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { DEMO_HISTORIES_URL, decodeDemoHistories, encodeDemoHistories, sha256Hex } from '../../src/demo/histories.js';
import type { CorpusVersion } from './demo-history-sources.js';
import { historiesByHost, shippableVersions } from './demo-history-sources.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DEFAULT_CORPUS = path.resolve(ROOT, '../shared/corpus/history.jsonl.gz');
/** The npm tarball's budget is 2 MB in all; the demo's data may take a tenth of it. */
const MAX_FILE_BYTES = 200 * 1000;

interface CorpusLine {
  host: string;
  date: string;
  sha256: string;
  source_repo: string;
  body_b64: string;
}

function readCorpus(file: string): CorpusVersion[] {
  const lines = gunzipSync(readFileSync(file)).toString('utf8').split('\n').filter(Boolean);
  return lines.map((line) => {
    const row = JSON.parse(line) as CorpusLine;
    // Bytes, never a string: the corpus keeps BOMs, Latin-1 bytes and NULs as served.
    const body = Buffer.from(row.body_b64, 'base64');
    if (sha256Hex(body) !== row.sha256) throw new Error(`${file}: ${row.host} ${row.date}: body does not match its sha256`);
    return { host: row.host, source: row.source_repo, date: new Date(row.date), sha256: row.sha256, body };
  });
}

function main(): number {
  const { values } = parseArgs({ options: { corpus: { type: 'string', default: DEFAULT_CORPUS }, 'dry-run': { type: 'boolean', default: false } } });
  const corpus = readCorpus(values.corpus);
  const usable = shippableVersions(corpus);
  const left = new Map<string, Set<string>>();
  for (const v of corpus) if (!usable.includes(v)) left.set(v.source, (left.get(v.source) ?? new Set()).add(v.host));
  for (const [source, hosts] of left) console.log(`left out, no licence stated: ${source} (${hosts.size} hosts)`);

  const histories = historiesByHost(usable);
  const file = encodeDemoHistories(histories);
  // What is written must load: the same checks as at run time.
  decodeDemoHistories(file, 'the new file');
  const bodies = new Map(histories.flatMap((h) => h.versions.map((v) => [v.sha256, v.body.length] as const)));
  const dates = histories.flatMap((h) => h.versions.map((v) => v.date.toISOString())).sort();
  console.log(`hosts: ${histories.length}; versions: ${histories.reduce((n, h) => n + h.versions.length, 0)}, ${dates[0]} to ${dates.at(-1)}`);
  console.log(`distinct bodies: ${bodies.size}, ${[...bodies.values()].reduce((a, b) => a + b, 0)} bytes; file: ${file.length} bytes (budget ${MAX_FILE_BYTES})`);
  for (const h of histories) console.log(`  ${h.host} [${h.source}] ${h.versions.length} versions`);
  if (file.length > MAX_FILE_BYTES) {
    console.error(`the file would weigh ${file.length} bytes, over the budget of ${MAX_FILE_BYTES}`);
    return 1;
  }
  if (values['dry-run']) return 0;
  writeFileSync(DEMO_HISTORIES_URL, file);
  console.log(`wrote ${fileURLToPath(DEMO_HISTORIES_URL)}`);
  return 0;
}

process.exitCode = main();
