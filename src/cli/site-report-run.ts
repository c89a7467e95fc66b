/**
 * What the site report commands (history, diff, explain) share: a SiteReportError becomes one
 * line on stderr and its exit code (2: a malformed argument; 1: a site, run or URL that is not
 * there), never a stack trace; any other error goes on to main's handler.
 */
import type { CliIo } from './io.js';
import { SiteReportError } from '../reports/site-errors.js';

export async function runSiteReport(io: CliIo, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    if (!(err instanceof SiteReportError)) throw err;
    io.stderr.write(`robots-audit: ${err.message}\n`);
    io.exitCode = err.exitCode;
  }
}

/** A `--limit` value: a whole number of at least 1. Throws SiteReportError (usage). */
export function parseLimit(input: string): number {
  const n = Number(input);
  if (!/^\s*\d+\s*$/.test(input) || !Number.isSafeInteger(n) || n < 1) throw new SiteReportError('usage', `--limit "${input}": not a whole number of at least 1`);
  return n;
}
