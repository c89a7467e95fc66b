/**
 * What changed between two versions of a robots.txt, in two views:
 *
 * - `diffRobotsTxt`: the semantic diff, per user-agent as Google reads it. Comments, blank
 *   lines, key case, line endings and the order of lines and groups do not count (R-23, R-24,
 *   R-35); groups naming the same agent are compared merged (R-34); rules are compared as a set
 *   of (kind, normalised pattern) (T49), so a rule moved to another line is no change.
 * - `unifiedTextDiff`: a unified diff of the text, for people.
 *
 * Pure: no I/O, no clock. Whether a change flips a verdict is computed elsewhere (verdict flips);
 * this module only says which rules, groups, sitemaps and other records came and went.
 */
import { structuredPatch, formatPatch } from 'diff';
import type { Group, OtherRecord, Rule, RuleKind, SitemapRecord } from './types.js';

/** The parts of a parsed robots.txt the diff reads (the engine's `RobotsTxt` has them all). */
export interface DiffableRobotsTxt {
  readonly groups: readonly Group[];
  readonly sitemaps: readonly SitemapRecord[];
  readonly records: readonly OtherRecord[];
  /** Distinct agent tokens that have a group, `*` included. */
  agents(): readonly string[];
  /** The merged rules of one agent token (R-34). */
  rulesFor(token: string): readonly Rule[];
}

/**
 * - `identical`: the same bytes.
 * - `comments_only`: the bytes differ, the semantics do not (comments, whitespace, line
 *   endings, order, key case, unknown keys).
 * - `rules`: a group appeared or went, or an agent's allow/disallow set changed.
 * - `sitemaps`: a sitemap URL appeared or went.
 * - `records`: another known directive (crawl-delay, host, content-signal, ...) changed.
 * A diff carries either one of the first two, or one or more of the last three.
 */
export type RobotsChangeKind = 'identical' | 'comments_only' | 'rules' | 'sitemaps' | 'records';

export interface RuleRef {
  kind: RuleKind;
  /** The normalised pattern the comparison used. */
  pattern: string;
  /** As written, for people. */
  value: string;
  /** Line in the version the rule belongs to (after for added, before for removed). */
  line: number;
}

export interface AgentDiff {
  /** The token as Google reads it (`googlebot`, `*`): the comparison key. */
  token: string;
  /** The user-agent values as written (the after version's, or the before's for a removed group). */
  userAgents: string[];
  /** `added`/`removed`: the agent has a group in only one version. */
  change: 'added' | 'removed' | 'changed';
  rulesAdded: RuleRef[];
  rulesRemoved: RuleRef[];
  /** Rules added or removed beyond those listed (MAX_DIFF_RULES_LISTED); absent when all are listed. */
  rulesNotListed?: number;
  /** A disallow-everything rule (`/`, `/*`, `*`) exists now and did not before. */
  disallowAllAdded: boolean;
  /** A disallow-everything rule existed before and does not now. */
  disallowAllRemoved: boolean;
}

export interface RecordDiff {
  /** The agent token of the group the line stands in, or null for lines before any group. */
  agent: string | null;
  /** Lower-case key. */
  key: string;
  change: 'added' | 'removed' | 'changed';
  /** Distinct values, sorted. */
  before: string[];
  after: string[];
}

export interface RobotsDiff {
  kinds: RobotsChangeKind[];
  /** No robots.txt body before (first snapshot, or the previous fetch had none). */
  beforeMissing: boolean;
  afterMissing: boolean;
  /** Agents whose group or rules changed, `*` first, then by token. */
  agents: AgentDiff[];
  agentsAdded: string[];
  agentsRemoved: string[];
  sitemapsAdded: string[];
  sitemapsRemoved: string[];
  records: RecordDiff[];
  /**
   * Agents whose rules were not compared because the diff reached MAX_DIFF_RULES_COMPARED;
   * absent when every agent was compared. Their disallow-everything flags are still exact.
   */
  agentsNotCompared?: number;
  /**
   * Agents whose group or rules changed but that are not in `agents` (past
   * MAX_DIFF_AGENTS_LISTED, and with no disallow-everything change); absent when all are listed.
   * `agentsAdded` and `agentsRemoved` still name every agent.
   */
  agentsNotListed?: number;
}

/**
 * Rules the diff reads at most, summed over the distinct (before, after) pairs of rule sets it
 * compares. Agents that share their groups share a rule set (parse.ts, `RuleSets`), and each
 * pair is compared once, so only a file with many differently merged groups reaches it.
 */
export const MAX_DIFF_RULES_COMPARED = 400_000;
/**
 * Rule references a diff lists at most, over all its agents (a diff is stored with the night
 * and shown in alerts): past it an agent's lists are cut and `rulesNotListed` counts the rest.
 */
export const MAX_DIFF_RULES_LISTED = 2_000;
/**
 * Agents a diff lists at most (a file of 15,000 user-agents over one group changes 15,000 agents
 * at once). An agent whose disallow-everything rule came or went is always listed: alerts read it.
 */
export const MAX_DIFF_AGENTS_LISTED = 1_000;

export interface RawBodies {
  before: Uint8Array | null;
  after: Uint8Array | null;
}

/** Patterns that match every path: `/` and `*` (C6), with any trailing `*` (R-54: `/*` ≡ `/`). */
export function isMatchEverythingPattern(pattern: string): boolean {
  return /^(\/\**|\*+)$/.test(pattern);
}

interface Semantics {
  rules: Map<string, Map<string, Rule>>;
  userAgents: Map<string, string[]>;
  sitemaps: Set<string>;
  records: Map<string, { agent: string | null; key: string; values: Set<string> }>;
}

const ruleKey = (rule: Pick<Rule, 'kind' | 'pattern'>) => `${rule.kind}\n${rule.pattern}`;

/** Rules by what they say (kind and pattern), the first of each kept; R-50: a rule with no path is ignored. */
export function keyedRules(rules: Iterable<Rule>): Map<string, Rule> {
  const keyed = new Map<string, Rule>();
  for (const rule of rules) {
    if (rule.pattern.length === 0) continue;
    const key = ruleKey(rule);
    if (!keyed.has(key)) keyed.set(key, rule);
  }
  return keyed;
}

function semanticsOf(robots: DiffableRobotsTxt | null): Semantics {
  const s: Semantics = { rules: new Map(), userAgents: new Map(), sitemaps: new Set(), records: new Map() };
  if (robots === null) return s;
  for (const group of robots.groups) {
    for (const ua of group.userAgents) {
      const values = s.userAgents.get(ua.token) ?? [];
      if (!values.includes(ua.value)) values.push(ua.value);
      s.userAgents.set(ua.token, values);
    }
  }
  // Agents that share a rule set share its keyed form (one per set, not one per agent).
  const keyedOf = new Map<readonly Rule[], Map<string, Rule>>();
  for (const token of robots.agents()) {
    const rules = robots.rulesFor(token);
    let keyed = keyedOf.get(rules);
    if (keyed === undefined) keyedOf.set(rules, (keyed = keyedRules(rules)));
    s.rules.set(token, keyed);
    if (!s.userAgents.has(token)) s.userAgents.set(token, [token]);
  }
  for (const sitemap of robots.sitemaps) s.sitemaps.add(sitemap.url);
  for (const record of robots.records) {
    // Only keys some crawler acts on (R6); an unknown key is as inert as a comment.
    if (!record.knownUnsupported) continue;
    const group = record.groupIndex === null ? undefined : robots.groups[record.groupIndex];
    const scopes = group ? [...new Set(group.userAgents.map((ua) => ua.token))] : [null];
    for (const agent of scopes) {
      const id = `${agent ?? ''}\n${agent === null ? 'g' : 'a'}\n${record.key}`;
      const entry = s.records.get(id) ?? { agent, key: record.key, values: new Set<string>() };
      entry.values.add(record.value);
      s.records.set(id, entry);
    }
  }
  return s;
}

const byToken = (a: string, b: string) => (a === b ? 0 : a === '*' ? -1 : b === '*' ? 1 : a < b ? -1 : 1);

function hasDisallowAll(rules: Map<string, Rule> | undefined): boolean {
  if (!rules) return false;
  for (const rule of rules.values()) if (rule.kind === 'disallow' && isMatchEverythingPattern(rule.pattern)) return true;
  return false;
}

const refOf = (rule: Rule): RuleRef => ({ kind: rule.kind, pattern: rule.pattern, value: rule.value, line: rule.line });

/** The rules of `from` that `other` does not say, in line order. */
export function rulesMissingFrom(from: Map<string, Rule> | undefined, other: Map<string, Rule> | undefined): RuleRef[] {
  return [...(from?.entries() ?? [])]
    .filter(([key]) => !other?.has(key))
    .map(([, rule]) => refOf(rule))
    .sort((x, y) => x.line - y.line);
}

/** What one (before, after) pair of rule sets adds and removes, computed once per pair. */
interface PairDiff {
  added: RuleRef[];
  removed: RuleRef[];
}

function agentDiffs(before: Semantics, after: Semantics): { agents: AgentDiff[]; notCompared: number } {
  const tokens = [...new Set([...before.rules.keys(), ...after.rules.keys()])].sort(byToken);
  const out: AgentDiff[] = [];
  const pairs = new Map<Map<string, Rule> | undefined, Map<Map<string, Rule> | undefined, PairDiff>>();
  const disallowAll = new Map<Map<string, Rule> | undefined, boolean>();
  const hasAll = (rules: Map<string, Rule> | undefined) => {
    let v = disallowAll.get(rules);
    if (v === undefined) disallowAll.set(rules, (v = hasDisallowAll(rules)));
    return v;
  };
  let compareBudget = MAX_DIFF_RULES_COMPARED;
  let listBudget = MAX_DIFF_RULES_LISTED;
  let notCompared = 0;
  for (const token of tokens) {
    const b = before.rules.get(token);
    const a = after.rules.get(token);
    const change = !b ? 'added' : !a ? 'removed' : 'changed';
    let byAfter = pairs.get(b);
    if (byAfter === undefined) pairs.set(b, (byAfter = new Map()));
    let pair = byAfter.get(a);
    if (pair === undefined) {
      const size = (b?.size ?? 0) + (a?.size ?? 0);
      if (a !== b && size > compareBudget) {
        notCompared++;
        continue;
      }
      compareBudget -= size;
      pair = a === b ? { added: [], removed: [] } : { added: rulesMissingFrom(a, b), removed: rulesMissingFrom(b, a) };
      byAfter.set(a, pair);
    }
    if (change === 'changed' && pair.added.length === 0 && pair.removed.length === 0) continue;
    const disallowAllBefore = hasAll(b);
    const disallowAllAfter = hasAll(a);
    // The lists are cut once the diff has listed MAX_DIFF_RULES_LISTED rules in all.
    const total = pair.added.length + pair.removed.length;
    const rulesAdded = pair.added.slice(0, listBudget);
    const rulesRemoved = pair.removed.slice(0, Math.max(0, listBudget - rulesAdded.length));
    listBudget -= rulesAdded.length + rulesRemoved.length;
    const diff: AgentDiff = {
      token,
      userAgents: (a ? after : before).userAgents.get(token) ?? [token],
      change,
      rulesAdded,
      rulesRemoved,
      disallowAllAdded: disallowAllAfter && !disallowAllBefore,
      disallowAllRemoved: disallowAllBefore && !disallowAllAfter,
    };
    if (rulesAdded.length + rulesRemoved.length < total) diff.rulesNotListed = total - rulesAdded.length - rulesRemoved.length;
    out.push(diff);
  }
  return { agents: out, notCompared };
}

function recordDiffs(before: Semantics, after: Semantics): RecordDiff[] {
  const ids = [...new Set([...before.records.keys(), ...after.records.keys()])];
  const out: RecordDiff[] = [];
  for (const id of ids) {
    const b = before.records.get(id);
    const a = after.records.get(id);
    const bv = [...(b?.values ?? [])].sort();
    const av = [...(a?.values ?? [])].sort();
    if (bv.length === av.length && bv.every((v, i) => v === av[i])) continue;
    const head = (a ?? b)!;
    out.push({ agent: head.agent, key: head.key, change: !b ? 'added' : !a ? 'removed' : 'changed', before: bv, after: av });
  }
  // Records outside any group first, then by agent as for rules, then by key.
  const scopeOrder = (x: RecordDiff, y: RecordDiff) =>
    x.agent === y.agent ? 0 : x.agent === null ? -1 : y.agent === null ? 1 : byToken(x.agent, y.agent);
  return out.sort((x, y) => scopeOrder(x, y) || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
}

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/** Without the bytes: the same lines as written, with the same line numbers, count as identical. */
function sameAsWritten(a: DiffableRobotsTxt | null, b: DiffableRobotsTxt | null): boolean {
  if (a === null || b === null) return a === b;
  const written = (r: DiffableRobotsTxt) => JSON.stringify([r.groups, r.sitemaps, r.records]);
  return written(a) === written(b);
}

/**
 * The semantic diff of two parsed versions. `null` stands for "no robots.txt body" and diffs
 * like an empty file, with `beforeMissing`/`afterMissing` set. Pass the raw bodies to tell
 * `identical` (same bytes) from `comments_only`; without them, versions whose lines as written
 * are equal count as identical.
 */
export function diffRobotsTxt(before: DiffableRobotsTxt | null, after: DiffableRobotsTxt | null, raw?: RawBodies): RobotsDiff {
  const b = semanticsOf(before);
  const a = semanticsOf(after);
  const { agents: allAgents, notCompared } = agentDiffs(b, a);
  const agents = allAgents.filter((d, i) => i < MAX_DIFF_AGENTS_LISTED || d.disallowAllAdded || d.disallowAllRemoved);
  const notListed = allAgents.length - agents.length;
  const sitemapsAdded = [...a.sitemaps].filter((u) => !b.sitemaps.has(u));
  const sitemapsRemoved = [...b.sitemaps].filter((u) => !a.sitemaps.has(u));
  const records = recordDiffs(b, a);

  const kinds: RobotsChangeKind[] = [];
  // Agents left uncompared may have changed: the diff does not claim they did not.
  if (allAgents.length > 0 || notCompared > 0) kinds.push('rules');
  if (sitemapsAdded.length > 0 || sitemapsRemoved.length > 0) kinds.push('sitemaps');
  if (records.length > 0) kinds.push('records');
  if (kinds.length === 0) {
    const identical = raw ? sameBytes(raw.before, raw.after) : sameAsWritten(before, after);
    kinds.push(identical ? 'identical' : 'comments_only');
  }
  return {
    kinds,
    beforeMissing: before === null,
    afterMissing: after === null,
    agents,
    agentsAdded: allAgents.filter((d) => d.change === 'added').map((d) => d.token),
    agentsRemoved: allAgents.filter((d) => d.change === 'removed').map((d) => d.token),
    sitemapsAdded,
    sitemapsRemoved,
    records,
    ...(notCompared > 0 ? { agentsNotCompared: notCompared } : {}),
    ...(notListed > 0 ? { agentsNotListed: notListed } : {}),
  };
}

/** True when the diff changes anything a crawler reads. */
export function hasSemanticChange(diff: RobotsDiff): boolean {
  return diff.kinds.some((k) => k === 'rules' || k === 'sitemaps' || k === 'records');
}

export type DiffPart = 'rules' | 'sitemaps' | 'records';

/** A rule as its line reads in a robots.txt: `Disallow: /private/`. */
export const ruleLine = (r: { kind: 'allow' | 'disallow'; value: string }) => `${r.kind === 'allow' ? 'Allow' : 'Disallow'}: ${r.value}`;

/**
 * Sitemap lines (each of removed and added) and record lines `describeRobotsDiff` writes at most;
 * the rest are counted (issue 26: 500 KiB of `Sitemap:` lines, or 14,000 agents with a
 * `Crawl-delay` each, changed at once).
 */
export const DESCRIBE_MAX_LINES_PER_PART = 200;

/** `lines` gets at most `max` of `items`, then how many more there are. */
function pushBounded<T>(lines: string[], items: readonly T[], line: (item: T) => string, what: string, max: number): void {
  for (const item of items.length > max ? items.slice(0, max) : items) lines.push(line(item));
  if (items.length > max) lines.push(`… ${items.length - max} more ${what} not listed`);
}

/**
 * The semantic diff as short lines for people (alerts, CLI):
 * `+ group GPTBot`, `    + Disallow: /`, `- Sitemap: ...`, `~ crawl-delay [*]: 2 -> 5`.
 * `maxPerPart`: sitemap and record lines listed (alerts pass Infinity: alert-bounds.ts cuts
 * their details and counts what it cuts).
 */
export function describeRobotsDiff(diff: RobotsDiff, parts: readonly DiffPart[] = ['rules', 'sitemaps', 'records'], maxPerPart = DESCRIBE_MAX_LINES_PER_PART): string[] {
  const lines: string[] = [];
  const agents = parts.includes('rules') ? diff.agents : [];
  const sitemaps = parts.includes('sitemaps');
  const records = parts.includes('records') ? diff.records : [];
  for (const agent of agents) {
    const sign = agent.change === 'added' ? '+' : agent.change === 'removed' ? '-' : '~';
    lines.push(`${sign} group ${agent.userAgents.join(', ')}`);
    for (const r of agent.rulesRemoved) lines.push(`    - ${ruleLine(r)}`);
    for (const r of agent.rulesAdded) lines.push(`    + ${ruleLine(r)}`);
    if (agent.rulesNotListed) lines.push(`    … ${agent.rulesNotListed} more rules not listed`);
  }
  if (agents.length > 0 && diff.agentsNotListed) lines.push(`… ${diff.agentsNotListed} more groups changed, not listed`);
  if (diff.agentsNotCompared) lines.push(`… ${diff.agentsNotCompared} more groups not compared (the file is too complex to diff in full)`);
  if (sitemaps) {
    pushBounded(lines, diff.sitemapsRemoved, (url) => `- Sitemap: ${url}`, 'sitemaps removed', maxPerPart);
    pushBounded(lines, diff.sitemapsAdded, (url) => `+ Sitemap: ${url}`, 'sitemaps added', maxPerPart);
  }
  const show = (v: string[]) => (v.length === 0 ? '(none)' : v.join(', '));
  pushBounded(
    lines,
    records,
    (r) => {
      const scope = r.agent === null ? '' : ` [${r.agent}]`;
      const sign = r.change === 'added' ? '+' : r.change === 'removed' ? '-' : '~';
      return `${sign} ${r.key}${scope}: ${show(r.before)} -> ${show(r.after)}`;
    },
    'records changed',
    maxPerPart,
  );
  return lines;
}

// ---------------------------------------------------------------------------------------------
// The text diff, for people.

/** Lines of unchanged context around each change. */
export const DEFAULT_TEXT_DIFF_CONTEXT = 3;
/** Output lines kept; the rest is summarised as `… N more lines`. */
export const DEFAULT_TEXT_DIFF_MAX_LINES = 400;
/** Characters kept of one line (an HTML body can be one 16 KiB line). */
export const DEFAULT_TEXT_DIFF_MAX_LINE_CHARS = 500;
/**
 * Beyond this many changed lines (removed + added) the line diff is not computed: its cost grows
 * with the square of the edits (2,000 take about 0.4 s on 25,000 lines), and at most
 * `maxLines` of it would be shown. The output then says how many lines each version has.
 * Deterministic, unlike a timeout.
 */
export const DEFAULT_TEXT_DIFF_MAX_EDIT_LENGTH = 2_000;

export interface TextDiffOptions {
  context?: number;
  maxLines?: number;
  maxLineChars?: number;
  maxEditLength?: number;
}

type LineEnding = 'LF' | 'CRLF' | 'CR' | 'mixed' | 'none';

function lineEndingOf(text: string): LineEnding {
  const crlf = (text.match(/\r\n/g) ?? []).length;
  const cr = (text.match(/\r(?!\n)/g) ?? []).length;
  const lf = (text.match(/(?<!\r)\n/g) ?? []).length;
  const kinds = [crlf > 0, cr > 0, lf > 0].filter(Boolean).length;
  if (kinds === 0) return 'none';
  if (kinds > 1) return 'mixed';
  return crlf > 0 ? 'CRLF' : cr > 0 ? 'CR' : 'LF';
}

// BOM kept as U+FEFF so that a BOM change shows; invalid UTF-8 becomes U+FFFD (R-20, R-27).
const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

function clip(line: string, max: number): string {
  return line.length <= max ? line : `${line.slice(0, max)}… (${line.length - max} more characters)`;
}

function splitLines(lfText: string): string[] {
  return lfText.length === 0 ? [] : lfText.replace(/\n$/, '').split('\n');
}

/** Lines that must be removed or added whatever the alignment: a cheap floor of the edit length. */
function editLowerBound(before: readonly string[], after: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const line of before) counts.set(line, (counts.get(line) ?? 0) + 1);
  let unmatchedAfter = 0;
  for (const line of after) {
    const n = counts.get(line) ?? 0;
    if (n > 0) counts.set(line, n - 1);
    else unmatchedAfter++;
  }
  const unmatchedBefore = before.length - (after.length - unmatchedAfter);
  return unmatchedBefore + unmatchedAfter;
}

/**
 * A unified diff of two bodies, decoded as UTF-8 with replacement characters. Line endings
 * (R-20: CR, CRLF, LF) are compared apart: the diff is of the lines, and a change of line
 * ending style is stated in a note line. Returns '' when the bytes are the same.
 */
/**
 * The line diff of two texts, computed on the part between their common first and last lines
 * (less `context` lines each side, which the hunks show): the same hunks, numbered as in the
 * whole texts. jsdiff walks every line however few changed; one rule changed in a file of 8,300
 * similar lines took it 0.25 s (issue 26).
 */
function patchOfChangedPart(beforeName: string, afterName: string, a: string, b: string, context: number, maxEditLength: number) {
  const la = a.split('\n');
  const lb = b.split('\n');
  // Whole lines only: the last element is what follows the last newline ('' when the text ends with one).
  let head = 0;
  while (head < la.length - 1 && head < lb.length - 1 && la[head] === lb[head]) head++;
  let tail = 0;
  while (tail < la.length - head && tail < lb.length - head && la[la.length - 1 - tail] === lb[lb.length - 1 - tail]) tail++;
  const dropHead = Math.max(0, head - context);
  const dropTail = Math.max(0, tail - context);
  // Lines kept before a dropped tail ended with a newline in both texts.
  const part = (lines: string[]) => lines.slice(dropHead, lines.length - dropTail).join('\n') + (dropTail > 0 ? '\n' : '');
  const patch = structuredPatch(beforeName, afterName, part(la), part(lb), undefined, undefined, { context, maxEditLength });
  if (patch === undefined) return undefined;
  for (const hunk of patch.hunks) {
    hunk.oldStart += dropHead;
    hunk.newStart += dropHead;
  }
  return patch;
}

export function unifiedTextDiff(before: Uint8Array | null, after: Uint8Array | null, options: TextDiffOptions = {}): string {
  if (sameBytes(before, after)) return '';
  const context = options.context ?? DEFAULT_TEXT_DIFF_CONTEXT;
  const maxLines = options.maxLines ?? DEFAULT_TEXT_DIFF_MAX_LINES;
  const maxLineChars = options.maxLineChars ?? DEFAULT_TEXT_DIFF_MAX_LINE_CHARS;
  const maxEditLength = options.maxEditLength ?? DEFAULT_TEXT_DIFF_MAX_EDIT_LENGTH;

  const beforeText = before === null ? '' : decoder.decode(before);
  const afterText = after === null ? '' : decoder.decode(after);
  const toLf = (t: string) => t.replace(/\r\n?/g, '\n');
  const notes: string[] = [];
  const endingBefore = lineEndingOf(beforeText);
  const endingAfter = lineEndingOf(afterText);
  if (before !== null && after !== null && endingBefore !== endingAfter && endingBefore !== 'none' && endingAfter !== 'none') {
    notes.push(`# line endings: ${endingBefore} -> ${endingAfter}`);
  }

  const lfBefore = toLf(beforeText);
  const lfAfter = toLf(afterText);
  const linesBefore = splitLines(lfBefore);
  const linesAfter = splitLines(lfAfter);
  const tooLarge = editLowerBound(linesBefore, linesAfter) > maxEditLength;
  const beforeName = before === null ? '/dev/null' : 'robots.txt (before)';
  const afterName = after === null ? '/dev/null' : 'robots.txt (after)';
  const patch = tooLarge ? undefined : patchOfChangedPart(beforeName, afterName, lfBefore, lfAfter, context, maxEditLength);
  let body: string[];
  if (patch === undefined) {
    body = [`# too many changed lines to diff: ${linesBefore.length} lines before, ${linesAfter.length} lines after`];
  } else if (patch.hunks.length === 0) {
    body = notes.length > 0 ? [] : ['# the bytes differ but the decoded lines are the same (encoding or invalid UTF-8)'];
  } else {
    body = formatPatch(patch, { includeIndex: false, includeUnderline: false, includeFileHeaders: true })
      .replace(/\n$/, '')
      .split('\n');
  }
  const lines = [...notes, ...body].map((l) => clip(l, maxLineChars));
  if (lines.length <= maxLines) return lines.join('\n');
  const kept = lines.slice(0, maxLines);
  kept.push(`… ${lines.length - maxLines} more lines`);
  return kept.join('\n');
}
