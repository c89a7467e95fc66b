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
  /**
   * Ports tried after `port` when it is taken, one up each (default METRICS_PORT_FALLBACKS):
   * several workers on one host with the defaults each get their endpoints.
   */
  fallbacks?: number;
}

/**
 * Ports tried after the configured one when it is taken (EADDRINUSE): the second worker on a
 * host serves on 9465, the third on 9466, ... Each says where in its start-up log. 0: none.
 * ROBOTS_AUDIT_METRICS_PORT_FALLBACKS (src/config/env.ts) sets it; this is its default.
 */
export const METRICS_PORT_FALLBACKS = 15;

export interface MetricsServer {
  /** The port listened on: the one asked for, or the first free one after it. */
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
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      const failed = (err: NodeJS.ErrnoException) => {
        server.off('listening', listening);
        reject(err);
      };
      const listening = () => {
        server.off('error', failed);
        resolve();
      };
      server.once('error', failed);
      server.once('listening', listening);
      server.listen(port, options.host);
    });
  const last = Math.min(65_535, options.port + (options.fallbacks ?? METRICS_PORT_FALLBACKS));
  for (let port = options.port; ; port++) {
    try {
      await listen(port);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Only a port in use is worth another try; the next one up may be free.
      if (code === 'EADDRINUSE' && port < last) continue;
      const tried = port === options.port ? '' : ` (and the ${port - options.port} ports after it)`;
      throw new MetricsPortError(options.host, options.port, options.portSetting, `${code ?? (err as Error).message}${tried}`);
    }
  }
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
