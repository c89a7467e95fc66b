/**
 * Who asks and the group that answers them: the two types that parse.ts (which selects) and
 * explain.ts (which words the selection) share, kept apart so that neither imports the other.
 */
import type { CompiledRule } from './match.js';
import type { Rule, UserAgentLine } from './types.js';

/** A caller's user-agent, or several treated as one crawler (C29). */
export type CallerAgent = string | readonly string[];

/** The (merged) group that applies to a caller. */
export interface SelectedGroup {
  /** `named`: the caller has its own group(s) (T26); `global`: the `*` group(s) (T18). */
  readonly kind: 'named' | 'global';
  /** The tokens that selected it: the caller's names, or `*`. */
  readonly tokens: readonly string[];
  /** Indexes into `groups` of every group merged into it, ascending. */
  readonly groupIndexes: readonly number[];
  /** The user-agent lines that name the selected token(s), in file order. */
  readonly userAgents: readonly UserAgentLine[];
  /** Its rules in file order (C27: their position does not matter, only their length). */
  readonly rules: readonly Rule[];
  /** The rules compiled and ordered for `decide` (compiled when first read). */
  readonly compiled: readonly CompiledRule[];
  /** The rule that decides for a path (path + params + query, T48), or null when none matches. */
  decide(path: string): CompiledRule | null;
}
