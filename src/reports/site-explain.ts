/**
 * A URL's verdict under a site's current effective policy (`robots-audit explain`), and why
 * that policy applies: the site's latest night (site_state) says which policy holds and which
 * rule of the spec put it there (R-10..R-15, D-3, D-4); under a `rules` policy the rules body
 * (this night's, or the last good copy under the 30-day fallback) decides, through the engine's
 * explain, for the group the crawler follows by its documented crawler rules (R-42, special-case
 * crawlers, Applebot: src/crawlers/followed-group.ts), exactly as the nightly verdicts are computed
 * (src/services/policy-evaluator.ts) and as `check` answers.
 */
import { explainAsCrawler, followedGroupText } from '../crawlers/followed-group.js';
import type { FollowedGroup } from '../crawlers/followed-group.js';
import { findCrawlerRules, parserOf, robotsTxtUseText } from '../crawlers/crawler-rules.js';
import type { CrawlerParser, RobotsTxtUse, SourcedFact } from '../crawlers/crawler-rules.js';
import { getPathParamsQuery } from '../robots/match.js';
import { isInScope } from '../robots/origin.js';
import { parseRobotsTxt } from '../robots/parse.js';
import { isValidUserAgentToObey } from '../robots/user-agent.js';
import { ParserVerdictReader } from '../crawlers/parser-verdicts.js';
import { statesUsage, usageOfExplained } from '../crawlers/usage-verdicts.js';
import { NO_PREFERENCES, NOT_CRAWLABLE_ANSWER } from '../robots/usage/index.js';
import type { UsageAnswer } from '../robots/usage/index.js';
import type { ParserVerdict } from '../crawlers/parser-verdicts.js';
import type { Queryable } from './site-errors.js';
import { SiteReportError } from './site-errors.js';
import { nightPolicyOf, POLICY_EVENTS } from './site-lookup.js';
import type { NightPolicy, NightPolicyRow, SiteRef } from './site-lookup.js';


/** The site's latest night and what follows from its streak. */
export interface SitePolicyState extends NightPolicy {
  /** Nights in a row without reaching the site. */
  failedNights: number;
  /** Policy `rules`: the night whose body applies (the latest, or the copy under D-3). */
  rulesNight: Date | null;
  rulesRunKey: string | null;
  rulesBodySha256: string | null;
  /** The first night of the stretch in which the outcome and policy have been what they are. */
  since: Date | null;
  sinceRunKey: string | null;
  /** A bot wall answers instead of the site since this night (outcome `challenged`): the policy is unverified since. */
  unverifiedSince: Date | null;
  /** Its robots.txt flaps between versions since this night (src/policy/flapping.ts). */
  flappingSince: Date | null;
}

export interface ExplainVerdict {
  allowed: boolean;
  /**
   * `policy`: full allow or full disallow, no rule is read; `rule`: a rule of the body decides;
   * `no_rule`: the group applies but none of its rules matches (allowed); `no_group`: no group
   * names the crawler and there is no `*` group (allowed, R-43).
   */
  decidedBy: 'policy' | 'rule' | 'no_rule' | 'no_group';
  rule: { line: number; kind: 'allow' | 'disallow'; value: string; pattern: string; viaIndexHtml: boolean } | null;
  /**
   * The group chosen (null when the policy decides) and its user-agent lines as written: of the
   * group that holds the deciding rule, else of every group merged for the crawler.
   */
  group: { kind: 'named' | 'global' | 'none'; userAgents: { value: string; line: number }[] } | null;
  /** The engine's sentence (src/robots/explain.ts); null when the policy decides. */
  engineReason: string | null;
}

export interface SiteExplanation {
  site: SiteRef;
  /** Canonical (D-5). */
  url: string;
  /** What the rules are matched with: path, params and query (T48). */
  path: string;
  userAgent: string;
  /** The token whose group the crawler follows (R-42: Googlebot-Image follows googlebot when it has no group). */
  followedAgent: string;
  /** The crawler rule that chose the group (null when the policy decides), and the rule in words with its source when it is a documented one. */
  followed: FollowedGroup | null;
  crawlerRule: string | null;
  /** What the crawler's operator says of its use of robots.txt (null: undocumented), and that in words when it is not simply "honours". */
  robotsTxt: SourcedFact<RobotsTxtUse> | null;
  robotsTxtNote: string | null;
  /** The parser it is known or assumed to use (`unknown`: nobody documents it); the verdict is Google's parser's. */
  parser: CrawlerParser;
  /**
   * The verdict under that parser (a profile, src/robots/profiles) from the same bytes, where it
   * differs from Google's; null where they agree, the parser is Google's or unknown, or the
   * policy decides (src/crawlers/parser-verdicts.ts).
   */
  parserVerdict: ParserVerdict | null;
  state: SitePolicyState;
  verdict: ExplainVerdict;
  /**
   * The usage preference of each purpose for this crawler and URL (issue 28, D-7..D-13): every
   * purpose `not-crawlable` when it may not fetch the URL (D-9), `unknown` under a full allow.
   */
  usage: UsageAnswer;
  /** Whether the rules body has Content-Signal or Content-Usage lines (the text shows the preferences only then). */
  usageStated: boolean;
}

interface StateRow extends NightPolicyRow {
  failed_nights: number;
  rules_run_at: Date | null;
  rules_run_key: string | null;
  rules_sha256: string | null;
  rules_content: Buffer | null;
  challenged_since: Date | null;
  flapping_since: Date | null;
}

/** The site's current state: its latest night and the rules body in force (one row through site_state's key). */
async function loadState(db: Queryable, site: SiteRef): Promise<{ state: SitePolicyState; rules: Uint8Array | null }> {
  const { rows } = await db.query<StateRow>(
    `select st.run_at, st.run_id, r.run_key, st.outcome::text as outcome, st.status, n.error_code, st.policy::text as policy, st.policy_reason,
            st.unreachable_since, st.failed_nights, rr.run_at as rules_run_at, rr.run_key as rules_run_key,
            encode(b.sha256, 'hex') as rules_sha256, b.content as rules_content, st.challenged_since, st.flapping_since
       from site_state st
       join audit_runs r on r.id = st.run_id
       left join snapshots n on n.site_id = st.site_id and n.run_at = st.run_at and n.run_id = st.run_id
       left join audit_runs rr on rr.id = st.rules_run_id
       left join bodies b on b.id = st.rules_body_id
      where st.site_id = $1`,
    [site.id],
  );
  const row = rows[0];
  if (!row) throw new SiteReportError('not_found', `no nights yet for ${site.origin} (robots-audit audit runs one)`);
  const since = await db.query<{ run_at: Date; run_key: string }>(
    `select r.run_at, r.run_key
       from snapshot_changes c join audit_runs r on r.id = c.run_id
      where c.site_id = $1 and c.kinds && $2::text[] and r.run_at <= $3
      order by r.run_at desc, r.id desc limit 1`,
    [site.id, POLICY_EVENTS, row.run_at],
  );
  return {
    state: {
      ...nightPolicyOf(row),
      failedNights: row.failed_nights,
      rulesNight: row.policy === 'rules' ? row.rules_run_at : null,
      rulesRunKey: row.policy === 'rules' ? row.rules_run_key : null,
      rulesBodySha256: row.policy === 'rules' ? row.rules_sha256 : null,
      since: since.rows[0]?.run_at ?? null,
      sinceRunKey: since.rows[0]?.run_key ?? null,
      unverifiedSince: row.challenged_since,
      flappingSince: row.flapping_since,
    },
    rules: row.policy === 'rules' && row.rules_content ? new Uint8Array(row.rules_content.buffer, row.rules_content.byteOffset, row.rules_content.byteLength) : null,
  };
}

/**
 * `url` is a canonical URL (D-5) of the site; `userAgent` a product token (T14). Throws
 * SiteReportError: `usage` for a token that is not one, `not_found` for a URL of another
 * origin (R-2..R-5) or a site with no night yet.
 */
/** Throws SiteReportError (usage) unless `userAgent` is a product token (T14), the only names a group can match. */
export function assertProductToken(userAgent: string): void {
  if (!isValidUserAgentToObey(userAgent)) {
    throw new SiteReportError('usage', `--ua "${userAgent}": not a user-agent product token (T14: letters, "-" and "_" only, e.g. Googlebot)`);
  }
}

export async function explainSiteUrl(db: Queryable, site: SiteRef, url: string, userAgent: string): Promise<SiteExplanation> {
  const { state, rules } = await loadExplainState(db, site, url, userAgent);
  return explainUnderState({ site, url, userAgent, state, rules });
}

/** What explaining a URL reads, checked first: the site's state and the rules body in force. */
export interface ExplainState {
  state: SitePolicyState;
  rules: Uint8Array | null;
}

/**
 * The reads of explainSiteUrl (one row through site_state's key, the stretch's start), after the
 * checks that need no read: throws SiteReportError as explainSiteUrl does.
 */
export async function loadExplainState(db: Queryable, site: SiteRef, url: string, userAgent: string): Promise<ExplainState> {
  assertProductToken(userAgent);
  if (!isInScope(site.origin, url)) throw new SiteReportError('not_found', `${url} is not on ${site.origin} (R-2..R-5: a robots.txt governs its own scheme, host and port)`);
  return loadState(db, site);
}

/**
 * The computation of explainSiteUrl on what loadExplainState read (pure: parse, the crawler's
 * group, the deciding rule, the verdict under its own parser). The dashboard runs it in a thread
 * with a deadline (src/web/page-compute.ts): a 500 KiB rules body may take a second.
 */
export function explainUnderState(input: ExplainState & { site: SiteRef; url: string; userAgent: string }): SiteExplanation {
  const { site, url, userAgent, state, rules } = input;
  if (state.policy !== 'rules') {
    return {
      site,
      url,
      path: getPathParamsQuery(url),
      userAgent,
      followedAgent: userAgent,
      followed: null,
      crawlerRule: null,
      ...crawlerFacts(userAgent),
      parserVerdict: null,
      state,
      verdict: { allowed: state.policy === 'allow_all', decidedBy: 'policy', rule: null, group: null, engineReason: null },
      // D-9: a full disallow leaves nothing crawlable; a full allow (no file) states nothing.
      usage: state.policy === 'allow_all' ? NO_PREFERENCES : NOT_CRAWLABLE_ANSWER,
      usageStated: false,
    };
  }
  // A rules policy always names its body; were it missing, it reads as an empty file (as the nightly evaluator does).
  const body = rules ?? new Uint8Array();
  const robots = parseRobotsTxt(body);
  const e = explainAsCrawler(robots, url, userAgent);
  const merged = e.group.groupIndexes.map((i) => robots.groups[i]).filter((g) => g !== undefined);
  const holder = e.rule ? merged.find((g) => g.rules.some((r) => r.line === e.rule!.line)) : undefined;
  const userAgents = (holder ? [holder] : merged).flatMap((g) => g.userAgents.map((u) => ({ value: u.value, line: u.line })));
  return {
    site,
    url,
    path: e.path,
    userAgent,
    followedAgent: e.followed.agent ?? userAgent,
    followed: e.followed,
    crawlerRule: followedGroupText(userAgent, e.followed),
    ...crawlerFacts(userAgent),
    parserVerdict: new ParserVerdictReader(body).differing(url, userAgent, e.allowed),
    state,
    verdict: {
      allowed: e.allowed,
      decidedBy: e.rule ? 'rule' : e.group.kind === 'none' ? 'no_group' : 'no_rule',
      rule: e.rule ? { line: e.rule.line, kind: e.rule.kind, value: e.rule.value, pattern: e.rule.pattern, viaIndexHtml: e.rule.viaIndexHtml === true } : null,
      group: { kind: e.group.kind, userAgents },
      engineReason: e.reason,
    },
    usage: usageOfExplained(robots, e),
    usageStated: statesUsage(robots),
  };
}

function crawlerFacts(userAgent: string): Pick<SiteExplanation, 'robotsTxt' | 'robotsTxtNote' | 'parser'> {
  return { robotsTxt: findCrawlerRules(userAgent)?.robotsTxt ?? null, robotsTxtNote: robotsTxtUseText(userAgent), parser: parserOf(userAgent) };
}
