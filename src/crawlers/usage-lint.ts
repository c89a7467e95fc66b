/**
 * The lint finding that needs the crawler catalogue (D-14, `usage-contradicts-crawl`): a usage
 * preference about AI training that the crawl rules of the same file contradict, for the
 * catalogued AI-training crawlers (category `ai-training`, catalogue.json):
 * (a) a group states AI training allowed (`ai-train=yes`, `train-ai=y`) for a path that an
 *     AI-training crawler following that group may not fetch: it never reads it (D-9);
 * (b) the `*` group refuses AI training at the site root while AI-training crawlers may crawl the
 *     root, under `*` (the preference is all that asks them not to train) or under a group of
 *     their own (which does not read the preferences of `*`, D-7).
 * The engine's linter (src/robots/lint.ts) knows no crawler; callers add these findings to its
 * (`lintWithCrawlers`). Pure.
 *
 * Bound: (b) is one group choice and one match at `/` per AI-training crawler of the catalogue;
 * (a) one match per (distinct group set followed by those crawlers, line stating AI training
 * allowed in those groups), at most MAX_USAGE_CONTRADICTION_CHECKS matches in all.
 */
import { decideUsage, GLOBAL_AGENT, usageLineText, usageLinesOf, writtenValue } from '../robots/index.js';
import type { Diagnostic, RobotsTxt, UsageLine } from '../robots/index.js';
import type { LintedBody } from '../robots/lint.js';
import { LINT_CODES } from '../robots/lint-codes.js';
import { isAllowedBy } from '../robots/match.js';
import { quote } from '../robots/lint-text.js';
import type { SelectedGroup } from '../robots/selected-group.js';
import { crawlersIn } from './catalogue.js';
import { AI_TRAINING_CATEGORY } from './categories.js';
import { followedGroup } from './followed-group.js';

/** Path checks of (a) at most: a group set of the AI-training crawlers x a line stating AI training allowed. */
export const MAX_USAGE_CONTRADICTION_CHECKS = 10_000;

/** Crawlers named in one finding; the rest are counted. */
const CRAWLERS_NAMED = 5;

const CODE = 'usage-contradicts-crawl';

/** Lint's findings on a body with the crawler-aware one added, in line order (stable within a line). */
export function lintWithCrawlers(linted: Pick<LintedBody, 'diagnostics' | 'parsed'>): Diagnostic[] {
  const more = usageContradictions(linted.parsed);
  if (more.length === 0) return linted.diagnostics;
  return [...linted.diagnostics, ...more].sort((a, b) => a.line - b.line);
}

interface Follower {
  token: string;
  selected: SelectedGroup;
}

/** The `usage-contradicts-crawl` findings of a parsed file (none without usage lines). */
export function usageContradictions(robots: RobotsTxt): Diagnostic[] {
  if (!robots.hasUsageLines) return [];
  const lines = usageLinesOf(robots);
  if (lines.byGroup.size === 0) return [];
  const followers: Follower[] = [];
  for (const crawler of crawlersIn([AI_TRAINING_CATEGORY])) {
    const followed = followedGroup(robots, crawler.token);
    // A crawler that follows no group (it ignores `*`, or there is none) reads no preference.
    const selected = followed.agent === null ? null : robots.select(followed.agent);
    if (selected !== null) followers.push({ token: crawler.token, selected });
  }
  const out = [...allowedWhereDisallowed(robots, followers), ...refusedButCrawled(robots, followers)];
  return out.sort((a, b) => a.line - b.line);
}

const finding = (line: number, message: string): Diagnostic => ({ line, severity: LINT_CODES[CODE].severity, code: CODE, message });

/** The shortest path a line's pattern applies to: its `*` matching nothing, its final `$` dropped. */
function shortestPathOf(pattern: string): string {
  const path = pattern.replace(/\*/g, '');
  return path.endsWith('$') ? path.slice(0, -1) : path;
}

/** (a): an AI-training allowance in a group for a path that the group's AI-training crawlers may not fetch. */
function allowedWhereDisallowed(robots: RobotsTxt, followers: readonly Follower[]): Diagnostic[] {
  const { byGroup } = usageLinesOf(robots);
  // Crawlers that follow the same groups share their rules: one check per group set and line.
  const bySet = new Map<string, Follower[]>();
  for (const f of followers) {
    const key = f.selected.groupIndexes.join(',');
    const list = bySet.get(key);
    if (list === undefined) bySet.set(key, [f]);
    else list.push(f);
  }
  const refused = new Map<UsageLine, { tokens: string[]; ruleLine: number }>();
  let budget = MAX_USAGE_CONTRADICTION_CHECKS;
  let stoppedAt: number | null = null;
  sets: for (const set of bySet.values()) {
    const { selected } = set[0] as Follower;
    for (const index of selected.groupIndexes) {
      for (const { line } of byGroup.get(index) ?? []) {
        if (line.stated.get('ai-train')?.allowed !== true) continue;
        if (budget-- === 0) {
          stoppedAt = line.line;
          break sets;
        }
        const rule = selected.decide(shortestPathOf(line.pattern));
        if (isAllowedBy(rule)) continue;
        let seen = refused.get(line);
        if (seen === undefined) refused.set(line, (seen = { tokens: [], ruleLine: (rule as NonNullable<typeof rule>).rule.line }));
        seen.tokens.push(...set.map((f) => f.token));
      }
    }
  }
  const out: Diagnostic[] = [];
  for (const [line, { tokens, ruleLine }] of refused) {
    const label = line.stated.get('ai-train')?.label ?? 'ai-train';
    const one = tokens.length === 1;
    const path = quote(line.path ?? '/');
    out.push(
      finding(
        line.line,
        `${usageLineText(line)} allows AI training (${quote(label)}=${writtenValue(line.mechanism, true)}) for "${path}", but ${crawlerList(tokens)}, ` +
          `${one ? 'an AI-training crawler that follows' : 'AI-training crawlers that follow'} this group, may not fetch it (line ${ruleLine}): ` +
          `a preference for a URL a crawler may not fetch is never read (D-9, D-14). Allow the crawl there, or drop the preference.`,
      ),
    );
  }
  if (stoppedAt !== null) {
    out.push(
      finding(
        stoppedAt,
        `The check of AI-training allowances against the crawl rules stopped here: it makes at most ${MAX_USAGE_CONTRADICTION_CHECKS} checks, and this file has more. Allowances further down may contradict the crawl rules too.`,
      ),
    );
  }
  return out;
}

/** (b): `*` refuses AI training at the root while AI-training crawlers may crawl it. */
function refusedButCrawled(robots: RobotsTxt, followers: readonly Follower[]): Diagnostic[] {
  const star = robots.select(GLOBAL_AGENT);
  // D-9: where `*` may not fetch the root, its preference there is not read.
  if (star === null || star.kind !== 'global' || !isAllowedBy(star.decide('/'))) return [];
  const trainAtRoot = decideUsage(robots, star.groupIndexes, '/')['ai-train'];
  if (trainAtRoot.preference !== 'refused' || trainAtRoot.line === null) return [];
  const underStar: string[] = [];
  const ownGroup: string[] = [];
  for (const f of followers) {
    if (!isAllowedBy(f.selected.decide('/'))) continue;
    (f.selected.kind === 'global' ? underStar : ownGroup).push(f.token);
  }
  if (underStar.length + ownGroup.length === 0) return [];
  const deciding = usageLinesOf(robots).all.find((l) => l.line === trainAtRoot.line) as UsageLine;
  const parts: string[] = [];
  if (underStar.length > 0) {
    parts.push(`${crawlerList(underStar)} under "*": the preference asks ${underStar.length === 1 ? 'it' : 'them'} not to train, and does not stop the crawl`);
  }
  if (ownGroup.length > 0) {
    parts.push(`${crawlerList(ownGroup)} under ${ownGroup.length === 1 ? 'a group of its' : 'groups of their'} own, which ${ownGroup.length === 1 ? 'does' : 'do'} not read the preferences of "*" (D-7)`);
  }
  return [
    finding(
      deciding.line,
      `${usageLineText(deciding)} refuses AI training (${quote(trainAtRoot.label ?? 'ai-train')}=${writtenValue(deciding.mechanism, false)}) for every crawler without a group of its own, ` +
        `yet catalogued AI-training crawlers may crawl "/": ${parts.join('; ')} (D-14). Disallow them if they should not fetch the site.`,
    ),
  ];
}

function crawlerList(tokens: readonly string[]): string {
  if (tokens.length === 1) return tokens[0] as string;
  if (tokens.length > CRAWLERS_NAMED) return `${tokens.slice(0, CRAWLERS_NAMED).join(', ')} and ${tokens.length - CRAWLERS_NAMED} more`;
  return `${tokens.slice(0, -1).join(', ')} and ${tokens[tokens.length - 1]}`;
}
