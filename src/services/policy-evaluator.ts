/**
 * Verdicts under a snapshot's effective policy: full allow, full disallow, or the rules of the
 * snapshot the policy names (the snapshot itself, or the last good one under D-3), for the
 * group each crawler follows (R-42, src/robots/crawlers.ts).
 */
import type { Snapshot } from '../db/index.js';
import { followedAgent, parseRobotsTxt } from '../robots/index.js';
import type { FlipRule } from '../db/schema.js';

export interface PolicyVerdict {
  allowed: boolean;
  rule: FlipRule | null;
}

export type PolicyEvaluator = (url: string, userAgent: string) => PolicyVerdict;

const ALLOW: PolicyVerdict = { allowed: true, rule: null };
const DISALLOW: PolicyVerdict = { allowed: false, rule: null };

/**
 * `rulesBody` is the body of the snapshot named by `policy_snapshot_id` (null when the policy
 * is not `rules`). Parsed once; each check is then a lookup (parse once, check many).
 */
export function policyEvaluator(snapshot: Pick<Snapshot, 'policy'>, rulesBody: Uint8Array | null): PolicyEvaluator {
  if (snapshot.policy === 'allow_all') return () => ALLOW;
  if (snapshot.policy === 'disallow_all') return () => DISALLOW;
  // A `rules` policy whose body is gone (never for bodies are kept forever) reads as an empty file.
  const robots = parseRobotsTxt(rulesBody ?? new Uint8Array());
  return (url, userAgent) => {
    // As the crawler decides: a crawler with several product tokens follows its most specific group.
    const e = robots.explain(url, followedAgent(robots, userAgent));
    return {
      allowed: e.allowed,
      rule: e.rule ? { line: e.rule.line, kind: e.rule.kind, value: e.rule.value, pattern: e.rule.pattern } : null,
    };
  };
}
