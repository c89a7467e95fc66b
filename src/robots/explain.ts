/**
 * Explain a verdict: which group was chosen (R-40..R-43) and which rule decided (D-2, C8),
 * in data and in one sentence. Pure.
 */
import { getPathParamsQuery, isAllowedBy } from './match.js';
import type { CallerAgent, SelectedGroup } from './selected-group.js';
import type { Explanation } from './types.js';

/** The explanation for `url` when `sel` is the group `userAgent` selected (null: none applies). */
export function explainCheck(sel: SelectedGroup | null, url: string, userAgent: CallerAgent): Explanation {
  const path = getPathParamsQuery(url);
  const ua = typeof userAgent === 'string' ? userAgent : userAgent.join(', ');
  if (sel === null) {
    return {
      allowed: true,
      line: null,
      userAgent: ua,
      path,
      group: { kind: 'none', userAgents: [], groupIndexes: [] },
      rule: null,
      // R-43, T19
      reason: `Allowed: no group names "${ua}" and there is no "*" group, so no rule applies.`,
    };
  }
  const decisive = sel.decide(path);
  const allowed = isAllowedBy(decisive);
  const groupName = sel.kind === 'named' ? `the group for ${sel.tokens.join(' + ')}` : 'the "*" group';
  const lines = sel.userAgents.map((u) => u.line);
  const where = `${groupName} (user-agent line${lines.length === 1 ? '' : 's'} ${lines.join(', ')})`;

  let reason: string;
  if (decisive === null) {
    reason = `Allowed: no rule of ${where} matches ${path}.`;
  } else {
    const r = decisive.rule;
    const written = `${r.kind === 'allow' ? 'Allow' : 'Disallow'}: ${r.value}`;
    if (decisive.viaIndexHtml) {
      // C8
      reason = `Allowed by "${written}" (line ${r.line}) of ${where}: Google also allows the directory of an index.html rule (${decisive.pattern.source}).`;
    } else if (decisive.priority === 0) {
      // T23
      reason = `Allowed: only the empty rule "${written}" (line ${r.line}) of ${where} matches, and an empty rule disallows nothing.`;
    } else {
      reason = `${allowed ? 'Allowed' : 'Disallowed'} by "${written}" (line ${r.line}) of ${where}, the longest matching rule.`;
    }
  }
  return {
    allowed,
    line: decisive === null ? null : decisive.rule.line,
    userAgent: ua,
    path,
    group: { kind: sel.kind, userAgents: [...sel.userAgents], groupIndexes: [...sel.groupIndexes] },
    rule:
      decisive === null
        ? null
        : {
            ...decisive.rule,
            // For the index.html rule, the pattern that matched is the synthesised directory one.
            pattern: decisive.pattern.source,
            viaIndexHtml: decisive.viaIndexHtml,
          },
    reason,
  };
}
