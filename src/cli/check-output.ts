/**
 * What `check` writes, with or without --profile: for each URL typed, put in canonical form first
 * (D-5), one line per agent (a JSON object with --json) giving the verdict, or an error line when
 * there is none. Both ways of answering write through this one loop, so that their lines cannot
 * drift apart: when each had its own, the terminal escaping reached the second only later.
 */
import { terminalText } from '../reports/terminal-text.js';
import { canonicalUrl } from '../robots/origin.js';
import type { CliIo } from './io.js';

/** Width of the verdict column: the longest word, `disallowed`. */
const VERDICT_WIDTH = 'disallowed'.length;
/** Where a detail line starts: under what follows the verdict column. */
const DETAIL_INDENT = ' '.repeat(VERDICT_WIDTH + 2);

export interface CheckOutput {
  io: CliIo;
  json: boolean;
  /** What a JSON error object names between the input and the error (--profile: the profile). */
  errorFields: Readonly<Record<string, unknown>>;
  /** The words an error line gives for a URL that cannot be parsed. */
  errorMessage(err: unknown): string;
}

export interface Verdict {
  allowed: boolean;
  /** Why, in words: the end of the text line, in parentheses. */
  reason: string;
  /** What the JSON object says after the input, the URL and the agent, in that order. */
  fields: Readonly<Record<string, unknown>>;
  /** Further text lines under the verdict's, indented to its URL (the usage preferences, issue 28). */
  details?: readonly string[];
}

/** No verdict for this URL and agent (the library raised on it), and why. */
export interface NoVerdict {
  error: string;
}

/** The answer for one URL, in canonical form, and one agent. */
export type DecideVerdict = (url: string, ua: string) => Verdict | NoVerdict;

/** Writes the error line of one URL typed. */
export function writeCheckError(output: CheckOutput, input: string, message: string): void {
  output.io.stdout.write(
    output.json ? `${JSON.stringify({ input, ...output.errorFields, error: message })}\n` : `${terminalText(`${'error'.padEnd(VERDICT_WIDTH)}  ${input}  (${message})`)}\n`,
  );
}

/** Writes one line per URL and agent; returns true when some URL got an error line instead. */
export function writeVerdicts(output: CheckOutput, inputs: readonly string[], uas: readonly string[], decide: DecideVerdict): boolean {
  let failed = false;
  // With one agent the lines need not name it.
  const showAgent = uas.length > 1;
  for (const input of inputs) {
    let url: string;
    try {
      url = canonicalUrl(input);
    } catch (err) {
      failed = true;
      writeCheckError(output, input, output.errorMessage(err));
      continue;
    }
    for (const ua of uas) {
      const answer = decide(url, ua);
      if ('error' in answer) {
        failed = true;
        writeCheckError(output, input, answer.error);
        continue;
      }
      if (output.json) {
        output.io.stdout.write(`${JSON.stringify({ input, url, ua, ...answer.fields })}\n`);
        continue;
      }
      const details = (answer.details ?? []).map((d) => `${DETAIL_INDENT}${d}\n`).join('');
      output.io.stdout.write(terminalText(`${(answer.allowed ? 'allowed' : 'disallowed').padEnd(VERDICT_WIDTH)}  ${showAgent ? `${ua}  ` : ''}${url}  (${answer.reason})\n${details}`));
    }
  }
  return failed;
}
