/**
 * Reading a /metrics answer the way Prometheus does, never with a regular expression over the
 * text:
 *
 * - `promtool check metrics` (Prometheus' own parser and linter, from Debian's prometheus
 *   package; .ci/run installs it when missing) says the exposition parses and follows the
 *   naming rules;
 * - `parseExposition` reads the values: a character-by-character reader of the text format
 *   (version 0.0.4: HELP and TYPE lines, samples with escaped label values, NaN and ±Inf), which
 *   groups `_bucket`, `_sum` and `_count` under their histogram. Written here because the npm
 *   parser of the format (parse-prometheus-text-format) folds a labelled histogram's buckets
 *   into one and drops its labels, and the fetch duration histogram is labelled by outcome.
 */
import { spawnSync } from 'node:child_process';

/**
 * Gauges of prom-client's default process metrics whose names end in `_total`, which promtool's
 * naming lint flags. They keep the names every Node.js dashboard queries; our own metrics get no
 * such pass.
 */
export const PROM_CLIENT_DEFAULT_GAUGES_NAMED_TOTAL = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** promtool's findings, one a line (empty: none), less those about PROM_CLIENT_DEFAULT_GAUGES_NAMED_TOTAL. Throws when promtool cannot be run. */
export function promtoolProblems(exposition: string): string {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
  if (run.error) throw new Error(`promtool is needed to check /metrics (.ci/run installs it; or apt-get install prometheus): ${run.error.message}`);
  // promtool exits 3 for lint findings only, 1 when the exposition does not parse.
  if (run.status !== 0 && run.status !== 3) return `promtool exit ${run.status}: ${run.stderr}`;
  const findings = `${run.stdout}${run.stderr}`.split('\n').filter((line) => line.trim() !== '');
  return findings.filter((line) => !PROM_CLIENT_DEFAULT_GAUGES_NAMED_TOTAL.includes(line.split(' ')[0]!)).join('\n');
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: string;
  help: string;
  samples: Sample[];
}

class ExpositionError extends Error {
  constructor(line: number, why: string) {
    super(`exposition line ${line}: ${why}`);
  }
}

const isNameStart = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || c === ':';
const isNameChar = (c: string) => isNameStart(c) || (c >= '0' && c <= '9');

/** A cursor over one line. */
class LineReader {
  at = 0;
  constructor(
    readonly text: string,
    readonly line: number,
  ) {}

  get done() {
    return this.at >= this.text.length;
  }
  peek() {
    return this.text[this.at] ?? '';
  }
  fail(why: string): never {
    throw new ExpositionError(this.line, `${why} at column ${this.at + 1}`);
  }
  skipBlanks() {
    while (this.peek() === ' ' || this.peek() === '\t') this.at += 1;
  }
  expect(c: string) {
    if (this.peek() !== c) this.fail(`expected "${c}"`);
    this.at += 1;
  }
  name(): string {
    const start = this.at;
    if (!isNameStart(this.peek())) this.fail('expected a name');
    while (isNameChar(this.peek())) this.at += 1;
    return this.text.slice(start, this.at);
  }
  /** Up to the next blank or the end. */
  token(): string {
    const start = this.at;
    while (!this.done && this.peek() !== ' ' && this.peek() !== '\t') this.at += 1;
    return this.text.slice(start, this.at);
  }
  quoted(): string {
    this.expect('"');
    let out = '';
    for (;;) {
      if (this.done) this.fail('unterminated label value');
      const c = this.text[this.at++]!;
      if (c === '"') return out;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const escaped = this.text[this.at++];
      if (escaped === 'n') out += '\n';
      else if (escaped === '\\' || escaped === '"') out += escaped;
      else this.fail('bad escape in a label value');
    }
  }
}

/** A float as Prometheus reads it (Go's ParseFloat): NaN and Inf in any case; prom-client writes `Nan`. */
function numberOf(token: string, reader: LineReader): number {
  const word = token.toLowerCase();
  if (word === '+inf' || word === 'inf') return Infinity;
  if (word === '-inf') return -Infinity;
  if (word === 'nan') return NaN;
  const n = Number(token);
  if (token === '' || Number.isNaN(n)) reader.fail(`not a number: "${token}"`);
  return n;
}

function readSample(reader: LineReader): Sample {
  const name = reader.name();
  const labels: Record<string, string> = {};
  reader.skipBlanks();
  if (reader.peek() === '{') {
    reader.expect('{');
    reader.skipBlanks();
    while (reader.peek() !== '}') {
      const label = reader.name();
      reader.skipBlanks();
      reader.expect('=');
      reader.skipBlanks();
      if (label in labels) reader.fail(`label ${label} twice`);
      labels[label] = reader.quoted();
      reader.skipBlanks();
      if (reader.peek() === ',') {
        reader.expect(',');
        reader.skipBlanks();
      } else if (reader.peek() !== '}') reader.fail('expected "," or "}"');
    }
    reader.expect('}');
  }
  reader.skipBlanks();
  const value = numberOf(reader.token(), reader);
  reader.skipBlanks();
  if (!reader.done) numberOf(reader.token(), reader); // a timestamp: read, not kept
  reader.skipBlanks();
  if (!reader.done) reader.fail('unexpected text after the sample');
  return { name, labels, value };
}

/** The family a sample belongs to: its own name, or a histogram's or summary's for the suffixed series. */
function familyOf(sampleName: string, families: Map<string, Family>): Family | undefined {
  const own = families.get(sampleName);
  if (own) return own;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sampleName.endsWith(suffix)) continue;
    const base = families.get(sampleName.slice(0, -suffix.length));
    if (base && (base.type === 'histogram' || (base.type === 'summary' && suffix !== '_bucket'))) return base;
  }
  return undefined;
}

export function parseExposition(text: string): Family[] {
  const families = new Map<string, Family>();
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const reader = new LineReader(raw, i + 1);
    reader.skipBlanks();
    if (reader.done) return;
    if (reader.peek() === '#') {
      reader.expect('#');
      reader.skipBlanks();
      const keyword = reader.token();
      if (keyword !== 'HELP' && keyword !== 'TYPE') return; // a plain comment
      reader.skipBlanks();
      const name = reader.name();
      const family = families.get(name) ?? { name, type: 'untyped', help: '', samples: [] };
      families.set(name, family);
      reader.skipBlanks();
      const rest = reader.text.slice(reader.at);
      if (keyword === 'TYPE') family.type = rest.trim();
      else family.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      return;
    }
    const sample = readSample(reader);
    const family = familyOf(sample.name, families) ?? { name: sample.name, type: 'untyped', help: '', samples: [] };
    families.set(family.name, family);
    family.samples.push(sample);
  });
  return [...families.values()];
}

export interface Histogram {
  /** Cumulative counts by upper bound, in the exposition's order (`+Inf` last). */
  buckets: [le: string, count: number][];
  count: number;
  sum: number;
}

export interface Scrape {
  families: Family[];
  /** The family named `name`; throws when absent. */
  family(name: string): Family;
  /** Samples of the series `name` (a family or a histogram's `_bucket`/`_sum`/`_count`) whose labels include `labels`. */
  samples(name: string, labels?: Record<string, string>): Sample[];
  /** The value of the one sample of `name` with `labels`; throws unless exactly one matches. */
  value(name: string, labels?: Record<string, string>): number;
  /** Sum of the values of `name` over the samples whose labels include `labels`. */
  sum(name: string, labels?: Record<string, string>): number;
  /** The histogram `name` of the series with exactly `labels` (besides `le`). */
  histogram(name: string, labels: Record<string, string>): Histogram;
}

const includes = (labels: Record<string, string>, wanted: Record<string, string>) => Object.entries(wanted).every(([k, v]) => labels[k] === v);

export function parseScrape(exposition: string): Scrape {
  const families = parseExposition(exposition);
  const all = families.flatMap((f) => f.samples);
  const family = (name: string) => {
    const found = families.find((f) => f.name === name);
    if (!found) throw new Error(`no metric ${name} in the scrape`);
    return found;
  };
  const samples = (name: string, labels: Record<string, string> = {}) => all.filter((s) => s.name === name && includes(s.labels, labels));
  const value = (name: string, labels: Record<string, string> = {}) => {
    const found = samples(name, labels);
    if (found.length !== 1) throw new Error(`${found.length} samples of ${name} with ${JSON.stringify(labels)}`);
    return found[0]!.value;
  };
  return {
    families,
    family,
    samples,
    value,
    sum: (name, labels = {}) => samples(name, labels).reduce((total, s) => total + s.value, 0),
    histogram(name, labels) {
      const exactly = (s: Sample) => {
        const { le: _le, ...rest } = s.labels;
        return Object.keys(rest).length === Object.keys(labels).length && includes(rest, labels);
      };
      return {
        buckets: samples(`${name}_bucket`, labels)
          .filter(exactly)
          .map((s) => [s.labels.le!, s.value]),
        count: value(`${name}_count`, labels),
        sum: value(`${name}_sum`, labels),
      };
    },
  };
}
