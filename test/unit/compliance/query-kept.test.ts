/**
 * A request's query string is kept only where the version in force reads it (docs/compliance.md,
 * "Privacy"): decided by the nightly evaluator with the query and without it.
 */
import { describe, expect, it } from 'vitest';
import { keptTarget } from '../../../src/compliance/query-kept.js';
import { policyEvaluator } from '../../../src/services/policy-evaluator.js';

const evaluate = policyEvaluator('rules', new TextEncoder().encode('User-agent: *\nDisallow: /*?sessionid=\nDisallow: /search\n'));
const allowed = (target: string) => evaluate(`https://example.com${target}`, 'GPTBot').allowed;
const kept = (target: string) => keptTarget(target, (withoutQuery) => allowed(withoutQuery) === allowed(target));

describe('keptTarget', () => {
  it.each([
    ['no query: the path as it is', '/a/b', '/a/b'],
    ['a query the rules do not read: dropped, a bare ? says so', '/a?q=private+search+terms', '/a?'],
    ['a query a rule reads (Disallow: /*?sessionid=): kept', '/a?sessionid=42', '/a?sessionid=42'],
    ['a path the rules disallow whatever the query: dropped', '/search?q=name', '/search?'],
    ['an empty query', '/a?', '/a?'],
  ])('%s', (_case, target, expected) => expect(kept(target)).toBe(expected));
});
