/**
 * Step 1 of a night: the answer it stands on. Of a first fetch and its confirmation, the one
 * that counts; its body hashed once (or the hash the night runner computed, passed on) and, when
 * it is new to the site, linted and parsed in one scan; its headers as a `responses` reference.
 */
import type { FetchResult } from '../../http/fetch-result.js';
import { responseRowOf } from '../../db/responses.js';
import { parseRobotsTxt } from '../../robots/index.js';
import type { RobotsTxt } from '../../robots/index.js';
import { starRuleGaps } from '../../robots/star-rule-gaps.js';
import type { StarRuleGaps } from '../../robots/star-rule-gaps.js';
import { indexBody } from '../../night/body-index.js';
import { summarizeAndParse } from '../../night/body-summary.js';
import type { PreviousNight, SiteNightInput } from '../../night/input.js';
import { sha256Of } from '../../night/keys.js';
import type { BodyRef, NewBody, ResponseRef, ResponseRow } from '../../night/rows.js';

export interface NightAnswer {
  result: FetchResult;
  /** The body when the answer is `ok` with one. */
  body: Buffer | null;
  sha256: Buffer | null;
  /** The body is the site's last good one (nothing new to store, diff or lint). */
  sameAsLastGood: boolean;
  bodyRef: BodyRef | null;
  /** The body as stored for the first time (null when stored already). */
  newBody: NewBody | null;
  /** The body's parse and star-rule gaps, computed when first asked for (once). */
  parsed(): RobotsTxt;
  gaps(): StarRuleGaps;
  /** The confirmation's body when it disagreed with the answer that counts, and its hash. */
  other: Buffer | null;
  otherSha: Buffer | null;
  response: { row: ResponseRow | null; ref: ResponseRef | null; newRow: ResponseRow | null };
}

export function nightAnswer(input: SiteNightInput): NightAnswer {
  const { previous } = input;
  const picked = pickAnswer(input.result, input.confirm, previous, input.resultSha256);
  const result = picked.result;
  const body = result.outcome === 'ok' && result.body ? result.body : null;
  const sha256 = body === null ? null : (picked.sha256 ?? sha256Of(body));
  const lastGood = previous?.lastGood ?? null;
  const sameAsLastGood = sha256 !== null && lastGood !== null && lastGood.sha256.equals(sha256);

  let parsed: RobotsTxt | null = null;
  let gaps: StarRuleGaps | null = null;
  let newBody: NewBody | null = null;
  if (body && sha256 && !sameAsLastGood) {
    // A new body is linted for its summary; the lint's scan is also its parse (one pass).
    const s = summarizeAndParse(body);
    parsed = s.parsed;
    gaps = s.starRuleGaps;
    newBody = { sha256, content: body, summary: s.summary, index: indexBody(parsed, input.catalogueTokens) };
  }
  const parsedBody = () => (parsed ??= parseRobotsTxt(body!));
  return {
    result,
    body,
    sha256,
    sameAsLastGood,
    bodyRef: sha256 === null ? null : sameAsLastGood ? { id: lastGood!.body } : { sha256 },
    newBody,
    parsed: parsedBody,
    gaps: () => (gaps ??= starRuleGaps(parsedBody())),
    other: picked.other,
    otherSha: picked.otherSha,
    response: answerOf(result, previous),
  };
}

/**
 * The answer's `responses` row, referenced by the id of the site's last one when the headers are
 * the same (stored once), or by its key as a new row (`newRow`); null when nothing answered.
 */
export function answerOf(result: FetchResult, last: Pick<PreviousNight, 'response' | 'responseKey'> | null): NightAnswer['response'] {
  const row = responseRowOf(result);
  if (row === null) return { row, ref: null, newRow: null };
  const same = last?.responseKey != null && last.responseKey.equals(row.key);
  return same ? { row, ref: { id: last.response! }, newRow: null } : { row, ref: { key: row.key }, newRow: row };
}

/**
 * The night's answer when a confirmation fetch was made: of two bodies that disagree, the one
 * that is the version in force stands for the night (nothing changes for crawlers), the other is
 * recorded beside it; otherwise the first answer. A confirmation that brought no body (a
 * failure) confirms nothing. The first answer's hash, when the runner has it, is kept with it.
 */
function pickAnswer(
  first: FetchResult,
  confirm: FetchResult | null | undefined,
  previous: PreviousNight | null,
  firstSha256: Buffer | null | undefined,
): { result: FetchResult; sha256: Buffer | null; other: Buffer | null; otherSha: Buffer | null } {
  const kept = { result: first, sha256: firstSha256 ?? null, other: null, otherSha: null };
  if (!confirm || confirm.outcome !== 'ok' || !confirm.body || first.outcome !== 'ok' || !first.body) return kept;
  if (confirm.body.equals(first.body)) return kept;
  const confirmSha = sha256Of(confirm.body);
  const confirmIsCurrent = previous?.lastGood?.sha256.equals(confirmSha) ?? false;
  if (!confirmIsCurrent) return { ...kept, other: confirm.body, otherSha: confirmSha };
  return { result: confirm, sha256: confirmSha, other: first.body, otherSha: firstSha256 ?? sha256Of(first.body) };
}
