/**
 * `robots-audit eval`: bulk evaluation for scripts, Google-exact. Reads JSON Lines on standard
 * input, each `{"robots": "<body>" | "robots_b64": "<base64>", "ua": "<token>", "url": "<url>"}`,
 * and writes one line per input line, in order: `{"allowed": bool, "line": n | null}` or
 * `{"error": "<why>"}`. The URL goes to the engine exactly as given, with no canonicalisation:
 * the point is to compare verdicts with Google's reference parser, which does none (T29, C16).
 *
 * `--profile <name>` answers as another parser library does (src/robots/profiles: python-urllib,
 * scrapy-protego, node-robots-parser, crawler-commons), with the same lines in and out; `line` is
 * null where the library keeps none, and a library that raises on a body or URL gives an error line.
 *
 * Built for millions of lines: input is read chunk by chunk and output is written per chunk,
 * waiting for 'drain' when the consumer is slow, so memory stays flat; parses of repeated bodies
 * come from an LRU cache bounded in entries and bytes.
 */
import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { InvalidArgumentError } from 'commander';
import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.js';
import type { CommandRegistrar } from '../command-registrar.js';
import { LruCache } from '../lru-cache.js';
// parse.js, not the engine's index: the index also loads the linter, which eval never uses.
import { parseRobotsTxt } from '../../robots/parse.js';
import type { Verdict } from '../../robots/index.js';
import { DEFAULT_PARSER_PROFILE, PARSER_PROFILES, isParserProfileName, parseForProfile } from '../../robots/profiles/index.js';
import type { ParserProfileName } from '../../robots/profiles/index.js';

/** Parsed bodies kept at most. Scripts tend to send many URLs per body, in runs. */
export const EVAL_CACHE_MAX_ENTRIES = 1024;
/** Estimated memory of the parsed bodies kept at most (see `entryCost`). */
export const EVAL_CACHE_MAX_BYTES = 128 * 1024 * 1024;
/**
 * Rough memory of a parsed file per body byte: each rule keeps the value as written and its
 * normalised pattern, plus objects around them, and a body with other records is held until
 * they are read (RobotsTxt#records). An estimate, used only to bound the cache.
 */
export const PARSED_BYTES_PER_BODY_BYTE = 5;
/**
 * Longest input line accepted, in characters. A 500 KiB body is ~683 KB of base64, and
 * JSON escapes can make a `robots` string up to six times longer than its bytes; past this the
 * line is answered with an error and skipped without being held in memory.
 */
export const EVAL_MAX_LINE_CHARS = 16 * 1024 * 1024;

/** The part of a parsed robots.txt that eval needs. */
export interface Checkable {
  check(url: string, ua: string): Verdict;
}

export interface EvalOptions {
  /** The parser library to answer as (default `google`, the engine; ignored when `parse` is given). */
  profile?: ParserProfileName;
  /** Parses one body; injectable so tests can count parses. */
  parse?: (body: Uint8Array) => Checkable;
  cacheMaxEntries?: number;
  cacheMaxBytes?: number;
  maxLineChars?: number;
}

export interface EvalStats {
  lines: number;
  errors: number;
  parses: number;
  cacheHits: number;
}

const EMPTY_LINE = `${JSON.stringify({ error: 'empty line' })}\n`;
const BASE64 = /^[A-Za-z0-9+/]*$/;

/** Answers single input lines (without their line break), each with one output line. */
export function createLineEvaluator(options: EvalOptions = {}) {
  const parse = options.parse ?? parserFor(options.profile ?? DEFAULT_PARSER_PROFILE);
  const cache = new LruCache<Checkable>({
    maxEntries: options.cacheMaxEntries ?? EVAL_CACHE_MAX_ENTRIES,
    maxBytes: options.cacheMaxBytes ?? EVAL_CACHE_MAX_BYTES,
  });
  const stats: EvalStats = { lines: 0, errors: 0, parses: 0, cacheHits: 0 };

  const fail = (why: string): string => {
    stats.errors += 1;
    return `${JSON.stringify({ error: why })}\n`;
  };

  // The two kinds of key live in one cache; a one-character prefix keeps them apart.
  const fromText = (robots: string): Checkable => {
    const key = `t${robots}`;
    const hit = cache.get(key);
    if (hit !== undefined) {
      stats.cacheHits += 1;
      return hit;
    }
    const body = Buffer.from(robots, 'utf8');
    const parsed = parse(body);
    stats.parses += 1;
    cache.set(key, parsed, entryCost(key, body.length));
    return parsed;
  };

  const fromBase64 = (b64: string): Checkable | string => {
    const key = `b${b64}`;
    const hit = cache.get(key);
    if (hit !== undefined) {
      stats.cacheHits += 1;
      return hit;
    }
    const why = base64Problem(b64);
    if (why !== undefined) return why;
    const body = Buffer.from(b64, 'base64');
    const parsed = parse(body);
    stats.parses += 1;
    cache.set(key, parsed, entryCost(key, body.length));
    return parsed;
  };

  const evaluate = (line: string): string => {
    stats.lines += 1;
    let input: unknown;
    try {
      input = JSON.parse(line);
    } catch (err) {
      if (line.trim() === '') {
        stats.errors += 1;
        return EMPTY_LINE;
      }
      return fail(`not JSON: ${(err instanceof Error ? err.message : String(err)).slice(0, 200)}`);
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return fail('not a JSON object');
    const { robots, robots_b64: b64, ua, url } = input as Record<string, unknown>;
    if (typeof ua !== 'string') return fail(ua === undefined ? 'missing "ua"' : '"ua" must be a string');
    if (typeof url !== 'string') return fail(url === undefined ? 'missing "url"' : '"url" must be a string');
    let parsed: Checkable | string;
    let verdict: Verdict;
    try {
      if (robots !== undefined) {
        if (b64 !== undefined) return fail('give one of "robots" and "robots_b64", not both');
        if (typeof robots !== 'string') return fail('"robots" must be a string');
        parsed = fromText(robots);
      } else {
        if (b64 === undefined) return fail('missing "robots" or "robots_b64"');
        if (typeof b64 !== 'string') return fail('"robots_b64" must be a string');
        parsed = fromBase64(b64);
        if (typeof parsed === 'string') return fail(parsed);
      }
      // Google-exact: the URL as given, no canonicalisation (unlike `check`, D-5).
      verdict = parsed.check(url, ua);
    } catch (err) {
      // Only a profile's library raises (a rule or URL Python's urlparse refuses, a URL
      // robots-parser cannot place); the engine answers every input.
      return fail(`the ${options.profile ?? DEFAULT_PARSER_PROFILE} profile's library raises: ${(err instanceof Error ? err.message : String(err)).slice(0, 200)}`);
    }
    return `{"allowed":${verdict.allowed},"line":${verdict.line}}\n`;
  };

  const tooLong = (): string => {
    stats.lines += 1;
    return fail(`line longer than ${options.maxLineChars ?? EVAL_MAX_LINE_CHARS} characters`);
  };

  return { evaluate, tooLong, stats, cache };
}

/** Strict standard base64 (what Buffer, Python's b64encode and base64(1) write); Node's decoder would skip junk silently. */
function base64Problem(b64: string): string | undefined {
  let end = b64.length;
  if (b64.endsWith('==')) end -= 2;
  else if (b64.endsWith('=')) end -= 1;
  const padded = end !== b64.length;
  if (!BASE64.test(end === b64.length ? b64 : b64.slice(0, end))) return '"robots_b64" is not base64';
  if (padded ? b64.length % 4 !== 0 : b64.length % 4 === 1) return '"robots_b64" is not base64 (bad length or padding)';
  return undefined;
}

/** The engine for `google` (unchanged: its verdicts are the reference), a profile otherwise. */
function parserFor(profile: ParserProfileName): (body: Uint8Array) => Checkable {
  if (profile === 'google') return parseRobotsTxt;
  return (body) => {
    const parsed = parseForProfile(profile, body);
    return {
      check: (url, ua) => {
        const v = parsed.check(url, ua);
        return { allowed: v.allowed, line: v.line ?? null };
      },
    };
  };
}

function entryCost(key: string, bodyBytes: number): number {
  return key.length + bodyBytes * PARSED_BYTES_PER_BODY_BYTE;
}

/**
 * Streams `input` to `output`, one answer per line, in order. Lines end with LF or CRLF; a final
 * line without a break is answered too. Resolves with counts once the input has ended and
 * everything was handed to `output`.
 */
export async function runEval(input: Readable, output: Writable, options: EvalOptions = {}): Promise<EvalStats> {
  const { evaluate, tooLong, stats } = createLineEvaluator(options);
  const maxLineChars = options.maxLineChars ?? EVAL_MAX_LINE_CHARS;
  const decoder = new StringDecoder('utf8');
  // The start of a line not yet ended, in pieces (joined once, when its break arrives).
  const pending: string[] = [];
  let pendingChars = 0;
  let overflow = false;
  let firstLine = true;

  const answer = (line: string): string => {
    if (firstLine) {
      firstLine = false;
      if (line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    }
    if (overflow || line.length > maxLineChars) {
      overflow = false;
      return tooLong();
    }
    return evaluate(line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line);
  };

  const consume = (text: string): string => {
    let out = '';
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      let line = text.slice(start, nl);
      if (pending.length > 0) {
        pending.push(line);
        line = pending.join('');
        pending.length = 0;
        pendingChars = 0;
      }
      out += answer(line);
      start = nl + 1;
    }
    if (start < text.length && !overflow) {
      pendingChars += text.length - start;
      if (pendingChars > maxLineChars) {
        // Too long already: drop what we hold and skip to the next line break.
        overflow = true;
        pending.length = 0;
        pendingChars = 0;
      } else {
        pending.push(text.slice(start));
      }
    }
    return out;
  };

  // An output error (EPIPE when the reader quits) must stop the run, not crash the process.
  let failure: Error | undefined;
  const onError = (err: Error) => {
    failure ??= err;
  };
  output.on('error', onError);
  const send = async (out: string) => {
    if (failure) throw failure;
    if (out.length > 0 && !output.write(out)) await drained(output, () => failure);
  };
  try {
    for await (const chunk of input) {
      await send(consume(typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer)));
    }
    let out = consume(decoder.end());
    if (pending.length > 0 || overflow) {
      out += answer(pending.join(''));
      pending.length = 0;
    }
    await send(out);
    if (failure) throw failure;
  } finally {
    output.off('error', onError);
  }
  return stats;
}

/** Resolves on 'drain'; rejects when the output fails or closes first (no 'drain' would come). */
function drained(output: Writable, failure: () => Error | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (err?: Error) => {
      output.off('drain', onDrain);
      output.off('error', onFail);
      output.off('close', onClose);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => settle();
    const onFail = (err: Error) => settle(err);
    const onClose = () => settle(failure() ?? new Error('output closed before all answers were written'));
    if (output.destroyed) return onClose();
    output.on('drain', onDrain);
    output.on('error', onFail);
    output.on('close', onClose);
  });
}

interface EvalCliOptions {
  profile: ParserProfileName;
  stats?: boolean;
  cacheEntries: number;
  cacheMib: number;
}

export const registerEvalCommand: CommandRegistrar = (program: Command, io: CliIo) => {
  program
    .command('eval')
    .description(COMMAND_DESCRIPTIONS.eval)
    .option('--profile <name>', `answer as this parser library does: ${PARSER_PROFILES.join(', ')}`, profileName, DEFAULT_PARSER_PROFILE)
    .option('--stats', 'print counts (lines, errors, parses, cache hits) on standard error at the end')
    .option('--cache-entries <n>', 'parsed bodies kept for reuse', wholeNumber, EVAL_CACHE_MAX_ENTRIES)
    .option('--cache-mib <n>', 'estimated memory for parsed bodies, MiB', wholeNumber, EVAL_CACHE_MAX_BYTES / (1024 * 1024))
    .addHelpText(
      'after',
      `
Input, one JSON object per line:
  {"robots": "<robots.txt body>", "ua": "<user-agent token>", "url": "<absolute URL>"}
  {"robots_b64": "<base64 of the raw body bytes>", "ua": "...", "url": "..."}
"robots" is encoded to UTF-8; use "robots_b64" (standard alphabet) for exact bytes.

Output, one line per input line, in the same order:
  {"allowed":true,"line":3}       line: the deciding line, or null when no rule matched
  {"error":"<why>"}               for a line that is not valid input (also for blank lines)

The URL is evaluated exactly as given, with no canonicalisation, as Google's reference parser
does (unlike "check", which canonicalises URLs typed by people).

--profile google (the default) is Google's parser, exactly. The other profiles reproduce one
library each from the same bytes (contracts and agreement figures: docs/crawlers.md):
  python-urllib       CPython 3.11 urllib.robotparser (no line numbers: "line" is null)
  scrapy-protego      Protego 0.2.1 as Scrapy 2.8 calls it (no line numbers)
  node-robots-parser  npm robots-parser 3.0.1 (robots.txt at the URL's origin)
  crawler-commons     crawler-commons SimpleRobotRulesParser (Nutch, CCBot): ASSUMED,
                      built from its documentation and source, not checked against it
A body or URL the library raises on is answered with an "error" line.
`,
    )
    .action(async (options: EvalCliOptions) => {
      let stats: EvalStats;
      try {
        stats = await runEval(io.stdin, io.stdout, {
          profile: options.profile,
          cacheMaxEntries: options.cacheEntries,
          cacheMaxBytes: options.cacheMib * 1024 * 1024,
        });
      } catch (err) {
        // The reader went away (`| head`): nobody wants the rest, which is not a failure.
        if ((err as NodeJS.ErrnoException).code === 'EPIPE') return;
        throw err;
      }
      if (options.stats) {
        io.stderr.write(`eval: lines=${stats.lines} errors=${stats.errors} parses=${stats.parses} cache-hits=${stats.cacheHits}\n`);
      }
    });
};

function profileName(value: string): ParserProfileName {
  if (!isParserProfileName(value)) throw new InvalidArgumentError(`not a parser profile; one of ${PARSER_PROFILES.join(', ')}`);
  return value;
}

function wholeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('not a whole number');
  return n;
}
