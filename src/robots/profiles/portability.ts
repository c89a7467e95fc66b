/**
 * Portability (issue 19, item 4): the rules of a robots.txt that the parser profiles read
 * differently from Google's parser, each with an example URL and the verdict under every
 * profile, e.g. "`Disallow: /*.pdf$`: python-urllib does not read wildcards, so /x.pdf stays
 * allowed". Pure: no I/O. The verdicts are the profiles' own (exact); the reason given is a
 * reading of the rule and the file, chosen from what the profiles are known to do differently.
 */
import { parseRobotsTxt } from '../parse.js';
import type { RobotsTxt } from '../parse.js';
import { decodeUtf8Strict } from './python-str.js';
import { PARSER_PROFILES, PARSER_PROFILE_INFO, parseForProfile } from './index.js';
import type { ProfileParsed } from './index.js';

/** The profiles compared with Google's parser: the exact ones (an assumed profile's verdict is not shown as a finding). */
export type PortabilityProfile = 'python-urllib' | 'python-urllib-rfc9309' | 'scrapy-protego' | 'scrapy-protego-0.7' | 'node-robots-parser';
export const PORTABILITY_PROFILES: readonly PortabilityProfile[] = PARSER_PROFILES.filter(
  (p): p is PortabilityProfile => p !== 'google' && PARSER_PROFILE_INFO[p].basis === 'exact',
);
/**
 * The version of the analysis (issue 26): a body's findings are computed once and kept
 * (`bodies.portability`, with the version they were made with), so bump this in the commit that
 * changes what portabilityOf finds for some file (a profile, a bound, a reason's words): bodies
 * analysed by an older version are analysed again after the next run, as ENGINE_VERSION makes the
 * next night evaluate verdicts again. A unit test pins the findings of a set of files and says when.
 */
/**
 * 3: python-urllib-rfc9309 (CPython's RFC 9309 robotparser) joins the exact profiles compared.
 * 4: python-urllib-rfc9309 is CPython 3.13.18's module (an empty query dropped, a malformed URL an
 * error), and scrapy-protego-0.7 (Protego 0.7.0 with Scrapy 2.14) joins them.
 */
export const PORTABILITY_VERSION = 4;
/** Findings (rows) kept per file; the rest are counted, not listed. */
export const PORTABILITY_MAX_FINDINGS = 50;
/** Distinct (crawler, example path) questions asked per file at most. */
export const PORTABILITY_MAX_CHECKS = 2_000;
/**
 * Rules compared per file at most, summed over the questions and the profiles: a question costs
 * each profile up to one comparison per rule of the file, so a 500 KiB file of 12,000 rules is
 * asked about eight paths, an ordinary one about every rule (issue 26: every cost bounded by
 * the body's size, not its shape; about 0.15 s of checks at most on the benchmark machine, so
 * that `lint` answers a 500 KiB file in under a second). 70 of the 3,000 corpus files (those
 * past ~300 rules) are sampled rather than examined whole (55 at 600,000, version 1).
 */
export const PORTABILITY_MAX_RULE_COMPARISONS = 400_000;
/** Crawlers of one group asked about each of its rules; the others are counted as not checked. */
export const PORTABILITY_MAX_AGENTS_PER_RULE = 20;
/** Stands for "a crawler no group names" when the `*` group is examined. */
export const UNNAMED_CRAWLER_TOKEN = 'ExampleBot';
/** How a finding names the crawlers without a group of their own (the `*` group). */
export const ANY_CRAWLER = '*';

export type ProfileAnswer = boolean | 'error';
export type PortabilityVerdicts = Record<'google' | PortabilityProfile, ProfileAnswer>;

/**
 * A rule that some profile reads differently from Google's parser, with the crawlers it concerns
 * (issue 26: one finding per rule, not per crawler; a rule whose crawlers get different verdicts
 * gives one finding per set of verdicts).
 */
export interface PortabilityFinding {
  /** Line of the rule (1-based, as Google counts). */
  line: number;
  /** The rule as written, e.g. `Disallow: /*.pdf$`. */
  rule: string;
  /** The crawlers asked about that get these verdicts: product tokens of the rule's group, `*` for any crawler without a group. */
  agents: string[];
  /** Crawlers of the rule's group not asked about (past PORTABILITY_MAX_AGENTS_PER_RULE). */
  agentsNotChecked: number;
  /** Example path the rule is meant to decide. */
  path: string;
  /** true: allowed; 'error': the library raises on this file or URL. */
  verdicts: PortabilityVerdicts;
  /** The profiles whose verdict differs from google's. */
  differing: PortabilityProfile[];
  /** In words, e.g. "python-urllib does not read wildcards, so /x.pdf stays allowed". */
  reason: string;
}

export interface PortabilityResult {
  findings: PortabilityFinding[];
  /** Findings found in all, including those past PORTABILITY_MAX_FINDINGS. */
  total: number;
  /** False when a bound (questions, rule comparisons) stopped the examination early. */
  complete: boolean;
  /** Rules examined, of `rules` in the file's groups. */
  rulesExamined: number;
  rules: number;
}

/**
 * A body's analysis as kept (`bodies.portability`): its findings, or why there are none to show
 * (the analysis ran past the time or memory it is given; src/services/portability-analysis.service.ts).
 */
export type StoredPortability = ({ outcome: 'analysed' } & PortabilityResult) | { outcome: 'failed'; reason: string };

/** The path a rule is meant to decide: wildcards filled in, the end anchor dropped. */
export function examplePath(value: string): string {
  const filled = value.replace(/\$$/, '').replace(/\*+/g, 'x');
  return filled.startsWith('/') ? filled : `/${filled}`;
}

function verdictWord(answer: ProfileAnswer): string {
  return answer === 'error' ? 'without a verdict (the library raises)' : answer ? 'allowed' : 'disallowed';
}

interface Readers {
  google: ReturnType<typeof parseRobotsTxt>;
  profiles: Map<PortabilityProfile, ProfileParsed | 'error'>;
}

function verdictsOf(readers: Readers, url: string, token: string): PortabilityVerdicts {
  const verdicts = { google: readers.google.check(url, token).allowed } as PortabilityVerdicts;
  for (const p of PORTABILITY_PROFILES) {
    const profile = readers.profiles.get(p)!;
    if (profile === 'error') {
      verdicts[p] = 'error';
      continue;
    }
    try {
      verdicts[p] = profile.check(url, token).allowed;
    } catch {
      verdicts[p] = 'error';
    }
  }
  return verdicts;
}

/**
 * The rules of `body` that a profile reads differently from Google's parser. Each rule of each
 * group is asked about once per crawler its group names (the `*` group as a crawler no group
 * names), at its example path; the crawlers that get the same verdicts share one finding. Bounded
 * by PORTABILITY_MAX_CHECKS and PORTABILITY_MAX_RULE_COMPARISONS whatever the file's shape:
 * `complete` says whether every rule was examined.
 */
export function portabilityOf(body: Uint8Array, origin = 'https://example.com', parsed?: RobotsTxt): PortabilityResult {
  // Google's reading of the body: the caller's when it has it (lint does), else parsed here.
  const google = parsed ?? parseRobotsTxt(body);
  const profiles = new Map<PortabilityProfile, ProfileParsed | 'error'>();
  for (const p of PORTABILITY_PROFILES) {
    try {
      profiles.set(p, parseForProfile(p, body));
    } catch {
      profiles.set(p, 'error');
    }
  }
  const readers: Readers = { google, profiles };
  const ruleCount = google.groups.reduce((n, g) => n + g.rules.length, 0);
  // Each question costs every profile up to a comparison per rule (and Google one more).
  const questionCost = Math.max(1, ruleCount) * (PORTABILITY_PROFILES.length + 1);
  const maxQuestions = Math.min(PORTABILITY_MAX_CHECKS, Math.max(1, Math.floor(PORTABILITY_MAX_RULE_COMPARISONS / questionCost)));
  let lines: string[] | null = null;
  const hasBom = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
  const notUtf8 = decodeUtf8Strict(body) === undefined;

  const findings: PortabilityFinding[] = [];
  let total = 0;
  let questions = 0;
  let rulesExamined = 0;
  let complete = true;
  const asked = new Set<string>();
  outer: for (const [gi, group] of google.groups.entries()) {
    const agents = [...new Set(group.userAgents.map((ua) => (ua.token === '*' ? ANY_CRAWLER : ua.value)).filter((a) => a !== ''))];
    const askedAgents = agents.slice(0, PORTABILITY_MAX_AGENTS_PER_RULE);
    for (const rule of group.rules) {
      const path = examplePath(rule.value);
      let url: string | null = null;
      const byVerdicts = new Map<string, { agents: string[]; verdicts: PortabilityVerdicts }>();
      for (const agent of askedAgents) {
        const key = `${agent}\u0000${path}`;
        // A path already asked for this crawler was reported with the first rule that asked it.
        if (asked.has(key)) continue;
        if (questions >= maxQuestions) {
          complete = false;
          break outer;
        }
        asked.add(key);
        questions += 1;
        url ??= requestUrl(origin, path);
        const verdicts = verdictsOf(readers, url, agent === ANY_CRAWLER ? UNNAMED_CRAWLER_TOKEN : agent);
        if (PORTABILITY_PROFILES.every((p) => verdicts[p] === verdicts.google)) continue;
        const signature = JSON.stringify(verdicts);
        const same = byVerdicts.get(signature);
        if (same) same.agents.push(agent);
        else byVerdicts.set(signature, { agents: [agent], verdicts });
      }
      rulesExamined += 1;
      for (const { agents: concerned, verdicts } of byVerdicts.values()) {
        total += 1;
        if (findings.length >= PORTABILITY_MAX_FINDINGS) continue;
        lines ??= new TextDecoder('utf-8').decode(body).split(/\r\n|\r|\n/);
        const differing = PORTABILITY_PROFILES.filter((p) => verdicts[p] !== verdicts.google);
        const ctx = { rule: rule.value, kind: rule.kind, ruleLine: rule.line, groupLine: group.userAgents[0]!.line, firstGroup: gi === 0, hasBom, notUtf8, lines };
        const reason = differing.map((p) => `${explain(p, ctx)}, so ${path} stays ${verdictWord(verdicts[p])}`).join('; ');
        const kind = rule.kind === 'allow' ? 'Allow' : 'Disallow';
        findings.push({ line: rule.line, rule: `${kind}: ${rule.value}`, agents: concerned, agentsNotChecked: agents.length - askedAgents.length, path, verdicts, differing, reason });
      }
    }
  }
  return { findings, total, complete, rulesExamined, rules: ruleCount };
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
  if (profile !== 'node-robots-parser' && profile !== 'scrapy-protego-0.7' && c.hasBom && c.firstGroup) return `a byte-order mark hides the first line from ${profile}`;
  if (profile === 'python-urllib') {
    if (/[*$]/.test(c.rule)) return 'python-urllib does not read wildcards';
    if (blankInGroup) return 'python-urllib ends a group at an empty line';
    if (c.kind === 'allow') return 'python-urllib lets the first matching rule in file order win, not the longest';
    return 'python-urllib takes the first group whose name is part of the crawler\'s name, and the first matching rule in file order';
  }
  if (profile === 'python-urllib-rfc9309') {
    if (c.rule.includes('$') && !c.rule.endsWith('$')) return 'python-urllib-rfc9309 drops a rule with a $ before its end';
    if (/\*/.test(c.rule)) return 'python-urllib-rfc9309 counts a wildcard rule\'s match by how far it reaches in the URL, not by the rule\'s length';
    return 'python-urllib-rfc9309 takes the first group whose name is part of the crawler\'s name when none equals it, and compares percent-encoding re-quoted';
  }
  if (profile === 'scrapy-protego-0.7') {
    if (c.rule.includes('$') && !c.rule.endsWith('$')) return 'scrapy-protego-0.7 also reads the rule with its $ as a literal character';
    return 'scrapy-protego-0.7 picks the group whose name is the longest part of the crawler\'s name at a word boundary, and decodes percent-encoding before matching';
  }
  if (profile === 'scrapy-protego') return 'scrapy-protego picks the group whose name is the longest part of the crawler\'s name, and decodes percent-encoding before matching';
  return 'node-robots-parser re-encodes the rule (encodeURI) and groups by exact name';
}
