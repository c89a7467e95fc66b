/**
 * A failed delivery's error names the channel by id, never by URL: the message is kept with the
 * failed job in Redis, shown by `robots-audit stats` and logged, and a Slack incoming webhook's
 * URL is its secret.
 */
import { UnrecoverableError } from 'bullmq';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log/logger.js';
import type { DeliveryResult } from '../../../src/http/deliver-webhook.js';
import { createAlertDeliveryService } from '../../../src/services/alert-delivery.service.js';
import type { DeliveryJob } from '../../../src/services/alert-delivery.service.js';

const SLACK_URL = 'https://hooks.slack.com/services/T0000/B0000/s3cr3tT0k3n';

const job: DeliveryJob = {
  id: 41,
  dedupeKey: 'alert-7-channel-3',
  status: 'pending',
  channel: { id: 3, kind: 'slack', url: SLACK_URL, secret: null },
  alert: {
    dedupeKey: 'r1:s1:rules_changed',
    severity: 'warning',
    kind: 'rules_changed',
    title: 'rules changed',
    runId: '1',
    siteId: '1',
    origin: 'https://example.com',
    details: {},
    createdAt: new Date('2026-11-22T03:00:00Z'),
    textDiff: null,
  },
  digest: null,
};

function serviceAnswering(result: Omit<DeliveryResult, 'durationMs'>) {
  return createAlertDeliveryService({
    store: { loadDelivery: async () => job, markDelivered: async () => {}, markAttemptFailed: async () => {}, markFailed: async () => {} },
    deliver: async () => ({ ...result, durationMs: 5 }),
    log: createLogger('silent', new PassThrough()),
    now: () => new Date('2026-11-22T03:00:01Z'),
    userAgent: 'robots-audit/test',
  });
}

describe('a failed delivery names its channel, not its URL', () => {
  it.each([
    ['retryable (503): retried', { ok: false, status: 503, error: 'http_503', retryable: true, gone: false }, Error, 'delivery 41 to channel 3 failed: http_503'],
    ['permanent (404): not retried', { ok: false, status: 404, error: 'http_404', retryable: false, gone: false }, UnrecoverableError, 'delivery 41 to channel 3 failed permanently: http_404'],
  ])('%s', async (_name, result, kind, message) => {
    const failure = serviceAnswering(result).deliver(41);
    await expect(failure).rejects.toBeInstanceOf(kind);
    await expect(failure).rejects.toThrow(message);
    await expect(failure).rejects.not.toThrow(/s3cr3t|hooks\.slack\.com/);
  });
});
