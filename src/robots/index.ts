/** The robots.txt engine: parse, match, explain and lint, Google-exact. Pure: no I/O. */
export * from './types.js';
export { parseRobotsTxt, RobotsTxt, RobotsTxtBuilder, MAX_CACHED_AGENTS } from './parse.js';
export type { CallerAgent, SelectedGroup } from './selected-group.js';
export { lintAndParse, lintRobotsTxt, GOOGLE_MAX_ROBOTS_BYTES } from './lint.js';
export type { LintedBody } from './lint.js';
export type { LintOptions } from './lint.js';
export { LINT_CODES } from './lint-codes.js';
export type { LintCode, LintCodeInfo } from './lint-codes.js';
export { scanRobotsTxt, scanLines, MAX_LINE_BYTES, KNOWN_UNSUPPORTED_KEYS } from './scan.js';
export type { ScannedLine, ScanHandler, ScanSummary, KeyKind, DirectiveKey, LineType } from './scan.js';
export { getPathParamsQuery, matchesPattern, compilePattern, indexHtmlPattern } from './match.js';
export type { CompiledPattern, CompiledRule } from './match.js';
export { escapePattern } from './encoding.js';
export { agentToken, isValidUserAgentToObey, GLOBAL_AGENT } from './user-agent.js';
export { explainCheck } from './explain.js';
export { starRuleGaps } from './star-rule-gaps.js';
export type { StarRuleGap } from './star-rule-gaps.js';
export { ENGINE_VERSION } from './engine-version.js';
