/**
 * The demo's webhook endpoint: a node:http server on 127.0.0.1 that checks each delivery's
 * Standard Webhooks signature with the channel's secret, the way a customer's endpoint would,
 * and answers 401 to one that does not verify (the delivery is then retried and, in the end,
 * recorded as failed). It counts what it got, to print at the end.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebhookSecret } from '../http/standard-webhooks.js';
import { verifyWebhook } from '../http/standard-webhooks.js';

export interface ReceivedAlert {
  severity: string;
  kind: string;
  title: string;
}

export interface WebhookReceiver {
  /** The URL to register, on the host name given (pinned to 127.0.0.1 like the demo's sites). */
  url: string;
  /** Deliveries whose signature verified, in the order they came. */
  verified: ReceivedAlert[];
  /** Deliveries refused, with why. */
  rejected: string[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(secret: WebhookSecret, host: string, path = '/webhook'): Promise<WebhookReceiver> {
  const verified: ReceivedAlert[] = [];
  const rejected: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== path) {
        res.writeHead(404).end();
        return;
      }
      // The exact bytes: a signature covers them, not a re-serialised JSON.
      const body = Buffer.concat(chunks);
      const verdict = verifyWebhook({ headers: req.headers, body, nowSeconds: Math.floor(Date.now() / 1000) }, secret);
      if (!verdict.ok) {
        rejected.push(verdict.reason);
        res.writeHead(401).end();
        return;
      }
      const payload = JSON.parse(body.toString('utf8')) as { data?: { severity?: string; kind?: string; title?: string } };
      verified.push({ severity: payload.data?.severity ?? '?', kind: payload.data?.kind ?? '?', title: payload.data?.title ?? '' });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}${path}`,
    verified,
    rejected,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
