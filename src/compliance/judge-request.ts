/**
 * Was a crawler's request allowed when it was made? The judgement of one request from a server
 * log against the site's robots.txt versions (docs/compliance.md): the version in force at the
 * request's time decides, under the crawler's own documented rules (the group it follows, and
 * whether its operator says robots.txt applies to it at all); a request that version disallows
 * is no violation when a version in force in the cache window before it allowed it (RFC 9309
 * section 2.4), nor when the next version allows it and may already have been served (the change
 * happened between two nights, and the request too). Pure: the versions' verdicts come from the caller's evaluator.
 */
import type { PolicyTimeline, TimelineVersion } from './policy-timeline.js';
import { ROBOTS_TXT_CACHE_HOURS } from './vocabulary.js';
import type { Judgement } from './vocabulary.js';

/** The line that decided a verdict, as the nights store it (src/night/rows.ts FlipRule's fields). */
export interface DecidingRule {
  line: number;
  kind: 'allow' | 'disallow';
  value: string;
}

export interface VersionVerdict {
  allowed: boolean;
  /** The deciding line; null when none decided (no rule matched, a full allow or disallow). */
  rule: DecidingRule | null;
}

export interface JudgedCrawler {
  /** The catalogue token the request claimed. */
  token: string;
  /** False when its operator documents that robots.txt does not apply to its fetches. */
  boundByRobotsTxt: boolean;
}

export interface RequestToJudge<V extends TimelineVersion> {
  at: Date;
  /** The request target's path (with its query), as the log gave it. */
  path: string;
  crawler: JudgedCrawler;
  timeline: PolicyTimeline<V>;
  /** The verdict of one version for this request's URL and crawler. */
  verdictOf: (version: V) => VersionVerdict;
  /** The cache window, hours; `ROBOTS_TXT_CACHE_HOURS` by default. */
  cacheHours?: number;
}

export interface RequestJudgement<V> {
  judgement: Judgement;
  /** The version in force at the request's time; null when unjudged. */
  inForce: V | null;
  /** The line of the version in force that decided; null when allowed or none decided. */
  rule: DecidingRule | null;
  /** For `cache_window`: the most recent earlier version that allowed it; for `between_versions`: the next one. */
  allowedBy: V | null;
}

const HOUR_MS = 3_600_000;

/** Whether a request target is the site's robots.txt (R-1: always at the root, any query aside). */
export function isRobotsTxtPath(path: string): boolean {
  const end = path.search(/[?#]/);
  return (end < 0 ? path : path.slice(0, end)) === '/robots.txt';
}

export function judgeRequest<V extends TimelineVersion>(request: RequestToJudge<V>): RequestJudgement<V> {
  const inForce = request.timeline.inForceAt(request.at);
  if (inForce === null) return { judgement: 'unjudged', inForce: null, rule: null, allowedBy: null };
  if (isRobotsTxtPath(request.path)) return { judgement: 'robots_txt', inForce, rule: null, allowedBy: null };
  const verdict = request.verdictOf(inForce);
  if (verdict.allowed) return { judgement: 'allowed', inForce, rule: null, allowedBy: null };
  if (!request.crawler.boundByRobotsTxt) return { judgement: 'not_bound', inForce, rule: verdict.rule, allowedBy: null };
  const windowStart = new Date(request.at.getTime() - (request.cacheHours ?? ROBOTS_TXT_CACHE_HOURS) * HOUR_MS);
  // Newest first: the copy a crawler most plausibly still held.
  const earlier = request.timeline.inForceBetween(windowStart, request.at).filter((v) => v !== inForce).reverse();
  const allowedBy = earlier.find((v) => request.verdictOf(v).allowed) ?? null;
  if (allowedBy !== null) return { judgement: 'cache_window', inForce, rule: verdict.rule, allowedBy };
  // Weaker than the cache window, so asked after it: the change may not have shipped yet.
  const next = request.timeline.possiblyLiveAfter(request.at);
  if (next !== null && request.verdictOf(next).allowed) return { judgement: 'between_versions', inForce, rule: verdict.rule, allowedBy: next };
  return { judgement: 'violation', inForce, rule: verdict.rule, allowedBy: null };
}
