/**
 * Every diagnostic the linter can emit: a stable kebab-case code, its severity and a one-line
 * description (the README documents this table). `error`: the file does not work as a
 * robots.txt; `warning`: Google reads something other than the author probably meant, or
 * other parsers read it differently; `info`: worth knowing, harmless.
 */
import type { Severity } from './types.js';

export interface LintCodeInfo {
  severity: Severity;
  description: string;
  /** Trivia are reported only with `includeTrivia` (comment and empty lines). */
  trivia?: boolean;
}

export const LINT_CODES = {
  'html-body': { severity: 'error', description: 'The body is an HTML page, not a robots.txt; only lines that happen to be directives count (R-21).' },
  'utf16-body': { severity: 'error', description: 'The body is UTF-16; Google reads bytes and sees NULs, so no directive is read (C20, R-20).' },
  'typo-accepted': { severity: 'warning', description: 'A misspelt key Google accepts (useragent, disalow, site-map, ...); strict RFC 9309 parsers ignore the line (C2, D-1).' },
  'key-prefix-accepted': { severity: 'warning', description: 'A key that only starts with a known name (Disallowed, User-agents); Google accepts it, strict RFC 9309 parsers ignore the line (C1, D-1).' },
  'missing-colon': { severity: 'warning', description: 'No colon between key and value; Google accepts two whitespace-separated words, RFC 9309 requires the colon (T5, R2).' },
  'line-too-long': { severity: 'warning', description: 'A line longer than 16663 bytes; Google drops the rest of it and reads what is left (C28).' },
  'not-a-directive': { severity: 'warning', description: 'A line that is not a `key: value` directive; it is ignored (R3, R7).' },
  'rule-outside-group': { severity: 'warning', description: 'An allow/disallow before the first user-agent line; it belongs to no group and is ignored (R-32, T6).' },
  'path-not-anchored': { severity: 'warning', description: 'A rule path that starts with neither `/` nor `*`; Google never matches it (R-51, C6).' },
  'conflicting-rule': { severity: 'warning', description: 'The same pattern is both allowed and disallowed for one agent; the allow wins (T22, C31).' },
  'too-complex': {
    severity: 'info',
    description:
      'A check stopped at its cap (MAX_CONFLICT_CHECK_RULES rules compared; for other-parsers-differ, PORTABILITY_MAX_RULE_COMPARISONS): the file has more than the check reads, so findings further down may be missing (R-18, house style habit 12).',
  },
  'disallow-all': { severity: 'warning', description: 'The `*` group disallows the whole site.' },
  'star-rule-not-inherited': {
    severity: 'warning',
    description: 'A path the `*` group disallows that a group naming a crawler does not block: a crawler obeys only the group that names it, nothing of `*` is inherited (R-40, T26).',
  },
  'other-parsers-differ': {
    severity: 'info',
    description:
      "A rule that CPython's urllib.robotparser, Scrapy's Protego or npm robots-parser reads differently from Google: the URL the rule is meant to decide gets another verdict (issue 19; with the `portability` option, on in `robots-audit lint`).",
  },
  'agent-name-truncated': { severity: 'warning', description: 'A user-agent value Google cuts to a shorter name (Googlebot/2.1 -> googlebot, Foo Bar -> foo) (T16, C9, C10).' },
  'empty-user-agent': { severity: 'warning', description: 'An empty user-agent value; the group applies to no real crawler (C11).' },
  'sitemap-not-absolute': { severity: 'warning', description: 'A sitemap that is not an absolute http(s) URL (R-58).' },
  'invalid-utf8': { severity: 'warning', description: 'A line that is not valid UTF-8; its non-ASCII bytes may not mean what the author intended (R-20, R-27).' },
  'misplaced-bom': { severity: 'warning', description: 'A byte-order mark that is not at byte 0; Google keeps it and the line breaks (T46, C25).' },
  'partial-bom': { severity: 'warning', description: 'The file starts with an incomplete byte-order mark; Google skips it, other parsers may not (T45).' },
  'nul-byte': { severity: 'warning', description: 'A NUL byte; Google ignores the rest of its line (C20).' },
  'beyond-size-limit': { severity: 'warning', description: 'Content past 500 KiB, which Google ignores (R-18, D-6).' },
  'hidden-characters': {
    severity: 'warning',
    description: 'A control, bidirectional or invisible character (U+202E, a zero-width space, ESC): the line does not read as a crawler reads it ("Trojan Source").',
  },
  'usage-outside-group': {
    severity: 'error',
    description: 'A Content-Signal or Content-Usage line before the first user-agent line: it belongs to no group, so it applies to no crawler (D-8).',
  },
  'usage-unparsable': {
    severity: 'error',
    description: 'A Content-Usage value that is not an RFC 9651 Dictionary (an upper-case key, a missing or trailing comma): every preference of the line is unknown (D-12, draft-ietf-aipref-vocab-08 §6.5).',
  },
  'usage-unknown-label': {
    severity: 'warning',
    description: 'A preference label its vocabulary does not define (a label of an earlier draft-ietf-aipref-vocab revision is named, with what to write instead); it is ignored (D-12, vocab-08 §6.4).',
  },
  'usage-bad-value': { severity: 'warning', description: 'A preference value other than yes / no (Content-Signal) or the tokens y / n (Content-Usage); that preference is unknown (D-12).' },
  'usage-duplicate-label': { severity: 'warning', description: 'The same purpose set twice on one line; the last value applies (D-12).' },
  'usage-conflict': {
    severity: 'warning',
    description: 'Two lines of one group, of the same mechanism and path, give a purpose different values; the refusal wins (D-13, vocab-08 §5.1).',
  },
  'usage-joins-group': {
    severity: 'warning',
    description:
      'A user-agent line after a Content-Signal or Content-Usage line with no allow/disallow between: it joins that group (only a rule ends a run of user-agent lines, R-30, R-31), so the crawler it names shares the group\'s rules and preferences; end the group with a rule first (`Allow: /`).',
  },
  'usage-no-path': { severity: 'info', description: 'A Content-Usage line without a path (the form of draft-ietf-aipref-attach-00); it is read as applying to `/`, every path (D-10).' },
  'usage-contradicts-crawl': {
    severity: 'info',
    description:
      'An AI-training preference the crawl rules contradict for catalogued AI-training crawlers: allowed for a path they may not fetch, or refused by `*` while they may crawl the root (D-14; it needs the crawler catalogue: `robots-audit lint`, test-draft and the dashboard add it, src/crawlers/usage-lint.ts).',
  },
  'unknown-key': { severity: 'info', description: 'A key no parser of Google uses; the line is ignored (T4, R5).' },
  'unsupported-key': { severity: 'info', description: 'A key Google recognises but ignores: crawl-delay, host, noindex, clean-param, ... (R6). Content-Signal and Content-Usage lines are read as usage preferences: the `usage-*` codes speak of them.' },
  'empty-rule-value': { severity: 'info', description: 'An allow/disallow with no path; it has no effect, so an empty Disallow allows everything (R-50, T23).' },
  bom: { severity: 'info', description: 'The file starts with a UTF-8 byte-order mark; Google skips it (T45, R-22).' },
  comment: { severity: 'info', description: 'A comment (reported only with includeTrivia) (R4).', trivia: true },
  'empty-line': { severity: 'info', description: 'An empty line (reported only with includeTrivia) (R4).', trivia: true },
} as const satisfies Record<string, LintCodeInfo>;

export type LintCode = keyof typeof LINT_CODES;
