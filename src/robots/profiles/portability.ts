/**
 * Portability (issue 19, item 4): the rules of a robots.txt that the parser profiles read
 * differently from Google's parser, each with an example URL and the verdict under every
 * profile, e.g. "`Disallow: /*.pdf$`: python-urllib does not read wildcards, so /x.pdf stays
 * allowed". Pure: no I/O. The verdicts are the profiles' own (exact); the reason given is a
 * reading of the rule and the file, chosen from what the profiles are known to do differently.
 */
import { parseRobotsTxt } from '../parse.js';
import { decodeUtf8Strict } from './python-str.js';
import { PARSER_PROFILES, PARSER_PROFILE_INFO, parseForProfile } from './index.js';
import type { ParserProfileName, ProfileParsed } from './index.js';

/** The profiles compared with Google's parser: the exact ones (an assumed profile's verdict is not shown as a finding). */
export type PortabilityProfile = 'python-urllib' | 'scrapy-protego' | 'node-robots-parser';
export const PORTABILITY_PROFILES: readonly PortabilityProfile[] = PARSER_PROFILES.filter(
  (p): p is PortabilityProfile => p !== 'google' && PARSER_PROFILE_INFO[p].basis === 'exact',
);
/** Findings kept per file; the rest are counted, not listed. */
export const PORTABILITY_MAX_FINDINGS = 50;
/**
 * (rule, agent) pairs examined per file at most, so a 500 KiB file with 27,000 rules costs a
 * bounded number of checks (each profile check is linear in the rules for python-urllib).
 */
export const PORTABILITY_MAX_PAIRS = 400;
/** Stands for "a crawler no group names" when the `*` group is examined. */
export const UNNAMED_CRAWLER_TOKEN = 'ExampleBot';

export type ProfileAnswer = boolean | 'error';

export interface PortabilityFinding {
  /** Line of the rule (1-based, as Google counts). */
  line: number;
  /** The rule as written, e.g. `Disallow: /*.pdf$`. */
  rule: string;
  /** The product token asked about: the group's agent, or UNNAMED_CRAWLER_TOKEN for `*`. */
  agent: string;
  /** Whether the group is the `*` group. */
  starGroup: boolean;
  /** Example path the rule is meant to decide. */
  path: string;
  /** true: allowed; 'error': the library raises on this file or URL. */
  verdicts: Record<'google' | PortabilityProfile, ProfileAnswer>;
  /** The profiles whose verdict differs from google's. */
  differing: PortabilityProfile[];
  /** In words, e.g. "python-urllib does not read wildcards, so /x.pdf stays allowed". */
  reason: string;
}

export interface PortabilityResult {
  findings: PortabilityFinding[];
  /** Findings found in all, including those past PORTABILITY_MAX_FINDINGS. */
  total: number;
  /** False when PORTABILITY_MAX_PAIRS stopped the examination early. */
  complete: boolean;
}

/** The path a rule is meant to decide: wildcards filled in, the end anchor dropped. */
export function examplePath(value: string): string {
  const filled = value.replace(/\$$/, '').replace(/\*+/g, 'x');
  return filled.startsWith('/') ? filled : `/${filled}`;
}

function verdictWord(answer: ProfileAnswer): string {
  return answer === 'error' ? 'without a verdict (the library raises)' : answer ? 'allowed' : 'disallowed';
}

export function portabilityOf(body: Uint8Array, origin = 'https://example.com'): PortabilityResult {
  const google = parseRobotsTxt(body);
  const parsed = new Map<ParserProfileName, ProfileParsed | 'error'>();
  for (const p of PORTABILITY_PROFILES) {
    try {
      parsed.set(p, parseForProfile(p, body));
    } catch {
      parsed.set(p, 'error');
    }
  }
  const lines = new TextDecoder('utf-8').decode(body).split(/\r\n|\r|\n/);
  const hasBom = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
  const notUtf8 = decodeUtf8Strict(body) === undefined;

  const findings: PortabilityFinding[] = [];
  let total = 0;
  let pairs = 0;
  let complete = true;
  const seen = new Set<string>();
  outer: for (const [gi, group] of google.groups.entries()) {
    for (const ua of group.userAgents) {
      const starGroup = ua.token === '*';
      const agent = starGroup ? UNNAMED_CRAWLER_TOKEN : ua.value;
      if (!agent) continue;
      for (const rule of group.rules) {
        if (pairs >= PORTABILITY_MAX_PAIRS) {
          complete = false;
          break outer;
        }
        pairs += 1;
        const path = examplePath(rule.value);
        const key = `${agent}\u0000${path}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const url = requestUrl(origin, path);
        const verdicts = { google: google.check(url, agent).allowed } as Record<'google' | PortabilityProfile, ProfileAnswer>;
        for (const p of PORTABILITY_PROFILES) {
          const profile = parsed.get(p)!;
          if (profile === 'error') {
            verdicts[p] = 'error';
            continue;
          }
          try {
            verdicts[p] = profile.check(url, agent).allowed;
          } catch {
            verdicts[p] = 'error';
          }
        }
        const differing = PORTABILITY_PROFILES.filter((p) => verdicts[p] !== verdicts.google);
        if (differing.length === 0) continue;
        total += 1;
        if (findings.length >= PORTABILITY_MAX_FINDINGS) continue;
        const ctx = { rule: rule.value, kind: rule.kind, ruleLine: rule.line, groupLine: group.userAgents[0]!.line, firstGroup: gi === 0, hasBom, notUtf8, lines };
        const reason = differing.map((p) => `${explain(p, ctx)}, so ${path} stays ${verdictWord(verdicts[p])}`).join('; ');
        const kind = rule.kind === 'allow' ? 'Allow' : 'Disallow';
        findings.push({ line: rule.line, rule: `${kind}: ${rule.value}`, agent, starGroup, path, verdicts, differing, reason });
      }
    }
  }
  return { findings, total, complete };
}

/**
 * The URL a crawler would request for the path: WHATWG-serialised, so non-ASCII and spaces are
 * percent-encoded as on the wire (comparing a raw path would make Google's parser, which
 * compares bytes as given, look different from libraries that normalise).
 */
function requestUrl(origin: string, path: string): string {
  try {
    return new URL(`${origin}${path}`).href;
  } catch {
    return `${origin}${path}`;
  }
}

interface ExplainContext {
  rule: string;
  kind: 'allow' | 'disallow';
  ruleLine: number;
  groupLine: number;
  firstGroup: boolean;
  hasBom: boolean;
  notUtf8: boolean;
  lines: string[];
}

/** Why a profile reads the rule differently: the first known cause that fits. */
function explain(profile: PortabilityProfile, c: ExplainContext): string {
  const blankInGroup = c.lines.slice(c.groupLine, c.ruleLine - 1).some((l) => l.trim() === '');
  if (profile === 'scrapy-protego' && c.notUtf8) return 'Scrapy reads a file that is not valid UTF-8 as empty';
  if (profile !== 'node-robots-parser' && c.hasBom && c.firstGroup) return `a byte-order mark hides the first line from ${profile}`;
  if (profile === 'python-urllib') {
    if (/[*$]/.test(c.rule)) return 'python-urllib does not read wildcards';
    if (blankInGroup) return 'python-urllib ends a group at an empty line';
    if (c.kind === 'allow') return 'python-urllib lets the first matching rule in file order win, not the longest';
    return 'python-urllib takes the first group whose name is part of the crawler\'s name, and the first matching rule in file order';
  }
  if (profile === 'scrapy-protego') return 'scrapy-protego picks the group whose name is the longest part of the crawler\'s name, and decodes percent-encoding before matching';
  return 'node-robots-parser re-encodes the rule (encodeURI) and groups by exact name';
}
