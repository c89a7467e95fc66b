/**
 * A job finished after another worker took it over: BullMQ's refusal names it, and only that
 * refusal counts as a lost job (the cluster tests see them for real: test/cluster/).
 */
import { describe, expect, it } from 'vitest';
import { lostJobId } from '../../../src/services/pipeline-workers.js';

describe('lostJobId', () => {
  it.each([
    ['Missing lock for job batch-r4-b18. moveToFinished', 'batch-r4-b18'],
    ['Missing lock for job deliver-d1434. moveToFinished', 'deliver-d1434'],
    ['Missing lock for job site-r7-s12. moveToDelayed', 'site-r7-s12'],
    ['Missing key for job batch-r4-b18. moveToFinished', null],
    ['could not renew lock for job batch-r4-b18', null],
    ['Job batch-r4-b18 is not in the active state. moveToFinished', null],
    ['connect ECONNREFUSED 10.0.0.5:6379', null],
  ])('%s', (message, id) => {
    expect(lostJobId(new Error(message))).toBe(id);
  });
});
