/**
 * What lint says of a file's Content-Signal and Content-Usage lines (docs/usage-preferences.md):
 * the problems `usageLineOf` found on each line, worded, and the conflicts between lines of one
 * scope. Works on the lines the parse read once (`usageLinesOf`), so the linter's one scan
 * gives them. At most a few findings a line (the labels of one kind are named in one finding),
 * and the conflict check is one pass over the lines, keyed by scope: linear in the lines.
 * Pure. What the crawlers make of a preference (a contradiction with their crawl) is
 * src/crawlers/usage-lint.ts's.
 */
import type { LintCode } from '../lint-codes.js';
import { quote } from '../lint-text.js';
import type { Group } from '../types.js';
import type { UsageLine, UsageProblem } from './lines.js';
import type { UsageLines } from './usage-preferences.js';
import { AIPREF_VOCABULARY, CONTENT_SIGNAL_LABELS, CONTENT_USAGE_LABELS, USAGE_KEY_NAMES } from './vocabulary.js';
import type { UsageLabel, UsageMechanism, UsagePurpose } from './vocabulary.js';

export interface UsageFinding {
  line: number;
  code: LintCode;
  message: string;
}

/** Labels named in one finding; the rest are counted. */
const LABELS_NAMED = 3;

/** The line as written, bounded: `"Content-Signal: ai-train=no"`. */
export function usageLineText(line: Pick<UsageLine, 'mechanism' | 'value'>): string {
  return `"${USAGE_KEY_NAMES[line.mechanism]}: ${quote(line.value)}"`;
}

/** A purpose's value as the mechanism writes it. */
export function writtenValue(mechanism: UsageMechanism, allowed: boolean): string {
  if (mechanism === 'content-signal') return allowed ? 'yes' : 'no';
  return allowed ? 'y' : 'n';
}

/** Every finding on the usage lines of a file, in file order (the linter sorts by line). */
export function usageFindings(lines: UsageLines, groups: readonly Group[] = []): UsageFinding[] {
  const out: UsageFinding[] = [];
  for (const line of lines.all) lineFindings(line, out);
  conflictFindings(lines.all, out);
  joinedGroupFindings(lines.all, groups, out);
  return out;
}

/**
 * A user-agent line that a usage line precedes in its group: the crawler it names was meant to
 * start a group of its own (an empty line often stands between, which ends nothing, R-31), but it
 * joins the group above, its rules and preferences. One finding per such user-agent line, each
 * group looked at once: linear in the lines.
 */
function joinedGroupFindings(lines: readonly UsageLine[], groups: readonly Group[], out: UsageFinding[]): void {
  const firstUsageLine = new Map<number, UsageLine>();
  for (const line of lines) if (line.groupIndex !== null && !firstUsageLine.has(line.groupIndex)) firstUsageLine.set(line.groupIndex, line);
  for (const [index, usage] of firstUsageLine) {
    const group = groups[index];
    if (group === undefined) continue;
    const joined = group.userAgents.filter((ua) => ua.line > usage.line);
    const named = group.userAgents.filter((ua) => ua.line < usage.line).map((ua) => ua.value);
    for (const ua of joined) {
      out.push({
        line: ua.line,
        code: 'usage-joins-group',
        message: `"User-agent: ${quote(ua.value)}" comes after ${usageLineText(usage)} (line ${usage.line}) with no allow/disallow between, so it joins the group of ${quote(named.join(', '))}: its crawler follows that group's rules and preferences (R-30, R-31). End the group above with a rule (e.g. "Allow: /") if it was meant to start its own.`,
      });
    }
  }
}

function lineFindings(line: UsageLine, out: UsageFinding[]): void {
  const written = usageLineText(line);
  const add = (code: LintCode, message: string) => out.push({ line: line.line, code, message });
  if (line.groupIndex === null) {
    // D-8, as Allow/Disallow there.
    add(
      'usage-outside-group',
      `${written} comes before any user-agent line, so it belongs to no group and applies to no crawler (D-8). Put it in a group: below "User-agent: *" it applies to every crawler without a group of its own.`,
    );
  }
  const unknown: string[] = [];
  const badValues: string[] = [];
  const duplicates = new Set<string>();
  for (const problem of line.problems) {
    switch (problem.kind) {
      case 'unparsable':
        add(
          'usage-unparsable',
          `${written} is not an RFC 9651 Dictionary (keys are lower-case, members "key=value" separated by commas, no trailing comma), so every preference of this line is unknown (D-12, ${AIPREF_VOCABULARY} §6.5).`,
        );
        break;
      case 'no-path':
        add('usage-no-path', `${written} gives no path (the form of draft-ietf-aipref-attach-00): it is read as applying to "/", every path (D-10). draft-ietf-aipref-attach-05 §3 writes the path first, e.g. "Content-Usage: / ${quote(line.value)}".`);
        break;
      case 'retired-label':
        add('usage-unknown-label', `${written}: ${retiredMessage(problem)}`);
        break;
      case 'unknown-label':
        unknown.push(problem.label);
        break;
      case 'bad-value':
        badValues.push(badValueText(line.mechanism, problem.label, problem.value));
        break;
      case 'duplicate-label':
        duplicates.add(problem.label);
        break;
    }
  }
  if (unknown.length > 0) add('usage-unknown-label', `${written}: ${unknownMessage(line.mechanism, unknown)}`);
  if (badValues.length > 0) {
    const allowedValues = line.mechanism === 'content-signal' ? 'yes or no' : 'the tokens y or n';
    add('usage-bad-value', `${written}: ${named(badValues)}. ${USAGE_KEY_NAMES[line.mechanism]} values are ${allowedValues}; any other leaves that preference unknown on this line (D-12).`);
  }
  if (duplicates.size > 0) {
    const labels = [...duplicates].map((l) => `"${quote(l)}"`);
    const one = labels.length === 1;
    add('usage-duplicate-label', `${written} sets ${named(labels)} more than once: the last value ${one ? 'applies' : 'of each applies'} (D-12).`);
  }
}

function retiredMessage(p: Extract<UsageProblem, { kind: 'retired-label' }>): string {
  const defined = `"${quote(p.label)}" is a label of draft-ietf-aipref-vocab${p.revisions}, which ${AIPREF_VOCABULARY} no longer defines: it is ignored (§6.4).`;
  return p.instead === null ? `${defined} ${AIPREF_VOCABULARY} has no label for it: remove it.` : `${defined} Write "${p.instead}" instead.`;
}

function unknownMessage(mechanism: UsageMechanism, labels: readonly string[]): string {
  const [own, other] = mechanism === 'content-signal' ? [CONTENT_SIGNAL_LABELS, CONTENT_USAGE_LABELS] : [CONTENT_USAGE_LABELS, CONTENT_SIGNAL_LABELS];
  const vocabulary = mechanism === 'content-signal' ? 'Content Signals' : AIPREF_VOCABULARY;
  const shown = labels.map((l) => `"${quote(l)}"`);
  const one = labels.length === 1;
  // The other mechanism's label for a purpose is the common slip (ai-train on a Content-Usage line).
  const slips = labels.flatMap((l) => {
    const purpose = other.get(l)?.purpose;
    const meant = purpose === undefined ? undefined : labelOf(own, purpose);
    return meant === undefined ? [] : [`"${l}" is the ${mechanism === 'content-signal' ? 'Content-Usage' : 'Content-Signal'} label, write "${meant}"`];
  });
  const known = [...own.keys()].join(', ');
  return (
    `${named(shown)} ${one ? 'is not a label' : 'are not labels'} of ${vocabulary} (${known}): ${one ? 'it is' : 'they are'} ignored (D-12).` +
    (slips.length > 0 ? ` ${slips.slice(0, LABELS_NAMED).join('; ')}.` : '')
  );
}

function labelOf(labels: ReadonlyMap<string, UsageLabel>, purpose: UsagePurpose): string | undefined {
  for (const [label, l] of labels) if (l.purpose === purpose) return label;
  return undefined;
}

function badValueText(mechanism: UsageMechanism, label: string, value: string): string {
  if (mechanism === 'content-usage' && value === '(not a token)') return `the value of "${quote(label)}" is not a token`;
  if (value === '') return `"${quote(label)}" has no value`;
  return `"${quote(label)}=${quote(value)}"`;
}

/** `a`, `a, b and c`, `a, b, c and 4 more`. */
function named(items: readonly string[]): string {
  if (items.length === 1) return items[0] as string;
  if (items.length > LABELS_NAMED) return `${items.slice(0, LABELS_NAMED).join(', ')} and ${items.length - LABELS_NAMED} more`;
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

interface ScopeStatement {
  line: UsageLine;
  label: string;
}

/**
 * D-13: lines of one group, one mechanism and one path that give a purpose different values.
 * One pass, keyed by (group, mechanism, pattern): per purpose the first line that allows and the
 * first that refuses; reported once per scope and purpose, on the line that makes the conflict.
 */
function conflictFindings(lines: readonly UsageLine[], out: UsageFinding[]): void {
  const scopes = new Map<string, Map<UsagePurpose, { allowed?: ScopeStatement; refused?: ScopeStatement; reported?: true }>>();
  for (const line of lines) {
    // Outside any group a line applies to no crawler (D-8): usage-outside-group says so.
    if (line.groupIndex === null || line.stated.size === 0) continue;
    const key = `${line.groupIndex}\u0000${line.mechanism}\u0000${line.pattern}`;
    let scope = scopes.get(key);
    if (scope === undefined) scopes.set(key, (scope = new Map()));
    for (const [purpose, stated] of line.stated) {
      let seen = scope.get(purpose);
      if (seen === undefined) scope.set(purpose, (seen = {}));
      const side = stated.allowed ? 'allowed' : 'refused';
      seen[side] ??= { line, label: stated.label };
      const earlier = seen[stated.allowed ? 'refused' : 'allowed'];
      if (earlier === undefined || seen.reported) continue;
      seen.reported = true;
      const refusing = stated.allowed ? earlier.line : line;
      const path = line.path ?? '/';
      out.push({
        line: line.line,
        code: 'usage-conflict',
        message:
          `${usageLineText(line)} gives "${quote(stated.label)}" ${writtenValue(line.mechanism, stated.allowed)} where line ${earlier.line.line} (${usageLineText(earlier.line)}), in the same group for the same path "${quote(path)}", ` +
          `gives it ${writtenValue(line.mechanism, !stated.allowed)}: the refusal (line ${refusing.line}) wins (D-13).`,
      });
    }
  }
}
