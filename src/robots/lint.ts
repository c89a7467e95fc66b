/**
 * The linter: what a robots.txt says that its author may not mean. It reports every flag of
 * Google's parse report (typo, missing colon, long line, unknown and unsupported keys, and, as
 * opt-in trivia, comments and empty lines) plus checks on groups, rules and encoding. It reads
 * the same scanner events as the parser (one scan drives both). Pure.
 */
import { asciiLower, isAsciiWhitespace, toBytes } from './encoding.js';
import type { LintCode } from './lint-codes.js';
import { LINT_CODES } from './lint-codes.js';
import { RobotsTxtBuilder } from './parse.js';
import type { RobotsTxt } from './parse.js';
import type { ScannedLine, ScanSummary } from './scan.js';
import { MAX_LINE_BYTES, scanRobotsTxt } from './scan.js';
import { getPathParamsQuery } from './match.js';
import { MAX_STAR_RULE_GAPS, MAX_STAR_RULE_VERDICTS, MAX_STAR_RULE_WORK, starRuleGaps } from './star-rule-gaps.js';
import type { StarRuleGaps } from './star-rule-gaps.js';
import type { StarRuleGap } from './star-rule-gaps.js';
import type { Diagnostic, Rule, UserAgentLine } from './types.js';
import { GLOBAL_AGENT, agentToken } from './user-agent.js';
import { codePointLabel, hiddenCharsIn } from './hidden-chars.js';
import { ANY_CRAWLER, PORTABILITY_PROFILES, portabilityOf } from './profiles/portability.js';
import { quote } from './lint-text.js';
import { usageFindings } from './usage/usage-lint.js';
import { usageLinesOf } from './usage/usage-preferences.js';
import { USAGE_KEYS } from './usage/vocabulary.js';

/** R-18: Google reads the first 500 KiB of a robots.txt and ignores the rest. */
export const GOOGLE_MAX_ROBOTS_BYTES = 500 * 1024;

export interface LintOptions {
  /** Bytes a crawler reads; content past it is reported (default GOOGLE_MAX_ROBOTS_BYTES, R-18). */
  maxBytes?: number;
  /** Also report comment and empty lines (the `comment` and `empty-line` trivia). */
  includeTrivia?: boolean;
  /**
   * Also report the rules other parsers read differently (`other-parsers-differ`, issue 19). Off
   * by default: it parses the file three more times and asks each parser about each rule, within
   * PORTABILITY_MAX_RULE_COMPARISONS (a few hundred milliseconds for a 500 KiB file), which the
   * nightly summary and the draft check do not need.
   */
  portability?: boolean;
  /** The file's star-rule gaps when the caller has computed them already for these bytes (not computed again). */
  starRuleGaps?: StarRuleGaps;
}

/** Lints a robots.txt body; diagnostics are sorted by line (stable within a line). */
export function lintRobotsTxt(body: string | Uint8Array, options: LintOptions = {}): Diagnostic[] {
  return lintAndParse(body, options).diagnostics;
}

/** What one scan of a body gives: its findings, its parse and its star-rule gaps. */
export interface LintedBody {
  diagnostics: Diagnostic[];
  /** The same parse as parseRobotsTxt's (built from the scan's events; test/unit/robots/parse.test.ts). */
  parsed: RobotsTxt;
  starRuleGaps: StarRuleGaps;
}

/**
 * Lints a body and hands back the parse its scan built (the parser's handler seam) and the gaps
 * it weighed, so that a caller that needs all three (a night's new body) scans the bytes once.
 */
export function lintAndParse(body: string | Uint8Array, options: LintOptions = {}): LintedBody {
  const maxBytes = options.maxBytes ?? GOOGLE_MAX_ROBOTS_BYTES;
  const bytes = toBytes(body);
  const builder = new RobotsTxtBuilder();
  const lines: ScannedLine[] = [];
  const summary = scanRobotsTxt(bytes, {
    onLine(line) {
      builder.onLine(line);
      lines.push(line);
    },
  });
  const robots = builder.build(summary);

  const out: Diagnostic[] = [];
  const add = (line: number, code: LintCode, message: string) => {
    out.push({ line, severity: LINT_CODES[code].severity, code, message });
  };

  const htmlLine = fileChecks(bytes, lines, summary, maxBytes, add);
  let seenUserAgent = false;
  for (const line of lines) {
    lineChecks(line, { html: htmlLine !== null, seenUserAgent, trivia: options.includeTrivia === true }, add);
    if (line.type === 'directive' && line.key === 'user-agent') seenUserAgent = true;
  }
  const gaps = options.starRuleGaps ?? starRuleGaps(robots);
  groupChecks(robots, add, gaps);
  if (options.portability === true) portabilityChecks(bytes, robots, add);
  // Content-Signal / Content-Usage lines: read from this scan's parse, and only when it holds some.
  if (robots.hasUsageLines) for (const f of usageFindings(usageLinesOf(robots), robots.groups)) add(f.line, f.code, f.message);
  return { diagnostics: out.sort((a, b) => a.line - b.line), parsed: robots, starRuleGaps: gaps };
}

/** Crawlers named in one finding's message; the rest are counted. */
const PORTABILITY_AGENTS_NAMED = 5;

/**
 * Issue 19: the rules another parser profile reads differently (src/robots/profiles/portability.ts),
 * one finding per rule with the crawlers it concerns (issue 26).
 */
function portabilityChecks(bytes: Uint8Array, robots: RobotsTxt, add: Add): void {
  const { findings, total, complete, rulesExamined, rules } = portabilityOf(bytes, undefined, robots);
  for (const f of findings) {
    const verdicts = (['google', ...PORTABILITY_PROFILES] as const).map((p) => `${p} ${f.verdicts[p] === 'error' ? 'raises' : f.verdicts[p] ? 'allows' : 'disallows'}`).join(', ');
    add(f.line, 'other-parsers-differ', `"${quote(f.rule)}" for ${crawlersOf(f)}: ${f.reason} (${f.path}: ${verdicts}).`);
  }
  if (total > findings.length) {
    const last = findings[findings.length - 1]!;
    add(last.line, 'other-parsers-differ', `${total - findings.length} more rules are read differently by other parsers; the first ${findings.length} are reported.`);
  }
  if (!complete) {
    const at = findings.length > 0 ? findings[findings.length - 1]!.line : 1;
    add(at, 'too-complex', `The check of how other parsers read the rules stopped after ${rulesExamined} of ${rules} rules: the file is too large to ask every parser about every rule here. Rules further down may be read differently too.`);
  }
}

function crawlersOf(f: { agents: readonly string[]; agentsNotChecked: number }): string {
  const names = f.agents.map((a) => (a === ANY_CRAWLER ? 'a crawler without a group of its own' : a));
  const shown = names.slice(0, PORTABILITY_AGENTS_NAMED).join(', ');
  const more = names.length - Math.min(names.length, PORTABILITY_AGENTS_NAMED);
  const unchecked = f.agentsNotChecked > 0 ? `; ${f.agentsNotChecked} more crawlers of its group not checked` : '';
  return more > 0 || unchecked ? `${shown} (and ${more} more${unchecked})` : shown;
}

type Add = (line: number, code: LintCode, message: string) => void;

/** Checks on the file as a whole; returns the line where HTML starts, or null. */
function fileChecks(bytes: Uint8Array, lines: readonly ScannedLine[], summary: ScanSummary, maxBytes: number, add: Add): number | null {
  if (summary.bomBytes === 3) {
    add(1, 'bom', 'The file starts with a UTF-8 byte-order mark. Google skips it; RFC 9309 does not mention it, so some parsers may read it as part of the first key.');
  } else if (summary.bomBytes > 0) {
    add(1, 'partial-bom', `The file starts with ${summary.bomBytes} byte(s) of a UTF-8 byte-order mark. Google skips them; other parsers read them as part of the first line.`);
  }
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    add(1, 'utf16-body', 'The file is UTF-16 encoded. Google reads bytes and sees a NUL after almost every character, so it reads no directive at all. Save it as UTF-8.');
  }

  let htmlLine: number | null = null;
  const first = lines.find((l) => l.type !== 'empty');
  if (first !== undefined && looksLikeHtml(bytes, first.offset, first.offset + first.byteLength)) {
    htmlLine = first.line;
    add(first.line, 'html-body', 'The body is an HTML page, not a robots.txt (an error page or a soft 404?). Google reads only the lines that happen to be directives.');
  }

  if (bytes.length > maxBytes) {
    // The line that holds byte number maxBytes: the first byte Google does not read.
    let at = lines[0] as ScannedLine;
    for (const l of lines) {
      if (l.offset > maxBytes) break;
      at = l;
    }
    const midLine = at.offset < maxBytes && maxBytes < at.offset + at.byteLength;
    add(
      at.line,
      'beyond-size-limit',
      `The file is ${bytes.length} bytes; Google reads only the first ${maxBytes} bytes (500 KiB, R-18). ` +
        (midLine ? `This line is cut there, and every line after it is ignored.` : `This line and every line after it are ignored.`),
    );
  }
  return htmlLine;
}

/** A first line that opens a tag (`<html`, `<!DOCTYPE`, `<?xml`, `<head>`): no robots.txt line starts so. */
function looksLikeHtml(bytes: Uint8Array, start: number, end: number): boolean {
  let i = start;
  while (i < end && isAsciiWhitespace(bytes[i] as number)) i++;
  if (i + 1 >= end || bytes[i] !== 0x3c) return false;
  const c = bytes[i + 1] as number;
  return c === 0x21 || c === 0x3f || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

interface LineContext {
  html: boolean;
  seenUserAgent: boolean;
  trivia: boolean;
}

function lineChecks(l: ScannedLine, ctx: LineContext, add: Add): void {
  if (l.innerBom) {
    add(l.line, 'misplaced-bom', 'This line holds a byte-order mark (U+FEFF). Google skips one only at the very start of the file, so here it becomes part of the line, which then is not read as written.');
  }
  if (l.invalidUtf8) {
    add(l.line, 'invalid-utf8', 'This line is not valid UTF-8 (Latin-1 or another encoding?). Google compares its bytes as they are, percent-encoding non-ASCII bytes in rules, so they may not match the URLs meant.');
  }
  if (l.hasNul) {
    add(l.line, 'nul-byte', 'This line contains a NUL byte; Google ignores everything after it on this line.');
  }
  hiddenCharacterChecks(l, add);
  if (l.lineTooLong) {
    let kept = `only its first ${MAX_LINE_BYTES} bytes`;
    if (l.type === 'directive' && (l.key === 'allow' || l.key === 'disallow')) {
      kept += ` and reads the rule as the ${l.valueEnd - l.valueStart}-byte prefix "${quote(l.value)}"`;
    }
    add(l.line, 'line-too-long', `This line is ${l.byteLength} bytes long; Google keeps ${kept}, and drops the rest.`);
  }

  if (l.hasComment) {
    if (ctx.trivia) add(l.line, 'comment', l.type === 'comment' ? 'Comment line.' : 'This line ends with a comment.');
  }
  if (l.type === 'empty') {
    if (ctx.trivia) add(l.line, 'empty-line', 'Empty line (it does not end a group, T8).');
    return;
  }
  if (l.type === 'not-a-directive') {
    // In an HTML page nearly every line is one; the html-body error says it once.
    if (!ctx.html) {
      add(l.line, 'not-a-directive', 'Google ignores this line: it is not a "key: value" directive (without a colon, only exactly two words are read as one).');
    }
    return;
  }
  if (l.type !== 'directive') return;

  const key = `"${quote(l.rawKey)}"`;
  if (l.typo !== null) {
    add(l.line, 'typo-accepted', `${key} is a misspelling of "${l.key}". Google accepts it, but strict RFC 9309 parsers ignore this line (D-1).`);
  } else if (l.keyPrefix) {
    add(l.line, 'key-prefix-accepted', `${key} is not "${l.key}", but Google reads it as "${l.key}" because it starts with that name; strict RFC 9309 parsers ignore this line (D-1).`);
  }
  if (l.missingColon && l.key === 'unknown') {
    // Two words of prose ("Skip navigation"): Google reads a key it does not know, and ignores it.
    if (!ctx.html) {
      add(l.line, 'not-a-directive', `Google ignores this line: it has no colon and ${key} is not a known key.${suggestion(l.rawKey)}`);
    }
    return;
  }
  if (l.missingColon) {
    add(l.line, 'missing-colon', `There is no colon after ${key}. Google accepts "key value" with whitespace between, but RFC 9309 requires "key: value" and other parsers may ignore this line.`);
  }

  switch (l.key) {
    case 'unknown':
      if (!ctx.html) add(l.line, 'unknown-key', `Unknown key ${key}; Google ignores this line.${hiddenCharacter(l.rawKey)}${suggestion(l.rawKey)}`);
      return;
    case 'known-unsupported': {
      const name = asciiLower(l.rawKey);
      // Content-Signal / Content-Usage lines are read (src/robots/usage): the usage-* findings speak of them.
      if (!USAGE_KEYS.has(name)) add(l.line, 'unsupported-key', unsupportedMessage(name));
      return;
    }
    case 'user-agent':
      userAgentChecks(l, add);
      return;
    case 'allow':
    case 'disallow':
      ruleChecks(l, ctx, add);
      return;
    case 'sitemap':
      if (!isAbsoluteHttpUrl(l.value)) {
        add(l.line, 'sitemap-not-absolute', `The sitemap "${quote(l.value)}" is not an absolute http(s) URL; a sitemap must be given as a full URL such as https://example.com/sitemap.xml.`);
      }
      return;
    default:
      return;
  }
}

function userAgentChecks(l: ScannedLine, add: Add): void {
  if (l.value === '') {
    add(l.line, 'empty-user-agent', 'This user-agent line has no name. Google matches it only against a crawler with an empty name, so its group applies to no real crawler (C11).');
    return;
  }
  const token = agentToken(l.value);
  if (token === GLOBAL_AGENT) {
    if (l.value !== GLOBAL_AGENT) {
      add(l.line, 'agent-name-truncated', `Google reads "${quote(l.value)}" as "*", the group for all crawlers (C9); the rest of the value is ignored.`);
    }
    return;
  }
  if (token === '') {
    add(l.line, 'agent-name-truncated', `Google reads "${quote(l.value)}" as an empty name: a name is read only up to the first character outside A-Z, a-z, "-" and "_" (C9, C10). This group applies to no real crawler.`);
  } else if (token !== asciiLower(l.value)) {
    // The product token is the value up to a version (`/2.1`) or a comment-like rest (` (...)`).
    const product = /^[^\s/]*/.exec(l.value)?.[0] ?? '';
    const lost = asciiLower(product) !== token ? ` A crawler that calls itself "${quote(product)}" is therefore not matched by this group.` : '';
    add(l.line, 'agent-name-truncated', `Google reads "${quote(l.value)}" as "${token}": a name is read only up to the first character outside A-Z, a-z, "-" and "_" (T16, C10).${lost}`);
  }
}

function ruleChecks(l: ScannedLine, ctx: LineContext, add: Add): void {
  const written = `"${l.key === 'allow' ? 'Allow' : 'Disallow'}: ${quote(l.value)}"`;
  if (!ctx.seenUserAgent) {
    add(l.line, 'rule-outside-group', `${written} comes before any user-agent line, so it belongs to no group and Google ignores it (R-32, T6).`);
  }
  if (l.value === '') {
    add(
      l.line,
      'empty-rule-value',
      l.key === 'disallow' ? 'An empty Disallow disallows nothing: this group may crawl everything its other rules do not block (T23).' : 'An empty Allow has no effect (T23).',
    );
    return;
  }
  const c = l.value.charCodeAt(0);
  if (c !== 0x2f && c !== 0x2a) {
    // A full URL is a common mistake: suggest its path.
    const meant = /^[a-z][a-z0-9+.-]*:\/\//i.test(l.value) ? getPathParamsQuery(l.value) : `/${l.value}`;
    add(l.line, 'path-not-anchored', `${written} does not start with "/" or "*", so Google never matches it (every path starts with "/", C6). Did you mean "${quote(meant)}"?`);
  }
}

/**
 * Rules the conflict check reads at most, summed over the file's distinct rule sets. Agents
 * that share their groups share one rule set (parse.ts, `RuleSets`) and are checked once, so a
 * file reaches the cap only with many agents named in different lists of groups (each list a
 * merged set of its own, R-34). The cut is deterministic, and reported (`too-complex`).
 */
export const MAX_CONFLICT_CHECK_RULES = 200_000;

/** Group-level checks, on the merged rules of every agent (R-34), once per distinct rule set. */
function groupChecks(robots: RobotsTxt, add: Add, gaps: StarRuleGaps): void {
  const reported = new Set<string>();
  const checked = new Set<readonly Rule[]>();
  let budget = MAX_CONFLICT_CHECK_RULES;
  for (const token of robots.agents()) {
    const rules = robots.rulesFor(token);
    if (checked.has(rules)) continue;
    checked.add(rules);
    if (rules.length > budget) {
      add(
        rules[0]?.line ?? 1,
        'too-complex',
        `The check for conflicting allow and disallow rules stopped here: it compares at most ${MAX_CONFLICT_CHECK_RULES} rules over the file's distinct groups of agents, and this file has more. Conflicts further down are not reported.`,
      );
      break;
    }
    budget -= rules.length;
    const allowLines = new Map<string, number>();
    for (const r of rules) if (r.kind === 'allow' && r.pattern !== '' && !allowLines.has(r.pattern)) allowLines.set(r.pattern, r.line);
    for (const r of rules) {
      if (r.kind !== 'disallow') continue;
      const allowLine = allowLines.get(r.pattern);
      const id = `${r.line}\u0000${r.pattern}`;
      if (allowLine === undefined || reported.has(id)) continue;
      reported.add(id);
      add(r.line, 'conflicting-rule', `"Disallow: ${quote(r.value)}" conflicts with "Allow: ${quote(r.value)}" on line ${allowLine} (same pattern, same agent); Google lets the allow win (T22), so this disallow has no effect.`);
    }
  }
  const globalRules = robots.rulesFor(GLOBAL_AGENT);
  const reopens = globalRules.some((r) => r.kind === 'allow' && r.pattern !== '');
  for (const r of globalRules) {
    if (r.kind === 'disallow' && matchesEverything(r.pattern)) {
      add(
        r.line,
        'disallow-all',
        `"Disallow: ${quote(r.value)}" in the "*" group blocks the whole site for every crawler that has no group of its own` +
          (reopens ? ', except what the group\'s Allow rules reopen.' : '.'),
      );
    }
  }
  starGapChecks(robots, add, gaps);
}

/** R-40, T26: a named group replaces `*` for its crawlers; report what `*` blocks and it does not. */
function starGapChecks(robots: RobotsTxt, add: Add, found: StarRuleGaps): void {
  const { gaps, complete } = found;
  const crawlers = new Map<readonly string[], string>();
  for (const gap of gaps) {
    // The gaps of one group share their tokens: name them once.
    let who = crawlers.get(gap.tokens);
    if (who === undefined) crawlers.set(gap.tokens, (who = crawlerNames(robots, gap.tokens)));
    add(gap.starLine, 'star-rule-not-inherited', starGapMessage(gap, who));
  }
  if (!complete) {
    const line = gaps[gaps.length - 1]?.starLine ?? (robots.rulesFor(GLOBAL_AGENT)[0] as Rule).line;
    add(
      line,
      'star-rule-not-inherited',
      `The check for "*" rules that named groups leave open stopped here: it reports at most ${MAX_STAR_RULE_GAPS} paths and compares at most ${MAX_STAR_RULE_VERDICTS} path and group pairs (${MAX_STAR_RULE_WORK} rules), and this file has more. Paths further down may be open too.`,
    );
  }
}

/** Crawlers named in one message, at most; the rest are counted. */
const NAMES_SHOWN = 3;

/** The crawlers of a gap as their first user-agent lines write them (`GPTBot`, not `gptbot`; T16 cuts the rest). */
function crawlerNames(robots: RobotsTxt, tokens: readonly string[]): string {
  const names = tokens.map((token) => (robots.select(token)?.userAgents[0] as UserAgentLine).value.slice(0, token.length));
  return names.length > NAMES_SHOWN ? `${names.slice(0, NAMES_SHOWN).join(', ')} and ${names.length - NAMES_SHOWN} more` : listed(names);
}

function starGapMessage(gap: StarRuleGap, who: string): string {
  const one = gap.tokens.length === 1;
  const path = quote(gap.path);
  return (
    `"Disallow: ${path}" in the "*" group does not apply to ${who}, which ${one ? 'has a group of its' : 'have a group of their'} own (user-agent line ${gap.groupLine}): ` +
    `a crawler obeys only the group that names it (R-40, T26), and that group does not block all of "${path}". Repeat the rule there if ${one ? 'this crawler' : 'these crawlers'} should stay out too.`
  );
}

/** `a`, `a and b`, `a, b and c`. */
function listed(names: readonly string[]): string {
  return names.length === 1 ? (names[0] as string) : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** A pattern that matches every path: only `*`s and at most one `/`, maybe `*$` at the end (`/`, `/*`, `*`, `/*$`). */
function matchesEverything(pattern: string): boolean {
  if (pattern === '' || pattern === '$') return false;
  if (pattern.charCodeAt(0) !== 0x2f && pattern.charCodeAt(0) !== 0x2a) return false;
  let p = pattern;
  if (p.endsWith('$')) {
    if (!p.endsWith('*$')) return false;
    p = p.slice(0, -1);
  }
  const rest = p.replace(/\*/g, '');
  return rest === '' || rest === '/';
}

function isAbsoluteHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    return new URL(value).hostname !== '';
  } catch {
    return false;
  }
}

const UNSUPPORTED_NOTES: Record<string, string> = {
  'crawl-delay': 'Google ignores crawl-delay: Googlebot sets its own crawl rate. Bing and Yandex read it.',
  host: 'Google ignores host (a Yandex directive naming the main mirror of a site).',
  'clean-param': 'Google ignores clean-param (a Yandex directive for URL parameters).',
  noindex: 'Google ignores noindex in robots.txt (unsupported since 2019): use a robots meta tag or an X-Robots-Tag header.',
  nofollow: 'Google ignores nofollow in robots.txt: use a robots meta tag or an X-Robots-Tag header.',
  noarchive: 'Google ignores noarchive in robots.txt: use a robots meta tag or an X-Robots-Tag header.',
};

function unsupportedMessage(key: string): string {
  return UNSUPPORTED_NOTES[key] ?? `Google ignores ${key}: it recognises the key but no Google crawler uses it (R6).`;
}

/** Names the first character outside printable ASCII in a key (a zero-width space, a NBSP, ...). */
function hiddenCharacter(rawKey: string): string {
  for (const ch of rawKey) {
    const cp = ch.codePointAt(0) as number;
    if (cp < 0x20 || cp > 0x7e) {
      return ` The key contains the character U+${cp.toString(16).toUpperCase().padStart(4, '0')}, which may be invisible.`;
    }
  }
  return '';
}

/** Hidden characters named in one message at most (a line full of them is one diagnostic). */
const HIDDEN_NAMED = 3;
const LINE_TEXT = new TextDecoder('utf-8');

/**
 * Characters a reader of the line cannot see as they are (src/robots/hidden-chars.ts): a
 * bidirectional control makes `toBTPG` show as `GPTBot`, a zero-width space hides in a token,
 * ESC drives a terminal. NUL and an inner BOM have codes of their own. The bytes are looked at
 * once; only a line with a control byte or a non-ASCII byte is decoded.
 */
function hiddenCharacterChecks(l: ScannedLine, add: Add): void {
  const end = l.offset + l.byteLength;
  let candidate = false;
  for (let i = l.offset; i < end && !candidate; i++) {
    const b = l.bytes[i] as number;
    candidate = (b < 0x20 && b !== 0x09 && b !== 0x00) || b >= 0x7f;
  }
  if (!candidate) return;
  const found = hiddenCharsIn(LINE_TEXT.decode(l.bytes.subarray(l.offset, end))).filter((c) => c.codePoint !== 0x00 && c.codePoint !== 0xfeff);
  if (found.length === 0) return;
  const named = found.slice(0, HIDDEN_NAMED).map((c) => `${codePointLabel(c.codePoint)} ${c.name}`);
  const more = found.length > HIDDEN_NAMED ? ` and ${found.length - HIDDEN_NAMED} more` : '';
  const bidi = found.some((c) => c.kind === 'bidi')
    ? ' A bidirectional control reorders what is shown, so the line can read as another agent or path than the one crawlers read.'
    : '';
  add(l.line, 'hidden-characters', `This line holds characters a reader does not see as they are: ${named.join(', ')}${more}.${bidi} Remove them unless they are meant.`);
}

const KNOWN_NAMES = ['user-agent', 'allow', 'disallow', 'sitemap'];

/** "Did you mean ...?" for an unknown key within two edits of a known one (e.g. `Alow`). */
function suggestion(rawKey: string): string {
  const key = asciiLower(rawKey.replace(/[^\x20-\x7e]/g, ''));
  let best: string | null = null;
  let bestDistance = 3;
  for (const name of KNOWN_NAMES) {
    const d = editDistance(key, name, bestDistance);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best === null ? '' : ` Did you mean "${best}"?`;
}

/** Levenshtein distance, or `cap` when it is at least `cap` (the words here are short). */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) >= cap) return cap;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      cur.push(Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost));
    }
    prev = cur;
  }
  return Math.min(prev[b.length] as number, cap);
}
