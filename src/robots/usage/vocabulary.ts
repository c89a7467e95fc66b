/**
 * The words of usage preferences: the purposes this project reports, and the labels each
 * mechanism uses for them, with the document (and revision) that defines each label
 * (docs/usage-preferences.md, D-7..D-15).
 *
 * - Content-Signal lines: Cloudflare's Content Signals Policy, https://contentsignals.org/ (CC0,
 *   2025-09-24), filed as draft-romm-aipref-contentsignals: `search`, `ai-input`, `ai-train`,
 *   values `yes` / `no`.
 * - Content-Usage lines: draft-ietf-aipref-attach-05 §3 (2026-08-18) with the vocabulary of
 *   draft-ietf-aipref-vocab-08 (2026-09-14) §6.1: `train-ai`, `ai-use`, `search`, values `y` / `n`.
 *   The labels of earlier revisions are no longer defined: vocab-08 §6.4 says unknown labels MUST
 *   be ignored, so they decide nothing; lint names the revision that retired them.
 */

/** The purposes a preference is stated for. */
export const USAGE_PURPOSES = ['search', 'ai-train', 'ai-input'] as const;
export type UsagePurpose = (typeof USAGE_PURPOSES)[number];

/** Each purpose in a few words, as titles, columns and messages name it. */
export const USAGE_PURPOSE_LABELS: Readonly<Record<UsagePurpose, string>> = {
  search: 'Search',
  'ai-train': 'AI training',
  'ai-input': 'AI input',
};

/** The two kinds of robots.txt line that state preferences. */
export const USAGE_MECHANISMS = ['content-usage', 'content-signal'] as const;
export type UsageMechanism = (typeof USAGE_MECHANISMS)[number];

/** Each mechanism's key as a person writes it (`Content-Signal`). */
export const USAGE_KEY_NAMES: Readonly<Record<UsageMechanism, string>> = { 'content-signal': 'Content-Signal', 'content-usage': 'Content-Usage' };

/** The record keys (lower-cased, as OtherRecord keeps them) of the two mechanisms. */
export const USAGE_KEYS: ReadonlyMap<string, UsageMechanism> = new Map([
  ['content-usage', 'content-usage'],
  ['content-signal', 'content-signal'],
]);

/**
 * What a crawler is told for a purpose at a URL: `not-crawlable` when it may not fetch the URL
 * (D-9), `unknown` when nothing states it.
 */
export const USAGE_PREFERENCES = ['allowed', 'refused', 'unknown', 'not-crawlable'] as const;
export type UsagePreference = (typeof USAGE_PREFERENCES)[number];

export interface UsageLabel {
  purpose: UsagePurpose;
  /** The document that defines the label, with its revision. */
  definedBy: string;
}

export const CONTENT_SIGNAL_VOCABULARY = 'Content Signals (contentsignals.org, draft-romm-aipref-contentsignals)';
export const AIPREF_VOCABULARY = 'draft-ietf-aipref-vocab-08';

/** Content-Signal keys (contentsignals.org, "Content Signals Policy"). */
export const CONTENT_SIGNAL_LABELS: ReadonlyMap<string, UsageLabel> = new Map([
  ['search', { purpose: 'search', definedBy: CONTENT_SIGNAL_VOCABULARY }],
  ['ai-train', { purpose: 'ai-train', definedBy: CONTENT_SIGNAL_VOCABULARY }],
  ['ai-input', { purpose: 'ai-input', definedBy: CONTENT_SIGNAL_VOCABULARY }],
]);

/** Content-Usage labels of draft-ietf-aipref-vocab-08 §6.1 (case-sensitive: §6.5.1). */
export const CONTENT_USAGE_LABELS: ReadonlyMap<string, UsageLabel> = new Map([
  ['search', { purpose: 'search', definedBy: AIPREF_VOCABULARY }],
  ['train-ai', { purpose: 'ai-train', definedBy: AIPREF_VOCABULARY }],
  ['ai-use', { purpose: 'ai-input', definedBy: AIPREF_VOCABULARY }],
]);

/**
 * Labels of earlier revisions of draft-ietf-aipref-vocab that vocab-08 no longer defines, with
 * the revisions that did and the vocab-08 label closest to them (null: none). Read from the
 * revisions on the IETF datatracker (https://datatracker.ietf.org/doc/draft-ietf-aipref-vocab/),
 * 2026-11-27. They decide nothing (vocab-08 §6.4); lint says what to write instead.
 */
export const RETIRED_AIPREF_LABELS: ReadonlyMap<string, { revisions: string; instead: string | null }> = new Map([
  ['tdm', { revisions: '-01', instead: null }],
  ['ai', { revisions: '-01', instead: 'train-ai' }],
  ['genai', { revisions: '-01', instead: 'train-ai' }],
  ['inference', { revisions: '-01', instead: 'ai-use' }],
  ['all', { revisions: '-02', instead: null }],
  ['train-genai', { revisions: '-02 to -03', instead: 'train-ai' }],
  ['bots', { revisions: '-03 to -04', instead: null }],
  ['ai-output', { revisions: '-04', instead: 'ai-use' }],
]);

/** Content-Signal values (yes / no) and Content-Usage tokens (y / n) as a stated preference. */
export const CONTENT_SIGNAL_VALUES: ReadonlyMap<string, boolean> = new Map([
  ['yes', true],
  ['no', false],
]);
export const CONTENT_USAGE_VALUES: ReadonlyMap<string, boolean> = new Map([
  ['y', true],
  ['n', false],
]);
