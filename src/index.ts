/** The package entry: the robots.txt engine and the origin helpers. */
export * from './robots/types.js';
export {
  parseRobotsTxt,
  RobotsTxt,
  lintRobotsTxt,
  LINT_CODES,
  GOOGLE_MAX_ROBOTS_BYTES,
  getPathParamsQuery,
  isValidUserAgentToObey,
  agentToken,
  scanRobotsTxt,
} from './robots/index.js';
export type { CallerAgent, SelectedGroup, LintOptions, LintCode, LintCodeInfo, ScannedLine, ScanHandler, ScanSummary } from './robots/index.js';
export { normalizeOrigin, robotsTxtUrl, isInScope, canonicalUrl, parseUserUrl, InvalidUrlError } from './robots/origin.js';
