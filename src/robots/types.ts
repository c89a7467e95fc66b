/**
 * The public shapes of the robots.txt engine. Pure data: no I/O, no clock.
 * Spec references: ../../docs/spec.md mirrors `robots-txt.md` (R-n, D-n) and
 * `google-behaviors.md` (T-n, R-n of the parse report, C-n).
 */

export type RuleKind = 'allow' | 'disallow';

/** One allow/disallow line as the matcher uses it. */
export interface Rule {
  kind: RuleKind;
  /** The pattern as matched: comment cut, trimmed, non-ASCII and `%xx` normalised (T28, T49). */
  pattern: string;
  /** The value as written in the file (after comment cut and trimming), for people. */
  value: string;
  /** 1-based line number (R1). */
  line: number;
}

/** One `user-agent` line of a group. */
export interface UserAgentLine {
  /** The value as written (trimmed). */
  value: string;
  /**
   * What Google reads from it: `*` for the global group (C9), otherwise the longest prefix of
   * `[A-Za-z_-]` characters, lower-cased (T16, C10, C12). May be empty (C11).
   */
  token: string;
  line: number;
}

/** A group as written in the file: consecutive user-agent lines and the rules that follow. */
export interface Group {
  userAgents: UserAgentLine[];
  rules: Rule[];
}

/** A line with a key that is neither a group member nor a sitemap: crawl-delay, host, .... */
export interface OtherRecord {
  /** Lower-cased key as written (`crawl-delay`, `unicorns`). */
  key: string;
  value: string;
  line: number;
  /** True for keys Google recognises but does not use (R6): crawl-delay, host, clean-param, ... */
  knownUnsupported: boolean;
  /** Index into `groups` of the group this line stands in, or null before the first user-agent. */
  groupIndex: number | null;
}

export interface SitemapRecord {
  url: string;
  line: number;
}

/** The outcome of one check: the verdict and the line that decided it (null: no rule matched). */
export interface Verdict {
  allowed: boolean;
  line: number | null;
}

/** Why a verdict came out as it did (issue 2, "Explain"). */
export interface Explanation extends Verdict {
  userAgent: string;
  /** The string the rules were compared with: path + params + query (T48, D-5). */
  path: string;
  /**
   * The chosen (merged) group: `named` when the agent has a group of its own (R-40, T26),
   * `global` for `*` (T18), `none` when no group applies (R-43, T19).
   */
  group: {
    kind: 'named' | 'global' | 'none';
    /** The user-agent lines that formed the chosen group (all merged groups, R-34). */
    userAgents: UserAgentLine[];
    /** Indexes into `RobotsTxt.groups` of the merged groups, ascending ([] for `none`). */
    groupIndexes: number[];
  };
  /** The rule that decided, or null when no rule matched (allowed by default). */
  rule: (Rule & { viaIndexHtml?: boolean }) | null;
  /** The explanation as one plain-English sentence, for people. */
  reason: string;
}

export type Severity = 'error' | 'warning' | 'info';

export interface Diagnostic {
  line: number;
  severity: Severity;
  /** Stable, kebab-case code, e.g. `missing-colon`, `rule-outside-group`. */
  code: string;
  message: string;
}
