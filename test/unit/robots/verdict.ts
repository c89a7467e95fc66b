/** Test helpers: one-shot verdicts, as Google's `OneAgentAllowedByRobots` gives them. */
import { expect, it } from 'vitest';
import { parseRobotsTxt } from '../../../src/robots/index.js';
import type { CallerAgent } from '../../../src/robots/index.js';

export const ALLOWED = true;
export const DISALLOWED = false;

/** Is `url` allowed for `ua` by the robots.txt `body`? */
export function allowed(body: string | Uint8Array, ua: CallerAgent, url: string): boolean {
  return parseRobotsTxt(body).isAllowed(url, ua);
}

/** The line Google reports as deciding (its `matching_line()`), null for none. */
export function decidingLine(body: string | Uint8Array, ua: CallerAgent, url: string): number | null {
  return parseRobotsTxt(body).check(url, ua).line;
}

/** Concatenates byte chunks and strings (UTF-8) into one body. */
export function bytes(...parts: (string | number[])[]): Uint8Array {
  const chunks = parts.map((p) => (typeof p === 'string' ? new TextEncoder().encode(p) : Uint8Array.from(p)));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** A verdict case: [robots, ua, url, expected]. */
export type Case = [robots: string | Uint8Array, ua: CallerAgent, url: string, expected: boolean];

/** Names a case for it.each: `ua url => allowed|DISALLOWED`. */
export function label(c: Case): string {
  const [, ua, url, expected] = c;
  const shownUrl = url.length > 80 ? `${url.slice(0, 40)}…(${url.length} chars)` : url;
  return `${JSON.stringify(ua)} ${JSON.stringify(shownUrl)} => ${expected ? 'allowed' : 'DISALLOWED'}`;
}

/** Registers one test per case: the verdict must be the expected one. */
export function itVerdicts(cases: Case[]): void {
  it.each(cases.map((c) => ({ name: label(c), c })))('$name', ({ c }) => {
    expect(allowed(c[0], c[1], c[2])).toBe(c[3]);
  });
}
