/**
 * PORTABILITY_VERSION (issue 26): the findings of a body are computed once and kept with the
 * version that made them, so a change to what portabilityOf finds must bump the version, or the
 * stored findings of every body would silently disagree with a fresh analysis. This pins the
 * findings of a set of files, one per cause the analysis names and its bounds: a change to them
 * fails here until the version is bumped and the new digest pinned beside it.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PORTABILITY_VERSION, portabilityOf } from '../../../../src/robots/profiles/portability.js';
import { wildcardRules } from '../../../helpers/hostile-bodies.js';

const FILES = [
  'User-agent: *\nDisallow: /search?*\n',
  'User-agent: *\nDisallow: /*.pdf$\n',
  'User-agent: *\nDisallow: /search\n\nUser-agent: GPTBot\n\nDisallow: /\n',
  'User-agent: *\nAllow: /a\nDisallow: /a/b\nAllow: /a/b/c\n',
  'User-agent: GPTBot\nUser-agent: ChatGPT-User\nDisallow: /private\n\nUser-agent: GPTBot-Extra\nAllow: /\n',
  '\uFEFFUser-agent: *\nDisallow: /caf\u00e9\n',
  'User-agent: *\nDisallow: /%7Euser\nDisallow: /a b\n',
  Buffer.from([...Buffer.from('User-agent: *\nDisallow: /\xff\n', 'latin1')]),
];

/**
 * 600 rules with as many example paths: more questions than PORTABILITY_MAX_RULE_COMPARISONS
 * allows (600 x 4 comparisons each), so the bound decides how far the analysis goes.
 */
const DISTINCT_RULES = `User-agent: *\n${Array.from({ length: 600 }, (_, i) => `Disallow: /d${i}/*.pdf$`).join('\n')}\n`;

/**
 * The digest of the findings of FILES, a 40 KB file of wildcard rules and DISTINCT_RULES (the
 * bounds), by the version that made them. Version 1 pinned FILES and the wildcard file only.
 */
const PINNED: Record<number, string> = {
  1: '916c095f587057d84306a60c1bbc53531abc568951489e931eb32b90e9f9370f',
  2: '88885923c080fe914534ad0d61a4f1638723ee687ce2b7df99291187ba5bfd74',
  // 3: python-urllib-rfc9309 joins the profiles compared.
  3: '8b5789dfac90093863f64f6d4b5f752014c3a9c5a8209699bd619040d3bd586d',
  // 4: python-urllib-rfc9309 is CPython 3.13.18's module; scrapy-protego-0.7 joins the profiles compared.
  4: '59669fe3a440e28a6664c9b6cb8fb21455ad8318e464437ab531c691dc2508de',
};

function findingsDigest(): string {
  const hash = createHash('sha256');
  for (const file of [...FILES, wildcardRules(40_000), ...(PORTABILITY_VERSION >= 2 ? [DISTINCT_RULES] : [])]) hash.update(JSON.stringify(portabilityOf(typeof file === 'string' ? new TextEncoder().encode(file) : file))).update('\n');
  return hash.digest('hex');
}

describe('PORTABILITY_VERSION', () => {
  it('names the findings it makes: a change to them bumps it (and pins the new digest here)', () => {
    expect(findingsDigest(), `portabilityOf finds something else now: bump PORTABILITY_VERSION (src/robots/profiles/portability.ts) to ${PORTABILITY_VERSION + 1} and pin this digest for it`).toBe(PINNED[PORTABILITY_VERSION]);
  });
});
