/**
 * The usage preferences of a night's verdicts (docs/usage-preferences.md): what a span keeps of
 * them, whether they changed, and which changes are flips. Part of step 4 (verdicts.ts): a span
 * is closed and another opened when its crawl verdict or its preferences change; a preference
 * change is a flip only when the crawler may fetch the URL on both nights (D-15: otherwise the
 * crawl verdict's flip says it) and the span in force was written by a release that read
 * preferences (`usageRead`: after migration 0020 the first evaluation only fills them in).
 */
import { MAX_USAGE_VALUE_CHARS, clampText } from '../../db/column-limits.js';
import type { PurposeAnswer, UsageAnswer } from '../../robots/index.js';
import { USAGE_SPAN_FIELDS } from '../../night/input.js';
import type { UsageRule, UsageRules, VerdictSpan } from '../../night/input.js';
import { USAGE_PURPOSES } from '../../night/vocabulary.js';
import type { StoredPreference, UsagePurpose } from '../../night/vocabulary.js';

export type SpanUsage = Pick<VerdictSpan, 'usageSearch' | 'usageAiTrain' | 'usageAiInput' | 'usageRules' | 'usageRead'>;

/** A span's preference for a purpose. */
export function spanPreference(span: SpanUsage, purpose: UsagePurpose): StoredPreference {
  const allowed = span[USAGE_SPAN_FIELDS[purpose]];
  return allowed === null ? 'unknown' : allowed ? 'allowed' : 'refused';
}

/** An answer as kept: allowed, refused, or unknown (nothing states it, or the URL may not be fetched: the span's crawl verdict says which). */
export function storedPreference(answer: PurposeAnswer): StoredPreference {
  return answer.preference === 'allowed' || answer.preference === 'refused' ? answer.preference : 'unknown';
}

const storedOf = (answer: PurposeAnswer): boolean | null => (answer.preference === 'allowed' ? true : answer.preference === 'refused' ? false : null);

/** The line that states an answer, as a span keeps it but for its `since` and the cut of its value; null when nothing states it. */
export function statedLine(answer: PurposeAnswer): Omit<UsageRule, 'since'> | null {
  if (storedOf(answer) === null || answer.line === null || answer.mechanism === null) return null;
  return { line: answer.line, mechanism: answer.mechanism, label: answer.label ?? '', value: answer.value ?? '' };
}

/**
 * What a span keeps of tonight's preferences: each purpose's value and deciding line, its
 * `since` carried from the span in force while the preference stays the same.
 */
export function spanUsage(usage: UsageAnswer, held: VerdictSpan | undefined, runAt: Date): SpanUsage {
  let rules: UsageRules | null = null;
  for (const purpose of USAGE_PURPOSES) {
    const answer = usage[purpose];
    const line = statedLine(answer);
    if (line === null) continue;
    const kept = held?.usageRead && spanPreference(held, purpose) === answer.preference ? held.usageRules?.[purpose]?.since : undefined;
    (rules ??= {})[purpose] = { ...line, value: clampText(line.value, MAX_USAGE_VALUE_CHARS) ?? '', since: kept ?? runAt.toISOString() };
  }
  return {
    usageSearch: storedOf(usage.search),
    usageAiTrain: storedOf(usage['ai-train']),
    usageAiInput: storedOf(usage['ai-input']),
    usageRules: rules,
    usageRead: true,
  };
}

/** Whether two spans tell the same preferences by the same lines (`since` and `usageRead` aside). */
export function sameUsage(held: SpanUsage, now: SpanUsage): boolean {
  for (const purpose of USAGE_PURPOSES) {
    const field = USAGE_SPAN_FIELDS[purpose];
    if (held[field] !== now[field]) return false;
    const a = held.usageRules?.[purpose];
    const b = now.usageRules?.[purpose];
    if (a?.line !== b?.line || a?.label !== b?.label) return false;
  }
  return true;
}

export interface PreferenceChange {
  purpose: UsagePurpose;
  from: StoredPreference;
  to: StoredPreference;
  ruleBefore: UsageRule | null;
  ruleAfter: UsageRule | null;
}

/** The purposes whose preference changed between the span in force and tonight's, when that is a flip (D-15). */
export function preferenceChanges(held: VerdictSpan, heldAllowed: boolean, now: SpanUsage, nowAllowed: boolean): PreferenceChange[] {
  if (!held.usageRead || !heldAllowed || !nowAllowed) return [];
  const changes: PreferenceChange[] = [];
  for (const purpose of USAGE_PURPOSES) {
    const from = spanPreference(held, purpose);
    const to = spanPreference(now, purpose);
    if (from !== to) changes.push({ purpose, from, to, ruleBefore: held.usageRules?.[purpose] ?? null, ruleAfter: now.usageRules?.[purpose] ?? null });
  }
  return changes;
}
