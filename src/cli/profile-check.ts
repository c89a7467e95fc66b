/**
 * `check --profile <name>`: the verdicts of another parser library (src/robots/profiles) for URLs
 * typed by people, put in canonical form first as `check` does (D-5). The library's own rule
 * order and matching apply; it names the deciding line only where it keeps one.
 */
import { Option } from 'commander';
import type { CliIo } from './io.js';
import { terminalText } from '../reports/terminal-text.js';
import { canonicalUrl } from '../robots/origin.js';
import { PARSER_PROFILES, PARSER_PROFILE_INFO, parseForProfile } from '../robots/profiles/index.js';
import type { ParserProfileName, ProfileParsed } from '../robots/profiles/index.js';

/** Width of the verdict column: the longest word, `disallowed`. */
const VERDICT_WIDTH = 'disallowed'.length;

export function profileOption(): Option {
  return new Option('--profile <name>', 'answer as this parser library does (docs/crawlers.md)').choices(PARSER_PROFILES);
}

/** Writes one result per URL and agent; returns true when some URL or the body could not be read. */
export function checkWithProfile(profile: ParserProfileName, body: Uint8Array, inputs: string[], uas: string[], json: boolean, io: CliIo): boolean {
  const info = PARSER_PROFILE_INFO[profile];
  const label = `${profile}, ${info.version}${info.basis === 'assumed' ? ', assumed' : ''}`;
  const fail = (input: string, message: string) =>
    io.stdout.write(json ? `${JSON.stringify({ input, profile, error: message })}\n` : `${terminalText(`${'error'.padEnd(VERDICT_WIDTH)}  ${input}  (${message})`)}\n`);
  let parsed: ProfileParsed;
  try {
    parsed = parseForProfile(profile, body);
  } catch (err) {
    // The library raises on this body (e.g. a rule Python's urlparse refuses): no verdict at all.
    for (const input of inputs) fail(input, `${label}: the library raises on this robots.txt: ${messageOf(err)}`);
    return true;
  }
  let failed = false;
  const showAgent = uas.length > 1;
  for (const input of inputs) {
    let url: string;
    try {
      url = canonicalUrl(input);
    } catch (err) {
      failed = true;
      fail(input, messageOf(err));
      continue;
    }
    for (const ua of uas) {
      try {
        const v = parsed.check(url, ua);
        if (json) {
          io.stdout.write(`${JSON.stringify({ input, url, ua, profile, basis: info.basis, allowed: v.allowed, line: v.line ?? null })}\n`);
        } else {
          const where = v.line === undefined ? (profile === 'node-robots-parser' ? 'no rule matched' : 'the library names no line') : `line ${v.line}`;
          io.stdout.write(`${terminalText(`${(v.allowed ? 'allowed' : 'disallowed').padEnd(VERDICT_WIDTH)}  ${showAgent ? `${ua}  ` : ''}${url}  (${label}; ${where})`)}\n`);
        }
      } catch (err) {
        failed = true;
        fail(input, `${label}: the library raises on this URL: ${messageOf(err)}`);
      }
    }
  }
  return failed;
}

function messageOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 200);
}
