/**
 * The hashes a night is keyed by: a body's sha256 (computed once per night, by the night runner,
 * and passed on), the hash of what is evaluated, and the evaluation key that says whether the
 * verdicts in force still hold.
 */
import { hash } from 'node:crypto';
import { ENGINE_VERSION } from '../robots/index.js';
import { PARSER_VERDICTS_KEY } from '../crawlers/parser-verdicts.js';
import type { PolicyKind } from '../policy/index.js';
import type { EvaluationTarget } from './input.js';

// One-shot hashing (crypto.hash): no Hash object per call, on a path taken for every site a night.
export const sha256Of = (bytes: Uint8Array | string): Buffer => hash('sha256', bytes, 'buffer');

/** A hash of the targets: which URLs, as which text, for which agents, in order. */
export function targetsHash(targets: readonly EvaluationTarget[]): Buffer {
  const text = targets.map((t) => `${t.trackedUrlId} ${t.url} ${t.agents.map((a) => `${a.id}=${a.token}`).join(',')}\n`).join('');
  return sha256Of(text).subarray(0, 16);
}

/** What decides the verdicts: the engine version, the policy, the rules body (by hash), the targets. */
export function evaluationKey(policy: PolicyKind, rulesSha256: Buffer | null, targets: Buffer): Buffer {
  // PARSER_VERDICTS_KEY: which crawlers get a verdict under their own parser, so that a change
  // to it (a profile added, a parser fact) makes the next night store those verdicts.
  const head = Buffer.from(`${ENGINE_VERSION}\n${PARSER_VERDICTS_KEY}\n${policy}\n${rulesSha256?.toString('hex') ?? '-'}\n`);
  return sha256Of(Buffer.concat([head, targets])).subarray(0, 16);
}
