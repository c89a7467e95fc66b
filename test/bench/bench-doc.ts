/**
 * docs/benchmarks.md holds one section per benchmark between `<!-- bench:<name>:start -->` and
 * `<!-- bench:<name>:end -->` markers; each benchmark rewrites only its own section. Other docs
 * may hold such a section too (docs/sql-reporting.md: its timings).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BENCH_DOC = path.join(ROOT, 'docs/benchmarks.md');

export function sectionMarkers(name: string): { start: string; end: string } {
  return { start: `<!-- bench:${name}:start -->`, end: `<!-- bench:${name}:end -->` };
}

/** Replaces the named section (markers included in `text`) of `file` (docs/benchmarks.md), or appends it. */
export function writeBenchSection(name: string, text: string, file: string = BENCH_DOC): void {
  const { start, end } = sectionMarkers(name);
  let doc = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmarks\n';
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  if (from !== -1 && to > from) doc = doc.slice(0, from) + text + doc.slice(to + end.length);
  else doc = `${doc.trimEnd()}\n\n${text}\n`;
  fs.writeFileSync(file, doc);
}
