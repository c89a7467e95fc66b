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
import type { DeliveryJob, MailDelivery } from '../../../src/services/alert-delivery.service.js';
import type { OutgoingMail } from '../../../src/mail/smtp-sender.js';

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
    mail: null,
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

describe('e-mail channels', () => {
  const emailJob: DeliveryJob = { ...job, channel: { id: 4, kind: 'email', url: 'mailto:seo@example.com', secret: null } };
  const sent: OutgoingMail[] = [];
  const service = (mail: MailDelivery | null, answer: Omit<DeliveryResult, 'durationMs'> = { ok: true, status: 250, retryable: false, gone: false }) =>
    createAlertDeliveryService({
      store: { loadDelivery: async () => emailJob, markDelivered: async () => {}, markAttemptFailed: async () => {}, markFailed: async () => {} },
      deliver: async () => {
        throw new Error('an e-mail channel is not a webhook');
      },
      mail: mail && { ...mail, send: async (m) => (sent.push(m), { ...answer, durationMs: 3 }) },
      log: createLogger('silent', new PassThrough()),
      now: () => new Date('2026-11-22T03:00:01Z'),
      userAgent: 'robots-audit/test',
    });
  const MAIL: MailDelivery = { send: async () => ({ ok: true, status: 250, retryable: false, gone: false, durationMs: 0 }), domain: 'example.org', dashboardUrl: null };

  it('without ROBOTS_AUDIT_SMTP_URL / MAIL_FROM: failed for good, saying what is missing', async () => {
    await expect(service(null).deliver(41)).rejects.toThrow(/^delivery 41 to channel 4 failed permanently: e-mail is not set up: ROBOTS_AUDIT_SMTP_URL and ROBOTS_AUDIT_MAIL_FROM are needed$/);
  });

  it('a retry sends the same message: the same Message-ID and Date, to the channel\'s address, marked automatic', async () => {
    sent.length = 0;
    await service(MAIL).deliver(41);
    await service(MAIL).deliver(41);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toEqual(sent[1]);
    expect(sent[0]).toMatchObject({ to: ['seo@example.com'], messageId: '<robots-audit.r1-s1-rules_changed.ch4@example.org>', date: emailJob.alert!.createdAt, headers: { 'Auto-Submitted': 'auto-generated' } });
  });

  it.each([
    ['451 (transient): retried', { ok: false, status: 451, error: 'smtp_451', retryable: true, gone: false }, Error],
    ['550 (permanent): not retried', { ok: false, status: 550, error: 'smtp_550', retryable: false, gone: false }, UnrecoverableError],
  ])('%s', async (_name, answer, kind) => {
    await expect(service(MAIL, answer).deliver(41)).rejects.toBeInstanceOf(kind);
  });
});

describe('a delivery taken over by another worker is not sent', () => {
  it.each([
    ['the job is still this worker\'s: sent', true, 'delivered', 1],
    ['another worker took it over (lock refused): not sent', false, 'taken-over', 0],
  ])('%s', async (_name, ours, outcome, sends) => {
    let sent = 0;
    const service = createAlertDeliveryService({
      store: { loadDelivery: async () => job, markDelivered: async () => {}, markAttemptFailed: async () => {}, markFailed: async () => {} },
      deliver: async () => {
        sent += 1;
        return { ok: true, status: 200, retryable: false, gone: false, durationMs: 5 };
      },
      mail: null,
      log: createLogger('silent', new PassThrough()),
      now: () => new Date('2026-11-22T03:00:01Z'),
      userAgent: 'robots-audit/test',
    });
    expect(await service.deliver(41, { stillOurs: async () => ours })).toBe(outcome);
    expect(sent).toBe(sends);
  });
});
