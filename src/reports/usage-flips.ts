/**
 * Usage flips in words (`usage_flips`: a tracked URL's usage preference for a purpose that changed
 * on a night, for a crawler that may fetch it on both nights, D-15): one line per URL and change,
 * naming the crawlers it applies to, so ten agents told the same at the root take one line. The
 * history (`robots-audit history`) and the night page read them. Pure.
 */
import type { UsageRule } from '../night/input.js';
import type { StoredPreference, UsagePurpose } from '../night/vocabulary.js';
import { USAGE_KEY_NAMES } from '../robots/usage/vocabulary.js';

export interface UsageFlipEvent {
  url: string;
  agent: string;
  purpose: UsagePurpose;
  from: StoredPreference;
  to: StoredPreference;
  /** The line that states the preference now; null when none does (withdrawn). */
  ruleAfter: UsageRule | null;
}

/** `line 3: Content-Signal: ai-train=no`, or `no line` for a preference stated no more. */
export function usageRuleText(rule: UsageRule | null): string {
  return rule ? `line ${rule.line}: ${USAGE_KEY_NAMES[rule.mechanism]}: ${rule.value}` : 'no line';
}

/** `<url>: ai-train allowed → refused (line 3: Content-Signal: ai-train=no) for GPTBot, CCBot`, the first `max` lines. */
export function usageFlipLines(flips: readonly UsageFlipEvent[], max: number): { lines: string[]; hidden: number } {
  const groups = new Map<string, string[]>();
  for (const f of flips) {
    const head = `${f.url}: ${f.purpose} ${f.from} → ${f.to} (${usageRuleText(f.ruleAfter)})`;
    const agents = groups.get(head);
    if (agents) agents.push(f.agent);
    else groups.set(head, [f.agent]);
  }
  const entries = [...groups.entries()];
  return {
    lines: entries.slice(0, max).map(([head, agents]) => `${head} for ${agents.join(', ')}`),
    hidden: entries.slice(max).reduce((n, [, agents]) => n + agents.length, 0),
  };
}
