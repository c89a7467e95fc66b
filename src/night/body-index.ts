/**
 * What SQL reports need to know of a body without parsing it: its groups' user-agent values and
 * its rules flattened, whether each catalogued crawler may fetch the root under it, and
 * its Content-Signal lines. Pure: computed once per distinct body, when it is first stored.
 */
import { followedGroup } from '../crawlers/followed-group.js';
import type { RobotsTxt } from '../robots/index.js';

export interface BodyGroupRow {
  groupNo: number;
  /** The group's user-agent values as written: once per group, not once per rule (habit 12). */
  userAgents: string[];
}

export interface BodyRuleRow {
  line: number;
  groupNo: number;
  kind: 'allow' | 'disallow';
  value: string;
  pattern: string;
}

export interface BodyAccessRow {
  /** Lower-cased token, or `*`. */
  token: string;
  allowed: boolean;
  ruleLine: number | null;
}

export interface BodyIndex {
  groups: BodyGroupRow[];
  rules: BodyRuleRow[];
  /** The `*` row, then each crawler whose answer at the root differs from it. */
  access: BodyAccessRow[];
  contentSignals: string[];
}

/** The root, as every crawler is asked about it. */
const ROOT = 'https://robots-audit.invalid/';

export function indexBody(robots: RobotsTxt, catalogueTokens: readonly string[]): BodyIndex {
  const groups = robots.groups.map((group, groupNo) => ({ groupNo, userAgents: group.userAgents.map((u) => u.value) }));
  const rules = robots.groups.flatMap((group, groupNo) => group.rules.map((r) => ({ line: r.line, groupNo, kind: r.kind, value: r.value, pattern: r.pattern })));
  // As the crawler decides: its most specific group (R-40..R-44), then the longest match (D-2).
  const rootFor = (agent: string) => {
    const e = robots.explain(ROOT, agent);
    return { allowed: e.allowed, ruleLine: e.rule?.line ?? null };
  };
  const star = rootFor('*');
  const access: BodyAccessRow[] = [{ token: '*', ...star }];
  for (const token of new Set(catalogueTokens.map((t) => t.toLowerCase()))) {
    if (token === '*') continue;
    // A crawler that follows `*`, or no group when there is none, answers as the
    // `*` row. Only the few a file names, or whose crawler rules choose otherwise (a further
    // token's group, R-42; no group when it ignores `*`), are asked (a new body is indexed on the
    // nightly path).
    const followed = followedGroup(robots, token);
    if (followed.rule === 'star' || followed.rule === 'no-group') continue;
    const own = followed.agent === null ? { allowed: true, ruleLine: null } : rootFor(followed.agent);
    if (own.allowed !== star.allowed || own.ruleLine !== star.ruleLine) access.push({ token, ...own });
  }
  const contentSignals = robots.records.filter((r) => r.key === 'content-signal').map((r) => r.value);
  return { groups, rules, access, contentSignals };
}
