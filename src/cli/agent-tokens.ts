/**
 * User-agent tokens typed on the command line (`agents add`, `track --ua`). Any non-empty token
 * is accepted, as stored agents may be any name; one that is not a product token (T14: only
 * letters, `-` and `_`) is accepted with a warning, because the matcher compares the caller's
 * whole name (T17, C10) and such a name can match no named group, only `*`.
 */
import type { CliIo } from './io.js';
import { isValidUserAgentToObey } from '../robots/index.js';

/** Trimmed tokens; empty ones reported (exit code 1) and dropped, odd ones warned about unless `warn` is false. */
export function checkAgentTokens(tokens: readonly string[], io: CliIo, options: { warn?: boolean } = {}): string[] {
  const kept: string[] = [];
  for (const raw of tokens) {
    const token = raw.trim();
    if (token === '') {
      io.stderr.write('robots-audit: empty user-agent token\n');
      io.exitCode = 1;
      continue;
    }
    if (options.warn !== false && !isValidUserAgentToObey(token)) {
      io.stderr.write(`warning: "${token}" is not a user-agent token (T14: letters, "-" and "_" only); it can match no named group\n`);
    }
    kept.push(token);
  }
  return kept;
}
