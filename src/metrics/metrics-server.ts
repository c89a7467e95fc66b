/**
 * The endpoints of a long-running process (worker, scheduler), on node:http: three GET routes
 * need no framework, and node:http adds no dependency and no start-up time.
 *
 * - `/metrics`: Prometheus text format.
 * - `/healthz`: 200 while the process is up (a liveness check: restart it when this fails).
 * - `/readyz`: 200 when Postgres and Redis answer, else 503 with one line saying which does not
 *   and why (a readiness check: the process is alive but cannot work).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServerOptions {
  host: string;
  /** 1..65535; the caller does not start a server for 0 (off). */
  port: number;
  registry: Registry;
  /** Null when ready, else the reason in one line. */
  notReadyReason: () => Promise<string | null>;
  /** The name of the setting that chose the port, for the message when it is taken. */
  portSetting: string;
}

export interface MetricsServer {
  /** The port listened on. */
  port: number;
  close(): Promise<void>;
}

export class MetricsPortError extends Error {
  constructor(host: string, port: number, setting: string, reason: string) {
    super(`cannot serve /metrics on ${host}:${port}: ${reason} (${setting} sets the port; 0 turns the endpoints off)`);
    this.name = 'MetricsPortError';
  }
}

function send(res: http.ServerResponse, status: number, contentType: string, body: string, head: boolean): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
  res.end(head ? undefined : body);
}

export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const text = 'text/plain; charset=utf-8';
  const server = http.createServer((req, res) => {
    const head = req.method === 'HEAD';
    if (req.method !== 'GET' && !head) {
      res.setHeader('allow', 'GET, HEAD');
      send(res, 405, text, 'method not allowed\n', false);
      return;
    }
    const path = (req.url ?? '/').split('?')[0];
    const answer = async (): Promise<void> => {
      if (path === '/metrics') return send(res, 200, options.registry.contentType, await options.registry.metrics(), head);
      if (path === '/healthz') return send(res, 200, text, 'ok\n', head);
      if (path === '/readyz') {
        const reason = await options.notReadyReason();
        return reason === null ? send(res, 200, text, 'ready\n', head) : send(res, 503, text, `not ready: ${reason}\n`, head);
      }
      send(res, 404, text, 'not found: /metrics, /healthz, /readyz\n', head);
    };
    answer().catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, text, `${err instanceof Error ? err.message : String(err)}\n`, head);
      else res.destroy();
    });
  });
  // A scraper that opens a connection and says nothing must not hold it forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) => reject(new MetricsPortError(options.host, options.port, options.portSetting, err.code ?? err.message));
    server.once('error', failed);
    server.listen(options.port, options.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
