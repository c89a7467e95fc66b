/**
 * Differential check of src/robots against Google's reference parser (google/robotstxt robots.cc),
 * built as $ORACLE_DIR/driver by test/oracle/build.sh (see test/oracle/README.md). Not a test:
 * it needs Google's source and a C++ toolchain, which CI does not have.
 *
 *   sh test/oracle/run.sh [--fuzz N] [--shards K] [--max-diffs N] [--selftest]
 *
 * Generates cases deterministically from the 3,000-file corpus (and random edge-case files),
 * writes them in the driver's binary format, runs the driver (K shards in parallel), runs our
 * engine, and compares verdict and deciding line. The report goes to stdout and
 * $ORACLE_DIR/report.txt, every difference to $ORACLE_DIR/diffs.jsonl.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { loadRobotsSample, type SampleFile } from '../helpers/corpus.js';
import { parseRobotsTxt } from '../../src/robots/index.js';

const ORACLE_DIR = process.env.ORACLE_DIR ?? path.join(os.tmpdir(), 'robots-audit-oracle');
const DRIVER = `${ORACLE_DIR}/driver`;
const args = process.argv.slice(2);
const argVal = (name: string, dflt: number): number => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const MAX_DIFFS_SHOWN = argVal('--max-diffs', 20);
const SHARDS = argVal('--shards', 2);
const SELFTEST = args.includes('--selftest');

// ---------- deterministic PRNG ----------
function seedOf(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
function mulberry32(a: number): () => number {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------- case generation ----------
const FIXED_UAS = ['Googlebot', 'googlebot-image', 'Bingbot', 'GPTBot', 'ClaudeBot', 'CCBot', 'foo', 'Googlebot-News', 'bar_baz'];
const WORDS = ['foo', 'bar', 'page', 'x', 'admin', 'search', 'Index', 'a-b', 'wp-admin', 'cart', 'p1', '%41', '%e2%82%ac', 'index.html', 'index.htm', 'img.png', 'doc.pdf', ''];
const EXTS = ['', '', '', '.html', '.php', '.js', '.css', '.jpg', '/', '.xml'];
const QUERIES = ['', '', '', '?a=1', '?q=test&page=2', '?', ';jsessionid=1', '?s=%20x', '#frag', '?utm_source=x'];
const MAX_RULE_VALUES = 60;
const RANDOM_PATHS = 10;

/** Percent-encode bytes that are not printable ASCII (the URL handed to both sides is ASCII). */
function encodeBytes(latin1: string): string {
  let out = '';
  for (let i = 0; i < latin1.length; i++) {
    const c = latin1.charCodeAt(i);
    if (c > 0x20 && c < 0x7f) out += latin1[i];
    else out += '%' + c.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

interface FileCases {
  file: { id: string; host: string; body: Buffer };
  phase: 'corpus' | 'fuzz';
  uas: string[];
  urls: string[];
}

function casesFor(file: SampleFile): FileCases {
  const rnd = mulberry32(seedOf(file.id));
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const text = file.body.toString('latin1');
  const lines = text.split(/\r\n|\r|\n/);

  const uas = new Set<string>(FIXED_UAS);
  const ruleValues: string[] = [];
  const seenValues = new Set<string>();
  for (const line of lines) {
    const ua = /^\s*user-agent\s*:\s*([A-Za-z_-]+)/i.exec(line);
    if (ua) {
      uas.add(ua[1]!);
      continue;
    }
    const rule = /^\s*(?:allow|disallow)\s*:([^#]*)/i.exec(line);
    if (rule && ruleValues.length < MAX_RULE_VALUES) {
      const v = rule[1]!.trim();
      if (v !== '' && !seenValues.has(v)) {
        seenValues.add(v);
        ruleValues.push(v);
      }
    }
  }

  const base = `https://${file.host}`;
  const urls = new Set<string>([`${base}/`]);
  for (const v of ruleValues) {
    let p = v.replace(/\$$/, '').replace(/\*/g, () => pick(['x', 'foo', 'abc/def', '', 'a.b', '123']));
    if (!p.startsWith('/')) p = '/' + p;
    p = encodeBytes(p);
    urls.add(base + p);
    const r = rnd();
    if (r < 0.35) urls.add(base + p.replace(/\/?$/, '/') + pick(['extra', 'x.html', 'index.html', 'sub/page']));
    else if (r < 0.7) urls.add(base + p + pick(['?a=1', '?a=1', '&b=2', '$', '.html']));
    else if (r < 0.8 && p.length > 2) urls.add(base + p.slice(0, -1)); // one char short of the rule
  }
  for (let i = 0; i < RANDOM_PATHS; i++) {
    const segs: string[] = [];
    const n = 1 + Math.floor(rnd() * 4);
    for (let s = 0; s < n; s++) segs.push(pick(WORDS));
    urls.add(base + '/' + segs.join('/') + pick(EXTS) + pick(QUERIES));
  }
  return { file, phase: 'corpus', uas: [...uas], urls: [...urls] };
}


// ---------- synthetic fuzz bodies (edge cases of Google's byte-level parser) ----------
const FUZZ_FILES = argVal('--fuzz', 5000);
const FUZZ_UAS = ['Googlebot', 'googlebot', 'GOOGLEBOT', 'Googlebot-Image', 'Googlebot-News', 'FooBot', 'foo', 'bar_baz', 'Bingbot', 'x'];
const K_UA = ['User-agent', 'user-agent', 'USER-AGENT', 'User-Agent', 'useragent', 'user agent', 'User-agentx', 'user-agents', 'user_agent', 'User-ag'];
const K_ALLOW = ['Allow', 'allow', 'ALLOW', 'Allowed', 'allow-x', 'Alow'];
const K_DIS = ['Disallow', 'disallow', 'DISALLOW', 'dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw', 'Disallowed', 'dis allow', 'Disalow-x'];
const K_OTHER = ['Sitemap', 'site-map', 'Crawl-delay', 'Noindex', 'Host', 'foo', '', 'Clean-param'];
const SEPS = [':', ':', ':', ': ', ' : ', ':\t', ' ', '\t', '', '::', ' :'];
const LEAD = ['', '', '', '', ' ', '\t', '\v', '\f', '  '];
const TRAIL = ['', '', '', ' ', '\t', ' # c', '#', '# x: y', '\v', '\f', ' \r'.slice(0, 1)];
const UA_VALUES = ['*', '*', '* ', '*foo', '* foo', '*\tx', 'Googlebot', 'googlebot/2.1', 'Googlebot-Image', 'Googlebot News', 'Googlebot*', 'GoogleBot;x', 'FooBot', 'foo', 'bar_baz', 'bar baz', 'Bingbot', 'x', '\xe9bot', 'Googlebot\xe9', '', ' ', '-', '_'];
const PAT_ATOMS = ['/', '/', '/', 'a', 'b', 'foo', '*', '*', '$', '%2f', '%2F', '%aa', '%AA', '%4', '%', '%zz', '\xc3\xa9', '\xe9', '?', '=', '&', '.', 'index.html', 'index.htm', '/index.htmx', ';', '~', '+', ' ', 'A', '%41', 'a%62', '-', '_', '!', ':', '@', '\x7f'];
const PATH_ATOMS = ['/', '/', '/', 'a', 'b', 'foo', 'bar', '%2f', '%2F', '%aa', '%AA', '%C3%A9', '%c3%a9', '%E9', '%4', '%', '?', '=', '&', '.', 'index.html', 'index.htm', ';', '~', '+', 'A', '%41', '-', '_', '$', '*', '!', ':', '@', 'x.php'];
const URL_PREFIX = ['https://h.example', 'https://h.example', 'https://h.example', 'http://h.example:8080', '//h.example', 'h.example', '', 'https://h.example#', 'https://u:p@h.example', 'HTTPS://H.EXAMPLE', 'ftp://h'];

function fuzzCases(n: number): FileCases {
  const rnd = mulberry32(0x9e3779b9 ^ n);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const pattern = (max: number): string => {
    let p = rnd() < 0.85 ? '/' : '';
    const k = Math.floor(rnd() * max);
    for (let i = 0; i < k; i++) p += pick(PAT_ATOMS);
    return p;
  };
  const parts: string[] = [];
  const r0 = rnd();
  if (r0 < 0.05) parts.push('\xef\xbb\xbf');
  else if (r0 < 0.07) parts.push('\xef\xbb');
  else if (r0 < 0.08) parts.push('\xef');
  else if (r0 < 0.09) parts.push('\xef\xbb\xbf\xef\xbb\xbf');
  else if (r0 < 0.10) parts.push('\xbb\xbf');
  const nLines = 1 + Math.floor(rnd() * 30);
  const eols = ['\n', '\n', '\n', '\r\n', '\r\n', '\r', '\n\r', '\r\r\n'];
  const fileEol = pick(eols);
  for (let i = 0; i < nLines; i++) {
    const r = rnd();
    let line: string;
    if (r < 0.2) line = pick(LEAD) + pick(K_UA) + pick(SEPS) + pick(UA_VALUES) + pick(TRAIL);
    else if (r < 0.45) line = pick(LEAD) + pick(K_ALLOW) + pick(SEPS) + pattern(8) + pick(TRAIL);
    else if (r < 0.75) line = pick(LEAD) + pick(K_DIS) + pick(SEPS) + pattern(8) + pick(TRAIL);
    else if (r < 0.82) line = pick(LEAD) + pick(K_OTHER) + pick(SEPS) + pick(['10', 'https://h.example/s.xml', '', '/x', 'a b']) + pick(TRAIL);
    else if (r < 0.9) line = pick(['', '', '# comment', '   ', '\t', '#User-agent: *', '<html>', 'Disallow /x', 'Disallow /x /y', 'User-agent *', 'Allow:/a\x00/b', 'Disallow: /\x00', '\x00Disallow: /']);
    else if (r < 0.905) {
      // long line: Google keeps the first 16663 bytes (16664-byte buffer, NUL-terminated)
      const len = 16600 + Math.floor(rnd() * 200);
      const head = pick(['Disallow: /', 'Allow: /', 'User-agent: ', '#', 'Disallow: /' + 'a'.repeat(10) + '*']);
      line = head + 'a'.repeat(Math.max(0, len - head.length - 3)) + pick(['b', '$', '/c', '*']);
    } else {
      line = pick(LEAD) + pick([...K_ALLOW, ...K_DIS]) + pick(SEPS) + pattern(4);
      const at = Math.floor(rnd() * (line.length + 1));
      line = line.slice(0, at) + '\x00' + line.slice(at); // NUL ends Google's C-string line
    }
    parts.push(line);
    if (i < nLines - 1 || rnd() < 0.5) parts.push(rnd() < 0.8 ? fileEol : pick(eols));
  }
  const body = Buffer.from(parts.join(''), 'latin1');
  const urls = new Set<string>(['https://h.example/', 'https://h.example', 'https://h.example/index.html']);
  // paths built from rule values seen in the body (so that rules do match), plus random ones
  // A value ends at whitespace, `#` or NUL (the character class is built from a string: NUL cannot be written in a regex literal here).
  const valueRe = new RegExp('(?:allow|disallow)\\s*:\\s*([^\\s#' + String.fromCharCode(0) + ']*)', 'gi');
  const vals = [...parts.join('').matchAll(valueRe)].map((m) => m[1]!);
  for (const v of vals.slice(0, 15)) {
    const p = encodeBytes(v.replace(/\$$/, '').replace(/\*/g, () => pick(['', 'x', 'a/b'])));
    urls.add('https://h.example' + (p.startsWith('/') ? '' : '/') + p + pick(['', '', 'x', '/', '?a=1', '/index.html', '%2F']));
  }
  for (let i = 0; i < 12; i++) {
    let p = '';
    const k = Math.floor(rnd() * 7);
    for (let j = 0; j < k; j++) p += pick(PATH_ATOMS);
    urls.add(pick(URL_PREFIX) + (rnd() < 0.85 ? '/' : pick(['?', ';', '#', ''])) + p + pick(['', '', '#frag', '?q=1#x/y']));
  }
  return { file: { id: `fuzz-${n}`, host: 'h.example', body }, phase: 'fuzz', uas: FUZZ_UAS, urls: [...urls] };
}

// ---------- driver input ----------
function writeShard(path: string, fcs: FileCases[]): void {
  const fd = fs.openSync(path, 'w');
  const chunks: Buffer[] = [];
  let pending = 0;
  const flush = () => {
    fs.writeSync(fd, Buffer.concat(chunks));
    chunks.length = 0;
    pending = 0;
  };
  for (const fc of fcs) {
    chunks.push(Buffer.from(`B ${fc.file.body.length}\n`, 'latin1'), fc.file.body);
    pending += fc.file.body.length;
    for (const ua of fc.uas) {
      const uaB = Buffer.from(ua, 'utf8');
      for (const url of fc.urls) {
        const urlB = Buffer.from(url, 'utf8');
        chunks.push(Buffer.from(`C ${uaB.length} ${urlB.length}\n`, 'latin1'), uaB, urlB);
        pending += urlB.length + 20;
      }
    }
    if (pending > 8 << 20) flush();
  }
  flush();
  fs.closeSync(fd);
}

function runDriver(inPath: string, outPath: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(DRIVER, [], { stdio: [fs.openSync(inPath, 'r'), fs.openSync(outPath, 'w'), 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`driver exit ${code}`))));
  });
}

// ---------- main ----------
const tLoad = performance.now();
const sample = loadRobotsSample();
const all: FileCases[] = [...sample.map(casesFor), ...Array.from({ length: FUZZ_FILES }, (_, n) => fuzzCases(n))];
const nChecks = all.reduce((s, fc) => s + fc.uas.length * fc.urls.length, 0);
const googleBytes = all.reduce((s, fc) => s + fc.uas.length * fc.urls.length * fc.file.body.length, 0);
console.log(`files ${all.length}, checks ${nChecks}, bytes Google parses ${(googleBytes / 1e9).toFixed(2)} GB (gen ${((performance.now() - tLoad) / 1000).toFixed(1)} s)`);

// Shards balanced by Google's work (checks × body bytes).
const shards: FileCases[][] = Array.from({ length: SHARDS }, () => []);
const load = new Array<number>(SHARDS).fill(0);
const order = all.map((fc, i) => i).sort((a, b) => {
  const w = (fc: FileCases) => fc.uas.length * fc.urls.length * (fc.file.body.length + 200);
  return w(all[b]!) - w(all[a]!);
});
const shardOf = new Array<number>(all.length);
for (const i of order) {
  const fc = all[i]!;
  let k = 0;
  for (let j = 1; j < SHARDS; j++) if (load[j]! < load[k]!) k = j;
  shardOf[i] = k;
  load[k]! += fc.uas.length * fc.urls.length * (fc.file.body.length + 200);
}
for (let i = 0; i < all.length; i++) shards[shardOf[i]!]!.push(all[i]!);
for (let k = 0; k < SHARDS; k++) writeShard(`${ORACLE_DIR}/cases.${k}.bin`, shards[k]!);

// Google (shards in parallel).
const tG = performance.now();
const shardTimes = await Promise.all(shards.map((_, k) => runDriver(`${ORACLE_DIR}/cases.${k}.bin`, `${ORACLE_DIR}/google.${k}.out`)));
const googleWall = performance.now() - tG;
const googleRes = new Map<FileCases, Int32Array>(); // [allowed, line] pairs
for (let k = 0; k < SHARDS; k++) {
  const out = fs.readFileSync(`${ORACLE_DIR}/google.${k}.out`, 'latin1').split('\n');
  let pos = 0;
  for (const fc of shards[k]!) {
    const n = fc.uas.length * fc.urls.length;
    const arr = new Int32Array(2 * n);
    for (let i = 0; i < n; i++) {
      const [a, l] = out[pos++]!.split(' ');
      arr[2 * i] = Number(a);
      arr[2 * i + 1] = Number(l);
    }
    googleRes.set(fc, arr);
  }
  if (out.length - 1 !== pos) throw new Error(`shard ${k}: ${out.length - 1} output lines, ${pos} expected`);
}

// Ours (one process, one parse per file).
const tO = performance.now();
const oursRes = new Map<FileCases, Int32Array>();
let oursParseMs = 0;
for (const fc of all) {
  const tp = performance.now();
  // --selftest: feed ours a mutated body (CR -> LF, and '/a' -> '/b') to prove the harness reports differences.
  const body = SELFTEST ? Buffer.from(fc.file.body.toString('latin1').replace(/\r/g, '\n').replace(/\/a/g, '/b'), 'latin1') : fc.file.body;
  const robots = parseRobotsTxt(new Uint8Array(body.buffer, body.byteOffset, body.length));
  oursParseMs += performance.now() - tp;
  const arr = new Int32Array(2 * fc.uas.length * fc.urls.length);
  let i = 0;
  for (const ua of fc.uas) {
    for (const url of fc.urls) {
      const v = robots.check(url, ua);
      arr[i++] = v.allowed ? 1 : 0;
      arr[i++] = v.line ?? 0;
    }
  }
  oursRes.set(fc, arr);
}
const oursWall = performance.now() - tO;

// Compare.
interface Diff { phase: string; host: string; id: string; ua: string; url: string; google: [boolean, number]; ours: [boolean, number | null]; verdict: boolean; line: boolean }
const diffs: Diff[] = [];
let verdictDiffs = 0;
let lineDiffs = 0;
const stats: Record<string, { files: number; checks: number; disallowed: number; withLine: number; allowedByRule: number; vd: number; ld: number }> = {};
for (const fc of all) {
  const g = googleRes.get(fc)!;
  const o = oursRes.get(fc)!;
  const st = (stats[fc.phase] ??= { files: 0, checks: 0, disallowed: 0, withLine: 0, allowedByRule: 0, vd: 0, ld: 0 });
  st.files++;
  let i = 0;
  for (const ua of fc.uas) {
    for (const url of fc.urls) {
      const vd = g[2 * i] !== o[2 * i];
      const ld = g[2 * i + 1] !== o[2 * i + 1];
      st.checks++;
      if (g[2 * i] === 0) st.disallowed++;
      if (g[2 * i + 1] !== 0) st.withLine++;
      if (g[2 * i] === 1 && g[2 * i + 1] !== 0) st.allowedByRule++;
      if (vd) { verdictDiffs++; st.vd++; }
      if (ld) { lineDiffs++; st.ld++; }
      if (vd || ld) {
        diffs.push({ phase: fc.phase, host: fc.file.host, id: fc.file.id, ua, url, google: [g[2 * i] === 1, g[2 * i + 1]!], ours: [o[2 * i] === 1, o[2 * i + 1] === 0 ? null : o[2 * i + 1]!], verdict: vd, line: ld });
      }
      i++;
    }
  }
}
fs.writeFileSync(`${ORACLE_DIR}/diffs.jsonl`, diffs.map((d) => JSON.stringify(d)).join('\n') + (diffs.length ? '\n' : ''));

const report: string[] = [];
report.push(`files ${all.length} (corpus ${sample.length} + fuzz ${FUZZ_FILES}); checks ${nChecks}; user-agents/file avg ${(all.reduce((s, f) => s + f.uas.length, 0) / all.length).toFixed(1)}; urls/file avg ${(all.reduce((s, f) => s + f.urls.length, 0) / all.length).toFixed(1)}`);
report.push(`verdict differences: ${verdictDiffs}`);
report.push(`line differences (Google 0 == ours null): ${lineDiffs}`);
for (const [ph, st] of Object.entries(stats)) report.push(`  ${ph}: files ${st.files}, checks ${st.checks}, Google disallowed ${st.disallowed}, Google line>0 ${st.withLine} (of which allowed by an allow rule ${st.allowedByRule}); verdict diffs ${st.vd}, line diffs ${st.ld}`);
report.push(`files with any difference: ${new Set(diffs.map((d) => d.id)).size}`);
report.push(`Google driver wall: ${(googleWall / 1000).toFixed(2)} s with ${SHARDS} parallel shards (shard times ${shardTimes.map((t) => (t / 1000).toFixed(2)).join(', ')} s; it reparses the body for every check, ${(googleBytes / 1e9).toFixed(2)} GB)`);
report.push(`ours wall: ${(oursWall / 1000).toFixed(2)} s single thread (parse ${(oursParseMs / 1000).toFixed(2)} s, one parse per file, checks ${((oursWall - oursParseMs) / 1000).toFixed(2)} s)`);

// Up to N diffs shown, at most 2 per file so that one file does not fill the list.
const perFile = new Map<string, number>();
const shown: Diff[] = [];
for (const d of diffs) {
  if (shown.length >= MAX_DIFFS_SHOWN) break;
  const c = perFile.get(d.id) ?? 0;
  if (c >= 2) continue;
  perFile.set(d.id, c + 1);
  shown.push(d);
}
const byId = new Map(all.map((fc) => [fc.file.id, fc.file]));
for (const d of shown) {
  const lines = byId.get(d.id)!.body.toString('latin1').split(/\r\n|\r|\n/);
  report.push('');
  report.push(`--- ${d.host} (${d.id}) ua=${d.ua} url=${d.url}`);
  report.push(`    google: ${d.google[0] ? 'allowed' : 'DISALLOWED'} line ${d.google[1]}   ours: ${d.ours[0] ? 'allowed' : 'DISALLOWED'} line ${d.ours[1]}`);
  const want = new Set<number>();
  for (const ln of [d.google[1], d.ours[1] ?? 0]) if (ln > 0) for (let k = ln - 2; k <= ln + 2; k++) if (k >= 1 && k <= lines.length) want.add(k);
  let prev = 0;
  for (const k of [...want].sort((a, b) => a - b)) {
    if (prev && k > prev + 1) report.push('    ...');
    const mark = k === d.google[1] && k === d.ours[1] ? 'GO' : k === d.google[1] ? 'G ' : k === d.ours[1] ? ' O' : '  ';
    report.push(`    ${mark} ${String(k).padStart(5)}: ${JSON.stringify(lines[k - 1]!.slice(0, 160))}`);
    prev = k;
  }
}
const text = report.join('\n');
console.log(text);
fs.writeFileSync(`${ORACLE_DIR}/report.txt`, text + '\n');
