/**
 * What a robots.txt states about the use of a URL's content, purpose by purpose, for the group
 * a crawler follows (docs/usage-preferences.md, D-7..D-13): the Content-Usage lines
 * (draft-ietf-aipref-attach-05 §3) and the Content-Signal lines (contentsignals.org) of that
 * group whose path matches, the longest path deciding, the two mechanisms combined as
 * draft-ietf-aipref-vocab-08 §5.1 combines statements (a refusal wins). Which group a crawler
 * follows, and whether it may fetch the URL at all, is the caller's (src/crawlers/usage-verdicts.ts).
 * Pure.
 */
import { compilePattern, matchCompiled } from '../match.js';
import type { CompiledPattern } from '../match.js';
import type { RobotsTxt } from '../parse.js';
import { usageLineOf } from './lines.js';
import type { UsageLine } from './lines.js';
import { USAGE_PURPOSES } from './vocabulary.js';
import type { UsageMechanism, UsagePreference, UsagePurpose } from './vocabulary.js';

export interface PurposeAnswer {
  preference: UsagePreference;
  /** The deciding line (the refusing one where the mechanisms disagree); null when nothing decided. */
  line: number | null;
  mechanism: UsageMechanism | null;
  /** The label as written on that line, and the document that defines it. */
  label: string | null;
  definedBy: string | null;
  /** That line's value as written (what a report quotes). */
  value: string | null;
}

export type UsageAnswer = Readonly<Record<UsagePurpose, PurposeAnswer>>;

const UNKNOWN: PurposeAnswer = Object.freeze({ preference: 'unknown', line: null, mechanism: null, label: null, definedBy: null, value: null });
const NOT_CRAWLABLE: PurposeAnswer = Object.freeze({ preference: 'not-crawlable', line: null, mechanism: null, label: null, definedBy: null, value: null });

const everyPurpose = (answer: PurposeAnswer): UsageAnswer => Object.freeze(Object.fromEntries(USAGE_PURPOSES.map((p) => [p, answer])) as Record<UsagePurpose, PurposeAnswer>);

/** Every purpose unknown: no preference is stated (no file, a 4xx, no line for the group). */
export const NO_PREFERENCES: UsageAnswer = everyPurpose(UNKNOWN);
/** D-9: the crawler may not fetch the URL, so no preference applies to it. */
export const NOT_CRAWLABLE_ANSWER: UsageAnswer = everyPurpose(NOT_CRAWLABLE);

interface IndexedLine {
  line: UsageLine;
  compiled: CompiledPattern;
}

/** A file's usage lines, read once per parse. */
export interface UsageLines {
  /** Every usage line in file order, those outside any group included. */
  readonly all: readonly UsageLine[];
  /** The lines of each group, by group index. */
  readonly byGroup: ReadonlyMap<number, readonly IndexedLine[]>;
}

const EMPTY_LINES: UsageLines = Object.freeze({ all: [], byGroup: new Map() });
const linesOfParse = new WeakMap<RobotsTxt, UsageLines>();

/** The usage lines of a parsed file (read from its records once, when first asked for). */
export function usageLinesOf(robots: RobotsTxt): UsageLines {
  if (!robots.hasUsageLines) return EMPTY_LINES;
  let lines = linesOfParse.get(robots);
  if (lines === undefined) {
    const all: UsageLine[] = [];
    const byGroup = new Map<number, IndexedLine[]>();
    for (const record of robots.records) {
      const line = usageLineOf(record);
      if (line === null) continue;
      all.push(line);
      if (line.groupIndex === null) continue;
      let list = byGroup.get(line.groupIndex);
      if (list === undefined) byGroup.set(line.groupIndex, (list = []));
      list.push({ line, compiled: compilePattern(line.pattern) });
    }
    lines = { all, byGroup };
    linesOfParse.set(robots, lines);
  }
  return lines;
}

/**
 * The preferences of the (merged) groups `groupIndexes` for `path` (path + params + query, as
 * the engine matches rules: T48, D-5). The caller has already decided that the URL may be
 * fetched (D-9).
 */
export function decideUsage(robots: RobotsTxt, groupIndexes: readonly number[], path: string): UsageAnswer {
  const { byGroup } = usageLinesOf(robots);
  if (byGroup.size === 0 || groupIndexes.length === 0) return NO_PREFERENCES;
  const signal = longestMatches(byGroup, groupIndexes, path, 'content-signal');
  const usage = longestMatches(byGroup, groupIndexes, path, 'content-usage');
  if (signal.length === 0 && usage.length === 0) return NO_PREFERENCES;
  const answer = {} as Record<UsagePurpose, PurposeAnswer>;
  // D-11: each mechanism's statement, then the two combined as vocab-08 §5.1 combines statements.
  for (const purpose of USAGE_PURPOSES) answer[purpose] = combine(purpose, usage, signal);
  return answer;
}

/** D-11: the lines of one mechanism whose path matches with the longest pattern (several when they tie). */
function longestMatches(byGroup: ReadonlyMap<number, readonly IndexedLine[]>, groupIndexes: readonly number[], path: string, mechanism: UsageMechanism): UsageLine[] {
  let best: UsageLine[] = [];
  let bestLength = -1;
  for (const index of groupIndexes) {
    for (const { line, compiled } of byGroup.get(index) ?? []) {
      if (line.mechanism !== mechanism || line.pattern.length < bestLength || !matchCompiled(compiled, path)) continue;
      if (line.pattern.length > bestLength) {
        best = [];
        bestLength = line.pattern.length;
      }
      best.push(line);
    }
  }
  return best;
}

/** vocab-08 §5.1 over every deciding line of both mechanisms: a refusal wins, then an allowance (D-11, D-13). */
function combine(purpose: UsagePurpose, ...statements: UsageLine[][]): PurposeAnswer {
  let allowedBy: PurposeAnswer | null = null;
  for (const lines of statements) {
    for (const line of lines) {
      const stated = line.stated.get(purpose);
      if (stated === undefined) continue;
      const answer: PurposeAnswer = { preference: stated.allowed ? 'allowed' : 'refused', line: line.line, mechanism: line.mechanism, label: stated.label, definedBy: stated.definedBy, value: line.value };
      if (!stated.allowed) return answer;
      allowedBy ??= answer;
    }
  }
  return allowedBy ?? UNKNOWN;
}
