/**
 * Which catalogue crawler a User-Agent header claims to be (issue 29). A claim is a product token
 * standing whole in the header: RFC 9309 product-token characters are `[A-Za-z_-]`, so a token is
 * a maximal run of them (anything else, `/`, `;`, `)`, a space, a digit, ends it). `bingbot` claims
 * in `compatible; bingbot/2.0`, never in `notbingbot` or `bingbot-like`. Tokens compare ASCII
 * case-insensitively. Pure.
 *
 * It runs on every log line, most of them browsers: one pass over the header, a rolling hash of
 * each run lower-cased as it is read, and a string compared only when a run's length and hash are
 * those of a token. A run that claims nothing costs no allocation.
 */

/** Returns the catalogue token (as the catalogue spells it) a User-Agent claims, or null. */
export type AgentMatcher = (userAgent: string) => string | null;

interface Candidate {
  /** The token as the catalogue spells it. */
  readonly token: string;
  /** Its lower-cased form, compared with the run. */
  readonly lower: string;
}

/** FNV-1a, 32-bit: cheap per character and spreads short ASCII words well enough for a map key. */
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function isTokenChar(c: number): boolean {
  // [A-Za-z_-]
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x2d || c === 0x5f;
}

/**
 * The lower-cased code of each ASCII token character, 0 for every other character: one table
 * read per character of the header answers both "does the run go on" and "what does it hash as".
 */
const TOKEN_LOWER = new Uint8Array(128);
for (let c = 0; c < 128; c++) if (isTokenChar(c)) TOKEN_LOWER[c] = c >= 0x41 && c <= 0x5a ? c | 0x20 : c;

/** Its lower-cased code when the character is a token character, else 0. */
function tokenLower(c: number): number {
  return c < 128 ? TOKEN_LOWER[c]! : 0;
}

function hashOf(lower: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < lower.length; i++) h = Math.imul(h ^ lower.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

function sameRun(userAgent: string, start: number, lower: string): boolean {
  for (let i = 0; i < lower.length; i++) {
    if (tokenLower(userAgent.charCodeAt(start + i)) !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * A matcher for the given product tokens. Throws on a token that is not a product token: it could
 * never stand whole in a header, so listing it is a mistake in the list, not a token that never
 * matches. When a header names several tokens, the longest (most specific) wins
 * (`Googlebot-Image/1.0 (Googlebot)` claims Googlebot-Image); of equal lengths, the first.
 */
export function compileAgentMatcher(tokens: readonly string[]): AgentMatcher {
  const byHash = new Map<number, Candidate[]>();
  let shortest = Infinity;
  let longest = 0;
  for (const token of tokens) {
    if (token.length === 0 || ![...token].every((ch) => isTokenChar(ch.charCodeAt(0)))) {
      throw new Error(`not a product token ([A-Za-z_-]+): ${JSON.stringify(token)}`);
    }
    const lower = token.toLowerCase();
    const key = hashOf(lower);
    const bucket = byHash.get(key) ?? [];
    if (bucket.some((c) => c.lower === lower)) continue; // the first spelling of a token stays
    bucket.push({ token, lower });
    byHash.set(key, bucket);
    shortest = Math.min(shortest, lower.length);
    longest = Math.max(longest, lower.length);
  }

  return (userAgent) => {
    let best: Candidate | null = null;
    const end = userAgent.length;
    let i = 0;
    while (i < end) {
      if (tokenLower(userAgent.charCodeAt(i)) === 0) {
        i++;
        continue;
      }
      const start = i;
      let h = FNV_OFFSET;
      for (; i < end; i++) {
        const c = tokenLower(userAgent.charCodeAt(i));
        if (c === 0) break;
        h = Math.imul(h ^ c, FNV_PRIME);
      }
      const length = i - start;
      if (length < shortest || length > longest || (best !== null && length <= best.lower.length)) continue;
      const bucket = byHash.get(h >>> 0);
      if (bucket === undefined) continue;
      for (const c of bucket) {
        if (c.lower.length === length && sameRun(userAgent, start, c.lower)) {
          best = c;
          break;
        }
      }
    }
    return best === null ? null : best.token;
  };
}
