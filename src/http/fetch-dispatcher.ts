/**
 * The undici Agent the fetcher talks through. It carries the SSRF guard into every connection:
 * names go through the guarded lookup (pins, then DNS, then the guard), literal IP hosts are
 * judged before a socket is opened, and the address a socket really reached is judged once more.
 * It follows no redirects (no redirect interceptor): fetch-robots-txt.ts follows them itself so
 * that each hop is recorded and guarded.
 *
 * It also remembers, per origin, the address its last connection reached, so that a result can
 * say where the bytes came from. With one request at a time per host (HostGate) that is exact.
 * An entry is handed out once and forgotten; at most REMOTE_ADDRESS_MEMORY are kept (the oldest
 * go first), so a night over 100,000 origins does not grow the map.
 *
 * A robots.txt fetch talks to each host once a night: it opens a connection of its own for each
 * request (`openExchange`) and closes it as soon as the answer is read (`closeExchange`), so that
 * 100,000 hosts never hold 100,000 idle sockets. Closing it ourselves, rather than asking undici
 * to (`reset`, or the Agent closing an origin's client when its socket goes), spares the two
 * errors undici builds for each such close, whose stacks Node's streams format: 7-8% of a
 * worker's CPU (docs/benchmarks.md). Webhooks go through `agent`, which keeps connections.
 */
import net from 'node:net';
import tls from 'node:tls';
import { Agent, Client, buildConnector } from 'undici';
import { createGuardedLookup, type Resolver } from './guarded-lookup.js';
import { parseResolvePins } from './resolve-pins.js';
import { createSsrfGuard, SsrfBlockedError } from './ssrf-guard.js';

export interface FetchDispatcherOptions {
  connectTimeoutMs: number;
  allowNetworks: readonly string[];
  resolvePins: readonly string[];
  /** Tests inject a resolver; production uses dns.lookup. */
  resolver?: Resolver;
  /**
   * Certificate authorities (PEM) trusted besides Node's own (tests: a test CA). A deployment
   * that must trust a private CA sets NODE_EXTRA_CA_CERTS, which Node reads at start.
   */
  extraCa?: readonly string[];
}

export interface FetchDispatcher {
  /** For requests that may reuse connections (webhook deliveries). */
  readonly agent: Agent;
  /** A connection of its own for one request to the URL's origin; give it to closeExchange once its answer is read. */
  openExchange(url: URL): Client;
  /** Closes an exchange's connection (whatever state it is in). */
  closeExchange(client: Client): void;
  /** The remote address of the last connection to the URL's scheme, host and port, if any (once). */
  remoteAddress(url: URL): string | null;
  /** Closes every connection now (in-flight requests fail). */
  close(): Promise<void>;
}

/** Connections whose address was not asked for yet (refused before an answer, say) kept at most. */
export const REMOTE_ADDRESS_MEMORY = 4096;

/**
 * Why an exchange's connection is closed: made once, so that closing builds no error (nor stack)
 * of its own. Requests still running on it, if any, fail with it.
 */
const EXCHANGE_CLOSED = Object.assign(new Error('the robots.txt exchange is over: its connection is closed'), { code: 'EXCHANGE_CLOSED' });

function defaultPort(protocol: string): string {
  return protocol === 'https:' ? '443' : '80';
}

function connectionKey(protocol: string, hostname: string, port: string): string {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return `${protocol}//${host.toLowerCase()}:${port || defaultPort(protocol)}`;
}

/** Builds a guarded Agent. Invalid `allowNetworks` or `resolvePins` entries throw (configuration errors). */
export function createFetchDispatcher(options: FetchDispatcherOptions): FetchDispatcher {
  const guard = createSsrfGuard(options.allowNetworks);
  const pins = parseResolvePins(options.resolvePins);
  const lookup = createGuardedLookup({ guard, pins, resolver: options.resolver });
  const extraCa = options.extraCa ?? [];
  const base = buildConnector({
    timeout: options.connectTimeoutMs,
    lookup,
    // A connection carries one robots.txt and closes (fetchRobotsTxt's `reset`): TCP keep-alive
    // probes would start after a minute, long after it is gone, so the two setsockopt calls per
    // connection that undici makes by default buy nothing (~0.6% of a worker's CPU).
    keepAlive: false,
    ...(extraCa.length > 0 ? { ca: [...tls.rootCertificates, ...extraCa] } : {}),
  });
  const remoteAddresses = new Map<string, string>();

  const connect: buildConnector.connector = (opts, callback) => {
    // Node does no lookup for an IP literal, so the guard must see it here, before any packet.
    if (net.isIP(opts.hostname) !== 0) {
      const verdict = guard.check(opts.hostname);
      if (!verdict.allowed) {
        callback(new SsrfBlockedError(opts.hostname, verdict.address, verdict.reason), null);
        return;
      }
    }
    base(opts, (...args) => {
      const [err, socket] = args;
      if (err !== null) {
        callback(err, null);
        return;
      }
      const reached = socket.remoteAddress;
      // Second line of defence: whatever path led here, the peer itself must pass.
      const verdict = reached ? guard.check(reached) : null;
      if (!reached || !verdict?.allowed) {
        socket.destroy();
        callback(new SsrfBlockedError(opts.hostname, reached ?? 'unknown address', verdict?.reason ?? 'peer address unknown'), null);
        return;
      }
      const key = connectionKey(opts.protocol, opts.hostname, opts.port);
      remoteAddresses.delete(key);
      remoteAddresses.set(key, reached);
      if (remoteAddresses.size > REMOTE_ADDRESS_MEMORY) remoteAddresses.delete(remoteAddresses.keys().next().value!);
      callback(null, socket);
    });
  };

  const agent = new Agent({ connect, connections: 1 });
  const exchanges = new Set<Client>();
  return {
    agent,
    openExchange(url) {
      const client = new Client(url.origin, { connect });
      exchanges.add(client);
      return client;
    },
    closeExchange(client) {
      exchanges.delete(client);
      if (!client.destroyed) client.destroy(EXCHANGE_CLOSED, () => {});
    },
    remoteAddress(url) {
      const key = connectionKey(url.protocol, url.hostname, url.port);
      const address = remoteAddresses.get(key) ?? null;
      remoteAddresses.delete(key);
      return address;
    },
    async close() {
      const open = [...exchanges];
      exchanges.clear();
      await Promise.all([agent.destroy(), ...open.map((client) => client.destroy())]);
    },
  };
}
