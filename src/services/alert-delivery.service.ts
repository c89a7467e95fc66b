/**
 * Delivers one alert, or one run digest, to one channel: builds the JSON webhook (Standard
 * Webhooks signature) or the Slack message, posts it, and records the result. The delivery's
 * dedupe key is the webhook id, stable across retries, so a receiver can drop a duplicate too.
 *
 * Error mapping: delivered or already delivered -> done; a retryable failure (5xx, 408, 429,
 * network) -> throw, the queue retries with backoff; a permanent one (4xx, 410, SSRF refusal)
 * -> UnrecoverableError.
 */
import { UnrecoverableError } from 'bullmq';
import type { DeliveryResult, DeliverWebhookInput } from '../http/deliver-webhook.js';
import type { Logger } from '../log/logger.js';
import type { AlertDraft } from './alerting/alert-rules.js';
import {
  alertWebhookPayload,
  digestWebhookPayload,
  slackAlertMessage,
  slackDigestMessage,
  webhookBody,
} from './alerting/messages.js';

export interface DeliveryJob {
  id: number;
  dedupeKey: string;
  status: 'pending' | 'delivered' | 'failed';
  channel: { id: number; kind: 'webhook' | 'slack'; url: string; secret: string | null };
  /** A single alert, or null for a digest. */
  alert: (AlertDraft & { createdAt: Date; textDiff: string | null }) | null;
  /** For digests: the run and its alerts at or above the channel's minimum severity. */
  digest: { runId: number; finishedAt: Date; alerts: AlertDraft[] } | null;
}

export interface DeliveryStore {
  loadDelivery(id: number): Promise<DeliveryJob | null>;
  markDelivered(id: number, status: number | null, at: Date): Promise<void>;
  markAttemptFailed(id: number, error: string, status: number | null): Promise<void>;
  markFailed(id: number, error: string, status: number | null): Promise<void>;
}

export interface AlertDeliveryDeps {
  store: DeliveryStore;
  deliver: (input: DeliverWebhookInput) => Promise<DeliveryResult>;
  log: Logger;
  now: () => Date;
  userAgent: string;
}

export function createAlertDeliveryService(deps: AlertDeliveryDeps) {
  function bodyOf(job: DeliveryJob): string {
    const slack = job.channel.kind === 'slack';
    if (job.alert) {
      const options = { raisedAt: job.alert.createdAt, ...(job.alert.textDiff ? { textDiff: job.alert.textDiff } : {}) };
      return slack ? JSON.stringify(slackAlertMessage(job.alert, options)) : webhookBody(alertWebhookPayload(job.alert, options));
    }
    if (!job.digest) throw new UnrecoverableError(`delivery ${job.id} has neither an alert nor a digest`);
    const options = { runId: String(job.digest.runId), finishedAt: job.digest.finishedAt };
    return slack ? JSON.stringify(slackDigestMessage(job.digest.alerts, options)) : webhookBody(digestWebhookPayload(job.digest.alerts, options));
  }

  async function deliver(deliveryId: number): Promise<'delivered' | 'already-delivered' | 'gone'> {
    const job = await deps.store.loadDelivery(deliveryId);
    // The channel (and so its deliveries) was removed after the job was queued.
    if (!job) return 'gone';
    if (job.status === 'delivered') return 'already-delivered';
    const result = await deps.deliver({
      url: job.channel.url,
      kind: job.channel.kind,
      body: bodyOf(job),
      ...(job.channel.secret ? { secret: job.channel.secret } : {}),
      messageId: job.dedupeKey,
      userAgent: deps.userAgent,
    });
    const log = deps.log.child({ queue: 'alerts', delivery: job.id, channel: job.channel.id });
    if (result.ok) {
      await deps.store.markDelivered(job.id, result.status, deps.now());
      log.info({ status: result.status, ms: result.durationMs }, 'alert delivered');
      return 'delivered';
    }
    const error = result.error ?? `HTTP ${result.status}`;
    if (result.retryable) {
      await deps.store.markAttemptFailed(job.id, error, result.status);
      log.warn({ status: result.status, error }, 'alert delivery failed, will retry');
      // The channel by id, never by URL: a Slack URL is its secret, and this message is kept
      // with the failed job in Redis, shown by `stats` and logged.
      throw new Error(`delivery ${job.id} to channel ${job.channel.id} failed: ${error}`);
    }
    await deps.store.markFailed(job.id, error, result.status);
    log.error({ status: result.status, error }, 'alert delivery failed permanently');
    throw new UnrecoverableError(`delivery ${job.id} to channel ${job.channel.id} failed permanently: ${error}`);
  }

  return { deliver };
}

export type AlertDeliveryService = ReturnType<typeof createAlertDeliveryService>;
