/**
 * Whether a robots.txt pattern, `*` standing for any run of characters, matches a path from its
 * start; with `anchoredEnd` (the pattern ended in `$`) it must also reach the path's end.
 *
 * Protego and npm robots-parser turn such a pattern into a backtracking regular expression
 * (`^a.*?b.*?c$`), which takes time exponential in the number of stars on a path that almost
 * matches: one 500 KiB robots.txt of `/*a*a*a...$` rules held a check for over a minute (issue
 * 26). Whether such an expression matches at all does not depend on how it backtracks, so the
 * answer is reproduced here without its running time: the first piece is a prefix, the last
 * (when anchored) a suffix, and each piece between is placed at its leftmost fit after the one
 * before, which leaves the most room for the rest. Time: O(pattern x path) at worst (each
 * `indexOf`), usually O(path). Pure.
 */
export interface WildcardPattern {
  /** The pattern cut at each `*`; one piece when it has none. */
  readonly pieces: readonly string[];
  readonly anchoredEnd: boolean;
}

/** Splits a pattern once, for many paths. */
export function compileWildcard(pattern: string, anchoredEnd: boolean): WildcardPattern {
  return { pieces: pattern.split('*'), anchoredEnd };
}

export function wildcardMatches(pattern: string, path: string, anchoredEnd: boolean): boolean {
  return matchesWildcard(compileWildcard(pattern, anchoredEnd), path);
}

export function matchesWildcard({ pieces, anchoredEnd }: WildcardPattern, path: string): boolean {
  const first = pieces[0]!;
  if (pieces.length === 1) return anchoredEnd ? path === first : path.startsWith(first);
  if (!path.startsWith(first)) return false;
  const lastIndex = pieces.length - 1;
  const last = pieces[lastIndex]!;
  let at = first.length;
  // Anchored: the last piece must end the path, so the middle pieces fit before it.
  const end = anchoredEnd ? path.length - last.length : path.length;
  if (end < at) return false;
  if (anchoredEnd && !path.endsWith(last)) return false;
  const placed = anchoredEnd ? lastIndex : lastIndex + 1;
  for (let i = 1; i < placed; i += 1) {
    const piece = pieces[i]!;
    if (piece === '') continue;
    const found = path.indexOf(piece, at);
    if (found === -1 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}
