/**
 * The demo's web: one node:http server on 127.0.0.1 that answers for every demo host (the Host
 * header picks it) as of the current night. Nothing else: the webhook receiver is a server of
 * its own (webhook-receiver.ts), as a customer's endpoint would be.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DemoHost } from './demo-sites.js';

export interface DemoWeb {
  port: number;
  /** `http://<host>:<port>`: what the demo adds as a site. */
  origin(host: string): string;
  setNight(night: Date): void;
  close(): Promise<void>;
}

export async function startDemoWeb(hosts: readonly DemoHost[]): Promise<DemoWeb> {
  let night: Date | null = null;
  let port = 0;
  const byHost = new Map(hosts.map((h) => [h.host, h]));
  const origin = (host: string) => `http://${host}:${port}`;
  const server = http.createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const site = byHost.get(host);
    const reply = site && night ? site.serve(night, req.url ?? '/', (h, path) => `${origin(h)}${path}`) : null;
    if (!reply) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    res.writeHead(reply.status, reply.headers ?? {}).end(reply.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    port,
    origin,
    setNight: (next) => void (night = next),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
