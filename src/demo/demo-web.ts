/**
 * The demo's web: one node:http server on 127.0.0.1 answering /robots.txt for every demo host
 * (the Host header picks the site) as of the current night, and a webhook receiver that checks
 * Standard Webhooks signatures and prints what it gets.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../http/standard-webhooks.js';
import type { DemoSite } from './demo-sites.js';

export interface DemoWeb {
  port: number;
  setNight(index: number): void;
  /** Alerts received by the webhook receiver, as `[severity] title` lines. */
  received: string[];
  close(): Promise<void>;
}

export async function startDemoWeb(sites: readonly DemoSite[], secret: string, onAlert: (line: string) => void): Promise<DemoWeb> {
  let night = 0;
  const received: string[] = [];
  const byHost = new Map(sites.map((s) => [s.host, s]));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const host = (req.headers.host ?? '').split(':')[0] ?? '';
      if (req.method === 'POST' && req.url === '/webhook') {
        const body = Buffer.concat(chunks).toString('utf8');
        const verdict = verifyWebhook({ headers: req.headers, body, nowSeconds: Math.floor(Date.now() / 1000) }, secret);
        if (!verdict.ok) {
          res.writeHead(401).end();
          onAlert(`webhook REJECTED (bad signature)`);
          return;
        }
        const payload = JSON.parse(body) as { data?: { severity?: string; title?: string } };
        const line = `[${payload.data?.severity ?? '?'}] ${payload.data?.title ?? ''}`;
        received.push(line);
        onAlert(`webhook received ${line}`);
        res.writeHead(204).end();
        return;
      }
      const site = byHost.get(host);
      const reply = site?.nights[night];
      if (!site || !reply || req.url !== '/robots.txt') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
        return;
      }
      res.writeHead(reply.status, reply.headers ?? {}).end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    setNight: (index) => void (night = index),
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
