/**
 * The demo's mailbox: an SMTP server on 127.0.0.1 (smtp-server, from nodemailer's authors) that
 * takes what the demo's e-mail channel sends, the way a company's mail server would, and keeps
 * each message's subject, Message-ID and the types of its parts, to print at the end. Plain SMTP
 * on loopback: STARTTLS is not offered, so nodemailer sends in the clear, as it does to any server
 * that does not offer it.
 */
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  subject: string;
  messageId: string;
  /** The content types of the message's parts, in order (`text/plain`, `text/html`). */
  parts: string[];
}

export interface MailReceiver {
  /** The ROBOTS_AUDIT_SMTP_URL to send to. */
  url: string;
  received: ReceivedMail[];
  close(): Promise<void>;
}

/** Messages the demo's mailbox keeps at most (a run's digest is a few kilobytes). */
const MAX_MESSAGE_BYTES = 1024 * 1024;

/** A header of the message's head, unfolded (RFC 5322 §2.2.3), or ''. */
function header(head: string, name: string): string {
  const m = new RegExp(`^${name}:[ \\t]*(.*(?:\\r?\\n[ \\t].*)*)`, 'im').exec(head);
  return m ? m[1]!.replace(/\r?\n[ \t]+/g, ' ').trim() : '';
}

function summarize(raw: string): ReceivedMail {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split < 0 ? raw : raw.slice(0, split);
  const parts = [...raw.matchAll(/^Content-Type:[ \t]*(text\/[a-z]+)/gim)].map((m) => m[1]!.toLowerCase());
  return { subject: header(head, 'Subject'), messageId: header(head, 'Message-ID'), parts };
}

export async function startMailReceiver(): Promise<MailReceiver> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    size: MAX_MESSAGE_BYTES,
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push(summarize(Buffer.concat(chunks).toString('utf8')));
        callback(null);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
