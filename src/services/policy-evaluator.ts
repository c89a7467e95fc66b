/**
 * Verdicts under a night's effective policy: full allow, full disallow, or the rules of the body
 * the policy names (the night's own, or the last good one under D-3), for the group each crawler
 * follows by its documented crawler rules (R-42, special-case crawlers, Applebot:
 * src/crawlers/followed-group.ts), as `check` and `explain` answer, with the usage preferences
 * the crawler is told for the URL (src/crawlers/usage-verdicts.ts).
 */
import type { PolicyKind } from '../policy/index.js';
import { parseRobotsTxt } from '../robots/index.js';
import type { RobotsTxt } from '../robots/index.js';
import { NO_PREFERENCES, NOT_CRAWLABLE_ANSWER } from '../robots/index.js';
import type { UsageAnswer } from '../robots/index.js';
import { explainAsCrawler, ParserVerdictReader, usageOfExplained } from '../crawlers/index.js';
import type { ParserVerdict } from '../crawlers/index.js';
import type { FlipRule } from '../night/rows.js';

export interface PolicyVerdict {
  allowed: boolean;
  rule: FlipRule | null;
  /** The verdict under the crawler's own parser where it differs from `allowed`; absent otherwise. */
  parser?: ParserVerdict;
  /** What the crawler is told about the use of the URL's content (docs/usage-preferences.md, D-7..D-13). */
  usage: UsageAnswer;
}

export type PolicyEvaluator = (url: string, userAgent: string) => PolicyVerdict;

// D-9: no file states a preference; a URL that may not be fetched has none.
const ALLOW: PolicyVerdict = { allowed: true, rule: null, usage: NO_PREFERENCES };
const DISALLOW: PolicyVerdict = { allowed: false, rule: null, usage: NOT_CRAWLABLE_ANSWER };

/**
 * `rules` is the body whose rules apply, as bytes or already parsed (null when the policy is not
 * `rules`). Parsed once; each check is then a lookup (parse once, check many). `rulesBytes`, when
 * given, are that body's bytes: each crawler with a known or assumed parser other than Google's
 * also gets the verdict of that parser where it differs (each profile reads the bytes once, and
 * only when a crawler asks for it). A full allow or full disallow reads no rules: no parser verdict.
 */
export function policyEvaluator(policy: PolicyKind, rules: Uint8Array | RobotsTxt | null, rulesBytes: Uint8Array | null = null): PolicyEvaluator {
  if (policy === 'allow_all') return () => ALLOW;
  if (policy === 'disallow_all') return () => DISALLOW;
  // A `rules` policy whose body is gone (never: bodies are kept while a night names them) reads as an empty file.
  const robots = rules === null ? parseRobotsTxt(new Uint8Array()) : rules instanceof Uint8Array ? parseRobotsTxt(rules) : rules;
  const reader = rulesBytes === null ? null : new ParserVerdictReader(rulesBytes);
  return (url, userAgent) => {
    // As the crawler decides: its most specific group, or none when it ignores `*`.
    const e = explainAsCrawler(robots, url, userAgent);
    const verdict: PolicyVerdict = {
      allowed: e.allowed,
      rule: e.rule ? { line: e.rule.line, kind: e.rule.kind, value: e.rule.value, pattern: e.rule.pattern } : null,
      usage: usageOfExplained(robots, e),
    };
    const parser = reader?.differing(url, userAgent, e.allowed) ?? null;
    if (parser !== null) verdict.parser = parser;
    return verdict;
  };
}
