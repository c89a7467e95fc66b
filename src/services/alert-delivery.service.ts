/**
 * Delivers one alert, or one run digest, to one channel: builds the JSON webhook (Standard
 * Webhooks signature), the Slack message or the e-mail (a text and an HTML part), sends it, and
 * records the result. Each has an id stable across retries, so a receiver can drop a duplicate
 * too: the delivery's dedupe key is the webhook id; a mail's Message-ID is derived from the
 * alert's dedupe key (or the run, for a digest) and the channel.
 *
 * Error mapping: delivered or already delivered -> done; a retryable failure (5xx, 408, 429,
 * network) -> throw, the queue retries with backoff; a permanent one (4xx, 410, SSRF refusal)
 * -> UnrecoverableError.
 */
import { UnrecoverableError } from 'bullmq';
import type { DeliveryResult, DeliverWebhookInput } from '../http/deliver-webhook.js';
import type { Logger } from '../log/logger.js';
import { parseMailto } from '../mail/mailto.js';
import type { OutgoingMail } from '../mail/smtp-sender.js';
import type { AlertDraft } from '../night/alerts.js';
import { alertMail, digestMail } from './alerting/mail-message.js';
import {
  alertWebhookPayload,
  digestWebhookPayload,
  slackAlertMessage,
  slackDigestMessage,
  webhookBody,
} from './alerting/messages.js';
import type { PendingSite } from './alerting/messages.js';

export interface DeliveryJob {
  id: number;
  dedupeKey: string;
  status: 'pending' | 'delivered' | 'failed';
  channel: { id: number; kind: 'webhook' | 'slack' | 'email'; url: string; secret: string | null };
  /** A single alert, or null for a digest. */
  alert: (AlertDraft & { createdAt: Date; textDiff: string | null }) | null;
  /**
   * For digests: the run and its alerts at or above the channel's minimum severity; a late
   * digest (`late`) has those of the sites that were pending when the run completed, the run's
   * digest the others and the list of those sites (`pending`).
   */
  digest: { runId: number; finishedAt: Date; alerts: AlertDraft[]; late: boolean; pending: PendingSite[] } | null;
}

export interface DeliveryStore {
  loadDelivery(id: number): Promise<DeliveryJob | null>;
  markDelivered(id: number, status: number | null, at: Date): Promise<void>;
  markAttemptFailed(id: number, error: string, status: number | null): Promise<void>;
  markFailed(id: number, error: string, status: number | null): Promise<void>;
}

/** What e-mail channels need: the sender, and what every message says besides the alert. */
export interface MailDelivery {
  send: (mail: OutgoingMail) => Promise<DeliveryResult>;
  /** The domain of ROBOTS_AUDIT_MAIL_FROM: the right side of Message-IDs. */
  domain: string;
  /** ROBOTS_AUDIT_DASHBOARD_URL, for links to the site's page. */
  dashboardUrl: string | null;
}

export interface AlertDeliveryDeps {
  store: DeliveryStore;
  deliver: (input: DeliverWebhookInput) => Promise<DeliveryResult>;
  /** Null when ROBOTS_AUDIT_SMTP_URL or ROBOTS_AUDIT_MAIL_FROM is not set: e-mail deliveries fail, saying so. */
  mail: MailDelivery | null;
  log: Logger;
  now: () => Date;
  userAgent: string;
}

/** Headers of every alert mail: an automatic message (RFC 3834), which auto-responders leave alone. */
export const ALERT_MAIL_HEADERS: Readonly<Record<string, string>> = { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' };

/**
 * A mail's Message-ID: the alert's dedupe key (a hash of run, site and kind) or the run of a
 * digest, and the channel. The same on every attempt, so a mail sent again after a worker died
 * between the server's 250 and the row's update is recognisably the same message.
 */
export function alertMessageId(job: Pick<DeliveryJob, 'channel' | 'alert' | 'digest'>, domain: string): string {
  const subject = job.alert ? job.alert.dedupeKey : `${job.digest?.late ? 'late-' : ''}digest-run${job.digest?.runId ?? 'none'}`;
  // RFC 5322: the left of a msg-id is a dot-atom (no `:`, `@`, spaces, ...).
  return `<robots-audit.${subject.replace(/[^A-Za-z0-9!#$%&'*+/=?^_`{|}~-]/g, '-')}.ch${job.channel.id}@${domain}>`;
}

export function createAlertDeliveryService(deps: AlertDeliveryDeps) {
  function bodyOf(job: DeliveryJob): string {
    const slack = job.channel.kind === 'slack';
    if (job.alert) {
      const options = { raisedAt: job.alert.createdAt, ...(job.alert.textDiff ? { textDiff: job.alert.textDiff } : {}) };
      return slack ? JSON.stringify(slackAlertMessage(job.alert, options)) : webhookBody(alertWebhookPayload(job.alert, options));
    }
    if (!job.digest) throw new UnrecoverableError(`delivery ${job.id} has neither an alert nor a digest`);
    const options = { runId: String(job.digest.runId), finishedAt: job.digest.finishedAt, late: job.digest.late, pending: job.digest.pending };
    return slack ? JSON.stringify(slackDigestMessage(job.digest.alerts, options)) : webhookBody(digestWebhookPayload(job.digest.alerts, options));
  }

  /** One attempt: the mail, or the POST of the JSON body. */
  async function attempt(job: DeliveryJob): Promise<DeliveryResult> {
    if (job.channel.kind !== 'email') {
      return deps.deliver({
        url: job.channel.url,
        kind: job.channel.kind,
        body: bodyOf(job),
        ...(job.channel.secret ? { secret: job.channel.secret } : {}),
        messageId: job.dedupeKey,
        userAgent: deps.userAgent,
      });
    }
    const failed = (error: string): DeliveryResult => ({ ok: false, status: null, error, retryable: false, gone: false, durationMs: 0 });
    if (!deps.mail) return failed('e-mail is not set up: ROBOTS_AUDIT_SMTP_URL and ROBOTS_AUDIT_MAIL_FROM are needed');
    let to: string[];
    try {
      to = parseMailto(job.channel.url).addresses;
    } catch (err) {
      return failed((err as Error).message);
    }
    const { dashboardUrl } = deps.mail;
    let content;
    let date: Date;
    if (job.alert) {
      content = alertMail(job.alert, { raisedAt: job.alert.createdAt, textDiff: job.alert.textDiff, dashboardUrl });
      date = job.alert.createdAt;
    } else if (job.digest) {
      content = digestMail(job.digest.alerts, { runId: String(job.digest.runId), finishedAt: job.digest.finishedAt, late: job.digest.late, pending: job.digest.pending, dashboardUrl });
      date = job.digest.finishedAt;
    } else {
      throw new UnrecoverableError(`delivery ${job.id} has neither an alert nor a digest`);
    }
    return deps.mail.send({ to, ...content, messageId: alertMessageId(job, deps.mail.domain), date, headers: { ...ALERT_MAIL_HEADERS } });
  }

  /**
   * One attempt of a delivery. `stillOurs`, asked just before the message goes out, says whether
   * the job is still this worker's (its lock): a worker that was paused or cut off from Redis past
   * its lock finds that another has taken the delivery over, and sends nothing. It narrows the
   * repeats to a message already on its way when its sender lost the job (webhooks are at least
   * once, with the same id: docs/operations.md, "Several machines").
   */
  async function deliver(deliveryId: number, options: { stillOurs?: () => Promise<boolean> } = {}): Promise<'delivered' | 'already-delivered' | 'gone' | 'taken-over'> {
    const job = await deps.store.loadDelivery(deliveryId);
    // The channel (and so its deliveries) was removed after the job was queued.
    if (!job) return 'gone';
    if (job.status === 'delivered') return 'already-delivered';
    if (options.stillOurs && !(await options.stillOurs())) return 'taken-over';
    const result = await attempt(job);
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
