/**
 * Independent reference implementations for property tests: written from the spec
 * (google-behaviors.md), sharing no code with src/robots.
 */

/**
 * The reference: `pattern` matches a prefix of `path` where `*` is any run of characters and
 * a final `$` requires the end of the path. memo[i][j]: pattern[i..] matches from path[j].
 */
export function referenceMatch(path: string, pattern: string): boolean {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const memo = new Map<number, boolean>();
  const width = path.length + 1;
  const go = (i: number, j: number): boolean => {
    const key = i * width + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let r: boolean;
    if (i === body.length) r = anchored ? j === path.length : true;
    else if (body[i] === '*') r = go(i + 1, j) || (j < path.length && go(i, j + 1));
    else r = j < path.length && path[j] === body[i] && go(i + 1, j + 1);
    memo.set(key, r);
    return r;
  };
  return go(0, 0);
}


export interface ReferenceVerdict {
  allowed: boolean;
  line: number | null;
}

/**
 * A line-at-a-time evaluation in the style of Google's RobotsMatcher, for ASCII bodies whose
 * directives all have a colon: it tracks whether the current user-agent run names the caller
 * or `*`, and keeps the longest matching allow and disallow (first of equals) for each.
 */
export function referenceVerdict(body: string, callerUa: string, path: string): ReferenceVerdict {
  type Best = { priority: number; line: number };
  const none = (): Best => ({ priority: -1, line: 0 });
  const best = { allowSpecific: none(), disallowSpecific: none(), allowGlobal: none(), disallowGlobal: none() };
  let seenGlobal = false;
  let seenSpecific = false;
  let everSeenSpecific = false;
  let seenSeparator = false;
  const keep = (b: Best, priority: number, line: number) => {
    if (b.priority < priority) {
      b.priority = priority;
      b.line = line;
    }
  };
  const lines = body.split(/\r\n|\r|\n/);
  lines.forEach((raw, i) => {
    const lineNo = i + 1;
    const text = raw.split('#')[0]!.trim();
    const colon = text.indexOf(':');
    if (colon <= 0) return;
    const key = text.slice(0, colon).trim().toLowerCase();
    const value = text.slice(colon + 1).trim();
    if (key.startsWith('user-agent')) {
      if (seenSeparator) seenSpecific = seenGlobal = seenSeparator = false;
      if (value.startsWith('*') && (value.length === 1 || /\s/.test(value[1]!))) {
        seenGlobal = true;
      } else {
        const name = /^[A-Za-z_-]*/.exec(value)![0];
        if (name.toLowerCase() === callerUa.toLowerCase() && [...callerUa].every((ch) => ch.charCodeAt(0) < 0x80)) {
          seenSpecific = everSeenSpecific = true;
        }
      }
      return;
    }
    const isAllow = key.startsWith('allow');
    const isDisallow = key.startsWith('disallow');
    if (!isAllow && !isDisallow) return;
    if (!seenSpecific && !seenGlobal) return;
    seenSeparator = true;
    const pattern = value.replace(/%([0-9a-fA-F]{2})/g, (_m, h: string) => '%' + h.toUpperCase());
    const record = (p: string) => {
      const target = isAllow ? (seenSpecific ? best.allowSpecific : best.allowGlobal) : seenSpecific ? best.disallowSpecific : best.disallowGlobal;
      keep(target, p.length, lineNo);
    };
    if (referenceMatch(path, pattern)) {
      record(pattern);
    } else if (isAllow) {
      const slash = pattern.lastIndexOf('/');
      if (slash >= 0 && pattern.slice(slash).startsWith('/index.htm')) {
        const dir = pattern.slice(0, slash + 1) + '$';
        if (referenceMatch(path, dir)) record(dir);
      }
    }
  });
  const decide = (allow: Best, disallow: Best): ReferenceVerdict => {
    const winner = disallow.priority > allow.priority ? disallow : allow;
    return { allowed: !(disallow.priority > allow.priority && disallow.priority > 0), line: winner.line === 0 ? null : winner.line };
  };
  if (everSeenSpecific) return decide(best.allowSpecific, best.disallowSpecific);
  return decide(best.allowGlobal, best.disallowGlobal);
}
