/**
 * `check --profile <name>`: the verdicts of another parser library (src/robots/profiles) for URLs
 * typed by people, put in canonical form first as `check` does (D-5). The library's own rule
 * order and matching apply; it names the deciding line only where it keeps one.
 */
import { Option } from 'commander';
import type { CliIo } from './io.js';
import { writeCheckError, writeVerdicts } from './check-output.js';
import type { CheckOutput } from './check-output.js';
import { PARSER_PROFILES, PARSER_PROFILE_INFO, parseForProfile } from '../robots/profiles/index.js';
import type { ParserProfileName, ProfileParsed, ProfileVerdict } from '../robots/profiles/index.js';

export function profileOption(): Option {
  return new Option('--profile <name>', 'answer as this parser library does (docs/crawlers.md)').choices(PARSER_PROFILES);
}

/** Writes one result per URL and agent; returns true when some URL or the body could not be read. */
export function checkWithProfile(profile: ParserProfileName, body: Uint8Array, inputs: string[], uas: string[], json: boolean, io: CliIo): boolean {
  const info = PARSER_PROFILE_INFO[profile];
  const label = `${profile}, ${info.version}${info.basis === 'assumed' ? ', assumed' : ''}`;
  const output: CheckOutput = { io, json, errorFields: { profile }, errorMessage: messageOf };
  let parsed: ProfileParsed;
  try {
    parsed = parseForProfile(profile, body);
  } catch (err) {
    // The library raises on this body (e.g. a rule Python's urlparse refuses): no verdict at all.
    for (const input of inputs) writeCheckError(output, input, `${label}: the library raises on this robots.txt: ${messageOf(err)}`);
    return true;
  }
  return writeVerdicts(output, inputs, uas, (url, ua) => {
    let v: ProfileVerdict;
    try {
      v = parsed.check(url, ua);
    } catch (err) {
      return { error: `${label}: the library raises on this URL: ${messageOf(err)}` };
    }
    const where = v.line === undefined ? (profile === 'node-robots-parser' ? 'no rule matched' : 'the library names no line') : `line ${v.line}`;
    return { allowed: v.allowed, reason: `${label}; ${where}`, fields: { profile, basis: info.basis, allowed: v.allowed, line: v.line ?? null } };
  });
}

/** A library's message, cut short: some quote the whole input they refused. */
function messageOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 200);
}
