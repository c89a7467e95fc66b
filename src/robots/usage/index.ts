/** Usage preferences in robots.txt (Content-Signal, Content-Usage): docs/usage-preferences.md. */
export * from './vocabulary.js';
export { usageLineOf } from './lines.js';
export type { UsageLine, UsageProblem, StatedPreference } from './lines.js';
export { decideUsage, usageLinesOf, NO_PREFERENCES, NOT_CRAWLABLE_ANSWER } from './usage-preferences.js';
export type { PurposeAnswer, UsageAnswer, UsageLines } from './usage-preferences.js';
export { parseStructuredDictionary } from './structured-dictionary.js';
export type { ParsedDictionary, DictionaryValue } from './structured-dictionary.js';
export { usageFindings, usageLineText, writtenValue } from './usage-lint.js';
export type { UsageFinding } from './usage-lint.js';
