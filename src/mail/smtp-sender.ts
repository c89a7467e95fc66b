/**
 * One delivery attempt of an alert mail over SMTP, with nodemailer (the mail library most Node
 * projects use, kept for fifteen years: SMTP, STARTTLS, authentication, MIME encoding of the two
 * parts and of the headers). Never throws: every failure comes back as a result that says
 * whether trying again can help, as webhook deliveries do (src/http/deliver-webhook.ts);
 * retries and their backoff are the queue's job.
 *
 *   250 (accepted)                 delivered; `status` is the server's reply code
 *   4yz, 503                       retryable (RFC 5321: a transient refusal)
 *   5yz but 503                    permanent (the address or the message is refused for good)
 *   no reply (refused, reset, DNS, timeout, TLS)   retryable
 *   bad credentials, bad settings  permanent
 *
 * `smtp://` connects in plain text and upgrades with STARTTLS whenever the server offers it;
 * `smtps://` speaks TLS from the first byte. Certificates are verified against Node's CA list
 * (NODE_EXTRA_CA_CERTS adds a private CA). The SMTP server is the operator's own setting, not a
 * user's input, so it does not go through the SSRF guard that webhook URLs do.
 */
import { createTransport } from 'nodemailer';
import type { DeliveryResult } from '../http/deliver-webhook.js';

export interface OutgoingMail {
  /** The addresses of the channel. */
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** `<...@domain>`: the same on every attempt of one message, so a repeat is recognisably the same mail. */
  messageId: string;
  /** The Date header: when the alert was raised, so that every attempt sends the same message. */
  date: Date;
  headers: Record<string, string>;
}

export interface SmtpSettings {
  /** ROBOTS_AUDIT_SMTP_URL. */
  url: string;
  /** ROBOTS_AUDIT_MAIL_FROM. */
  from: string;
  /** ROBOTS_AUDIT_SMTP_TIMEOUT_MS: connecting, the greeting, and any one answer. */
  timeoutMs: number;
  /** Connections kept open to the server at most (the alert worker's concurrency). */
  maxConnections: number;
}

export interface MailSender {
  send(mail: OutgoingMail): Promise<DeliveryResult>;
  close(): void;
}

/** Errors about the settings or the credentials: retrying with the same ones cannot help. */
const PERMANENT_CODES = new Set(['EAUTH', 'ENOAUTH', 'ECONFIG', 'EENVELOPE', 'EMESSAGE', 'EMAXRECIPIENTS']);

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
  permanent?: boolean;
}

/** The reply code at the start of the server's last answer (`250 2.0.0 OK`), or null. */
function replyCode(response: unknown): number | null {
  const m = typeof response === 'string' ? /^(\d{3})\b/.exec(response) : null;
  return m ? Number(m[1]) : null;
}

/** The failure as the delivery log keeps it: the server's answer when there is one, else the error's code and message. */
function failureOf(err: SmtpError, elapsed: number): DeliveryResult {
  const status = err.responseCode ?? null;
  const answer = (err.response ?? err.message).split('\n')[0]!.trim();
  const error = status !== null ? `smtp_${status}: ${answer}` : `${err.code ?? err.name}: ${answer}`;
  const permanent = err.permanent === true || (status === null && PERMANENT_CODES.has(err.code ?? ''));
  return { ok: false, status, error: error.slice(0, 300), retryable: !permanent, gone: false, durationMs: elapsed };
}

export function createMailSender(settings: SmtpSettings): MailSender {
  const transport = createTransport(settings.url, {
    pool: true,
    maxConnections: settings.maxConnections,
    connectionTimeout: settings.timeoutMs,
    greetingTimeout: settings.timeoutMs,
    socketTimeout: settings.timeoutMs,
    dnsTimeout: settings.timeoutMs,
  } as Record<string, unknown>);
  return {
    async send(mail: OutgoingMail): Promise<DeliveryResult> {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      try {
        const info = await transport.sendMail({
          from: settings.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          messageId: mail.messageId,
          date: mail.date,
          headers: mail.headers,
        });
        const rejected = (info.rejected ?? []) as unknown[];
        if (rejected.length > 0) {
          return { ok: false, status: replyCode(info.response), error: `rejected: ${rejected.map(String).join(', ')}`, retryable: false, gone: false, durationMs: elapsed() };
        }
        return { ok: true, status: replyCode(info.response) ?? 250, retryable: false, gone: false, durationMs: elapsed(), responseSnippet: String(info.response ?? '') };
      } catch (err) {
        return failureOf(err as SmtpError, elapsed());
      }
    },
    close() {
      transport.close();
    },
  };
}

/** The domain of the From address (`robots-audit <alerts@example.com>` → `example.com`): the right side of Message-IDs. */
export function mailDomain(from: string): string {
  const address = /<([^>]+)>/.exec(from)?.[1] ?? from;
  return address.split('@').pop()!.trim().toLowerCase() || 'robots-audit.invalid';
}
