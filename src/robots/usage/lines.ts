/**
 * A Content-Signal or Content-Usage line read into what it states: its path scope, the
 * preference it gives each purpose, and what a reader of it should be told (the lint findings).
 * Pure; a line is read once per parse (usage-preferences.ts keeps them).
 */
import { escapePattern } from '../encoding.js';
import type { OtherRecord } from '../types.js';
import { parseStructuredDictionary } from './structured-dictionary.js';
import {
  CONTENT_SIGNAL_LABELS,
  CONTENT_SIGNAL_VALUES,
  CONTENT_USAGE_LABELS,
  CONTENT_USAGE_VALUES,
  RETIRED_AIPREF_LABELS,
  USAGE_KEYS,
} from './vocabulary.js';
import type { UsageMechanism, UsagePurpose } from './vocabulary.js';

export interface StatedPreference {
  allowed: boolean;
  /** The label as written. */
  label: string;
  definedBy: string;
}

/** Something about a line its author should know (usage-lint.ts words them). */
export type UsageProblem =
  | { kind: 'unparsable' }
  | { kind: 'no-path' }
  | { kind: 'unknown-label'; label: string }
  | { kind: 'retired-label'; label: string; revisions: string; instead: string | null }
  | { kind: 'bad-value'; label: string; value: string }
  | { kind: 'duplicate-label'; label: string };

export interface UsageLine {
  mechanism: UsageMechanism;
  line: number;
  /** The group it stands in (Google's grouping), or null before the first user-agent line (D-8). */
  groupIndex: number | null;
  /** The value as written (shown by reports; never interpreted beyond this module). */
  value: string;
  /** The path as written, or null when the line gives none (it applies to `/`, D-10). */
  path: string | null;
  /** The path as the engine matches a rule's (T28, T49): its length is its priority (D-11). */
  pattern: string;
  /** What the line states, by purpose; a purpose it does not state is absent. */
  stated: Map<UsagePurpose, StatedPreference>;
  problems: UsageProblem[];
}

/** The usage line of a record, or null for a record of another key. */
export function usageLineOf(record: OtherRecord): UsageLine | null {
  const mechanism = USAGE_KEYS.get(record.key);
  if (mechanism === undefined) return null;
  const { path, rest } = splitPath(record.value);
  const line: UsageLine = {
    mechanism,
    line: record.line,
    groupIndex: record.groupIndex,
    value: record.value,
    path,
    pattern: path === null ? '/' : escapePath(path),
    stated: new Map(),
    problems: [],
  };
  if (mechanism === 'content-usage') {
    // attach-05 §3.2: the path always starts with `/`; the attach-00 form had none (D-10).
    if (path === null) line.problems.push({ kind: 'no-path' });
    readContentUsage(rest, line);
  } else {
    readContentSignal(rest, line);
  }
  return line;
}

/** D-10: a value starting with `/` opens with its path, up to the first space or tab. */
function splitPath(value: string): { path: string | null; rest: string } {
  if (!value.startsWith('/')) return { path: null, rest: value };
  const end = value.search(/[ \t]/);
  if (end === -1) return { path: value, rest: '' };
  return { path: value.slice(0, end), rest: value.slice(end).replace(/^[ \t]+/, '') };
}

function escapePath(path: string): string {
  const bytes = Buffer.from(path, 'utf8');
  return escapePattern(bytes, 0, bytes.length);
}

/** draft-ietf-aipref-vocab-08 §6.5: a Dictionary; y / n Tokens; anything else unknown (D-12). */
function readContentUsage(text: string, line: UsageLine): void {
  const parsed = parseStructuredDictionary(text);
  if (parsed === null) {
    line.problems.push({ kind: 'unparsable' });
    return;
  }
  for (const label of parsed.repeated) line.problems.push({ kind: 'duplicate-label', label });
  for (const [label, value] of parsed.members) {
    const known = CONTENT_USAGE_LABELS.get(label);
    if (known === undefined) {
      line.problems.push(retiredOrUnknown(label));
      continue;
    }
    const allowed = value.type === 'token' ? CONTENT_USAGE_VALUES.get(value.text) : undefined;
    if (allowed === undefined) {
      line.problems.push({ kind: 'bad-value', label, value: value.type === 'token' ? value.text : '(not a token)' });
      continue;
    }
    line.stated.set(known.purpose, { allowed, label, definedBy: known.definedBy });
  }
}

function retiredOrUnknown(label: string): UsageProblem {
  const retired = RETIRED_AIPREF_LABELS.get(label);
  return retired === undefined ? { kind: 'unknown-label', label } : { kind: 'retired-label', label, ...retired };
}

/**
 * contentsignals.org: `key=value` pairs separated by commas, values yes / no. Keys and values
 * are compared ASCII case-insensitively; a repeated key: the last applies (D-12).
 */
function readContentSignal(text: string, line: UsageLine): void {
  const seen = new Set<string>();
  for (const member of text.split(',')) {
    const trimmed = member.trim();
    if (trimmed === '') continue;
    const eq = trimmed.indexOf('=');
    const label = (eq === -1 ? trimmed : trimmed.slice(0, eq)).trim().toLowerCase();
    const value = eq === -1 ? '' : trimmed.slice(eq + 1).trim();
    if (seen.has(label)) line.problems.push({ kind: 'duplicate-label', label });
    seen.add(label);
    const known = CONTENT_SIGNAL_LABELS.get(label);
    if (known === undefined) {
      line.problems.push({ kind: 'unknown-label', label });
      continue;
    }
    const allowed = CONTENT_SIGNAL_VALUES.get(value.toLowerCase());
    if (allowed === undefined) {
      // A later valid value for the same key still applies; an invalid one removes an earlier one.
      line.stated.delete(known.purpose);
      line.problems.push({ kind: 'bad-value', label, value });
      continue;
    }
    line.stated.set(known.purpose, { allowed, label, definedBy: known.definedBy });
  }
}
