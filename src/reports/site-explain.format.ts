/**
 * `robots-audit explain` output: the verdict, the deciding line and its group, and why the
 * site's effective policy is what it is, in the words of the spec rule behind it
 * (R-10..R-15, D-3, D-4). Pure.
 */
import { UNREACHABLE_FALLBACK_DAYS } from '../policy/effective-policy.js';
import type { SiteExplanation, SitePolicyState } from './site-explain.js';
import { formatNight, plural } from './site-text.js';
import { ruleLine } from '../robots/diff.js';
import { CHALLENGE_VENDOR_NAMES, type ChallengeVendor } from '../http/challenge.js';
import { parserVerdictText } from '../crawlers/parser-verdicts.js';
import { usageAnswerLines } from '../crawlers/usage-verdicts.js';

const night = (at: Date, runKey: string) => `${formatNight(at)} (run ${runKey})`;

/** What the site answered, in words: `503`, `a network error (ECONNREFUSED)`; `brief`: `network error ECONNREFUSED`. */
function answerText(s: SitePolicyState, brief = false): string {
  if (s.outcome === 'network_error') {
    if (brief) return `network error${s.errorCode ? ` ${s.errorCode}` : ''}`;
    return `a network error${s.errorCode ? ` (${s.errorCode})` : ''}`;
  }
  return s.status === null ? s.outcome : String(s.status);
}

/** `since <first night>, latest <night> (run <key>)`, or `on <night> (run <key>)` when the stretch is that night. */
function stretch(s: SitePolicyState, start: Date | null): string {
  const latest = night(s.night, s.runKey);
  return start && start.getTime() !== s.night.getTime() ? `since ${formatNight(start)}, latest ${latest}` : `on ${latest}`;
}

/** Why the policy applies: one sentence naming the rule, the nights and the copy in use. */
export function policyWhy(s: SitePolicyState): string {
  const failed = plural(s.failedNights, 'failed night');
  const later = `after ${UNREACHABLE_FALLBACK_DAYS} days the last good copy applies (D-3)`;
  switch (s.policyReason) {
    case 'R-10':
      return `robots.txt was fetched OK (${s.status ?? 200}) ${stretch(s, null)}: its rules apply`;
    case 'R-11':
      return `robots.txt redirected past the hop limit or in a loop${s.errorCode ? ` (${s.errorCode})` : ''} ${stretch(s, s.since)}: treated as a 404, full allow`;
    case 'R-12':
      return `robots.txt answers ${answerText(s)} ${stretch(s, s.since)}: no valid robots.txt, full allow`;
    case 'D-4':
      return `robots.txt answers ${answerText(s)} (rate limited) ${stretch(s, s.since)}: a 4xx, so full allow, reported apart`;
    case 'R-13':
      return `robots.txt answers 5xx (${answerText(s)}) ${stretch(s, s.unreachableSince)}, ${failed} in a row: full disallow; ${later}`;
    case 'R-15':
      return `robots.txt cannot be fetched, ${answerText(s)}, ${stretch(s, s.unreachableSince)}, ${failed} in a row: full disallow; ${later}`;
    case 'D-3': {
      const head = `unreachable (${answerText(s, true)}) ${stretch(s, s.unreachableSince)}, ${failed} in a row: more than ${UNREACHABLE_FALLBACK_DAYS} days (R-14)`;
      if (s.policy === 'rules' && s.rulesNight && s.rulesRunKey) return `${head}, so the copy fetched on ${night(s.rulesNight, s.rulesRunKey)} applies`;
      return `${head}, and no copy was ever fetched OK: full allow`;
    }
    case 'challenged': {
      const who = s.errorCode && s.errorCode in CHALLENGE_VENDOR_NAMES ? CHALLENGE_VENDOR_NAMES[s.errorCode as ChallengeVendor] : 'bot protection';
      const head = `${who} answers instead of the site (${answerText(s)}) ${stretch(s, s.unverifiedSince)}: what crawlers get there is unknown`;
      if (s.policy === 'rules' && s.rulesNight && s.rulesRunKey) return `${head}, so the rules fetched on ${night(s.rulesNight, s.rulesRunKey)} stand, unverified`;
      return `${head}, so the last known policy stands, unverified`;
    }
    default:
      return `policy reason ${s.policyReason} ${stretch(s, s.since)}`;
  }
}

/** The deciding line in words, or why there is none. */
export function decidingText(x: SiteExplanation): string {
  const v = x.verdict;
  if (v.decidedBy === 'policy') return `none: the policy decides (${x.state.policy === 'allow_all' ? 'full allow' : 'full disallow'}), no rule is read`;
  if (v.rule) {
    // C8: an Allow of .../index.html also allows the directory itself.
    const via = v.rule.viaIndexHtml ? `, read as ${v.rule.pattern} (index.html rule)` : '';
    return `line ${v.rule.line}: ${ruleLine(v.rule)}${via}`;
  }
  if (v.decidedBy === 'no_group') return 'none';
  return `none: no rule of the group matches ${x.path}, so it is allowed`;
}

/** The group the crawler follows, as written, or why none applies. */
export function groupText(x: SiteExplanation): string | null {
  const g = x.verdict.group;
  if (g === null) return null;
  if (g.kind === 'none' && x.followed?.rule === 'ignores-star') return `no group applies: allowed (no group names ${x.userAgent}, and ${x.crawlerRule})`;
  if (g.kind === 'none') return `no group matched: allowed (no group names ${x.followedAgent} and there is no * group, R-43)`;
  const lines = g.userAgents.map((u) => u.line);
  const written = `User-agent: ${[...new Set(g.userAgents.map((u) => u.value))].join(', ')} (line${lines.length === 1 ? '' : 's'} ${lines.join(', ')})`;
  return g.kind === 'global' ? `the * group: ${written}` : written;
}

export function formatExplanation(x: SiteExplanation): string {
  const out = [`${x.url} for ${x.userAgent}: ${x.verdict.allowed ? 'allowed' : 'disallowed'}`];
  out.push(`  deciding line: ${decidingText(x)}`);
  const group = groupText(x);
  if (group !== null) out.push(`  group: ${group}`);
  if (x.usageStated) {
    // Issue 28: beside the verdict, what the file states of each use of the content (D-7..D-13).
    const usage = usageAnswerLines(x.usage);
    if (usage.length === 1) out.push(`  ${usage[0]}`);
    else out.push('  usage:', ...usage.map((l) => `    ${l}`));
  }
  if (x.followed?.rule === 'further-token') out.push(`  ${x.crawlerRule}: the file has no group of its own for it (R-42)`);
  else if (x.followedAgent.toLowerCase() !== x.userAgent.toLowerCase()) out.push(`  ${x.userAgent} follows the ${x.followedAgent} group: the file has none of its own (R-42)`);
  if (x.robotsTxtNote !== null) out.push(`  robots.txt use: ${x.robotsTxtNote}`);
  if (x.parser.basis !== 'unknown' && x.parser.profile !== 'google') out.push(`  parser: ${x.parser.profile} (${x.parser.basis}, ${x.parser.source}); the verdict above is Google's parser's`);
  // Where the crawler's own parser reads the same bytes another way (src/crawlers/parser-verdicts.ts).
  if (x.parserVerdict !== null) out.push(`  under its parser: ${parserVerdictText(x.verdict.allowed, x.parserVerdict)}`);
  out.push(`  policy: ${x.state.policy} (${x.state.policyReason}): ${policyWhy(x.state)}`);
  if (x.state.flappingSince) {
    out.push(`  flapping since ${formatNight(x.state.flappingSince)}: its robots.txt alternates between versions; this is the verdict under the version of the latest night`);
  }
  return `${out.join('\n')}\n`;
}

/** The JSON of `explain --json` (stable: keys are only ever added). Times are ISO strings. */
export function explanationJson(x: SiteExplanation) {
  const s = x.state;
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  return {
    site: { id: x.site.id, origin: x.site.origin },
    url: x.url,
    path: x.path,
    userAgent: x.userAgent,
    followedAgent: x.followedAgent,
    followed: x.followed,
    robotsTxt: x.robotsTxt,
    parser: { profile: x.parser.profile, basis: x.parser.basis, source: x.parser.source },
    /** The verdict under that parser where it differs from Google's ("allowed"); null where it agrees or there is none. */
    parserVerdict: x.parserVerdict && { profile: x.parserVerdict.profile, basis: x.parserVerdict.basis, source: x.parserVerdict.source, allowed: x.parserVerdict.allowed, line: x.parserVerdict.line },
    allowed: x.verdict.allowed,
    decidedBy: x.verdict.decidedBy,
    rule: x.verdict.rule,
    group: x.verdict.group,
    /** Per purpose: {preference: allowed | refused | unknown | not-crawlable, line, mechanism, label, definedBy} (issue 28). */
    usage: x.usage,
    policy: {
      kind: s.policy,
      reason: s.policyReason,
      why: policyWhy(s),
      night: iso(s.night),
      runKey: s.runKey,
      outcome: s.outcome,
      status: s.status,
      errorCode: s.errorCode,
      since: iso(s.since),
      unreachableSince: iso(s.unreachableSince),
      failedNights: s.failedNights,
      rulesNight: iso(s.rulesNight),
      rulesRunKey: s.rulesRunKey,
      rulesSha256: s.rulesBodySha256,
      unverifiedSince: iso(s.unverifiedSince),
      flappingSince: iso(s.flappingSince),
    },
  };
}
