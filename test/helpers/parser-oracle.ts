/**
 * Runs the Python oracle (test/fixtures/parser-oracle/oracle.py) on many bodies in one process
 * and compares its answers with a profile's. Answers are `true`, `false` or `'error'` (the
 * library raised).
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { ProfileCaseFile } from './profile-cases.js';
import { parseForProfile, robotsTxtUrlFor } from '../../src/robots/profiles/index.js';
import { decodeLikeFetch } from '../../src/robots/profiles/node-robots-parser.js';

const ORACLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/parser-oracle/oracle.py');
/** Debian's interpreter: the profiles reproduce its standard library and its python3-protego. */
export const SYSTEM_PYTHON = '/usr/bin/python3';

export type OracleAnswer = boolean | 'error';
/** The profiles the Python oracle answers for (oracle.py's PROFILES). */
export type PythonOracleProfile = 'python-urllib' | 'python-urllib-rfc9309' | 'scrapy-protego' | 'scrapy-protego-0.7';

/**
 * A Python profile against its library on one set of files: no disagreement, on at least 14,000
 * cases (issue 19, "Done when"). The counts are logged for docs/crawlers.md.
 */
export function expectPythonOracleAgrees(profile: PythonOracleProfile, files: readonly ProfileCaseFile[]): void {
  const library = runPythonOracle(profile, files);
  const ours = profileAnswers(files, (body) => parseForProfile(profile, body));
  const counts = tally(library);
  console.info(`${profile} oracle: ${JSON.stringify(counts)}`);
  expect(disagreements(files, library, ours).slice(0, 10)).toEqual([]);
  expect(counts.cases).toBeGreaterThanOrEqual(14_000);
}

export function runPythonOracle(profile: PythonOracleProfile, files: readonly ProfileCaseFile[]): OracleAnswer[][] {
  const input = files.map((f) => JSON.stringify({ body_b64: Buffer.from(f.body).toString('base64'), cases: f.cases })).join('\n') + '\n';
  const run = spawnSync(SYSTEM_PYTHON, [ORACLE, profile], { input, encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 });
  if (run.error) throw run.error;
  if (run.status !== 0) throw new Error(`oracle exited ${run.status}: ${run.stderr}`);
  const lines = run.stdout.split('\n').filter((l) => l.length > 0);
  if (lines.length !== files.length) throw new Error(`oracle answered ${lines.length} bodies of ${files.length}`);
  return lines.map((line) => {
    const answers = (JSON.parse(line) as Record<string, Array<boolean | string>>)[profile]!;
    return answers.map((a) => (typeof a === 'boolean' ? a : 'error'));
  });
}

export interface Disagreement {
  file: string;
  url: string;
  token: string;
  library: OracleAnswer;
  profile: OracleAnswer;
}

/** Answers of a profile for the same files, `'error'` where it throws as the library raises. */
export function profileAnswers(files: readonly ProfileCaseFile[], parse: (body: Uint8Array) => { check(url: string, token: string): { allowed: boolean } }): OracleAnswer[][] {
  return files.map((f) => {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(f.body);
    } catch {
      return f.cases.map(() => 'error' as const);
    }
    return f.cases.map(([url, token]) => {
      try {
        return parsed.check(url, token).allowed;
      } catch {
        return 'error' as const;
      }
    });
  });
}

export function disagreements(files: readonly ProfileCaseFile[], library: OracleAnswer[][], profile: OracleAnswer[][]): Disagreement[] {
  const out: Disagreement[] = [];
  files.forEach((f, i) => {
    f.cases.forEach(([url, token], j) => {
      if (library[i]![j] !== profile[i]![j]) out.push({ file: f.name, url, token, library: library[i]![j]!, profile: profile[i]![j]! });
    });
  });
  return out;
}

/** Counts for the docs: cases, of which allowed / disallowed / error under the library. */
export function tally(answers: OracleAnswer[][]): { cases: number; allowed: number; disallowed: number; errors: number } {
  const flat = answers.flat();
  return { cases: flat.length, allowed: flat.filter((a) => a === true).length, disallowed: flat.filter((a) => a === false).length, errors: flat.filter((a) => a === 'error').length };
}

interface RobotsParserResult {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getMatchingLineNumber(url: string, ua?: string): number;
}
/** npm robots-parser 3.0.1 itself: CommonJS; its typings declare an ES default export it does not have. */
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, contents: string) => RobotsParserResult;

/**
 * npm robots-parser's answers under the node-robots-parser contract (robots.txt URL at the
 * checked URL's origin, body as fetch's text()): `"<allowed> <line or ->"`, or `error` where it
 * gives no verdict.
 */
export function robotsParserLibraryAnswers(f: ProfileCaseFile): string[] {
  const text = decodeLikeFetch(f.body);
  const byRobotsUrl = new Map<string, RobotsParserResult>();
  return f.cases.map(([url, token]) => {
    let robotsUrl: string;
    try {
      robotsUrl = robotsTxtUrlFor(url);
    } catch {
      return 'error';
    }
    let lib = byRobotsUrl.get(robotsUrl);
    if (!lib) byRobotsUrl.set(robotsUrl, (lib = robotsParser(robotsUrl, text)));
    const allowed = lib.isAllowed(url, token);
    if (allowed === undefined) return 'error';
    const line = lib.getMatchingLineNumber(url, token);
    return `${allowed} ${line === -1 ? '-' : line}`;
  });
}
