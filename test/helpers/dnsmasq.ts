/**
 * A real DNS server for the reverse-DNS tests: Debian's dnsmasq (package `dnsmasq-base`, which CI
 * installs) on 127.0.0.1 and a free port, in the foreground as a child of the test, answering
 * only from the records given (no upstream, no /etc/hosts). A missing dnsmasq fails the test that
 * asks for one, saying what to install: a skipped test would pass unseen.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';
import { existsSync } from 'node:fs';
import { ptrName } from '../../src/http/reverse-dns.js';

export const DNSMASQ_PATH = '/usr/sbin/dnsmasq';
/** dnsmasq reads its options and binds in milliseconds; this is the margin of a loaded CI machine. */
const START_TIMEOUT_MS = 10_000;

export interface DnsRecords {
  /** A name with its addresses: A/AAAA records and the PTR records back to the name. */
  hosts?: { name: string; addresses: string[] }[];
  /** A PTR record alone (`66.249.66.2` -> `crawl-66-249-66-2.googlebot.com`), for names that do not point back. */
  ptrs?: { address: string; name: string }[];
  /** Zones answered only from these records (NXDOMAIN for the rest) rather than refused for lack of an upstream. */
  localZones?: string[];
}

export interface Dnsmasq {
  /** `127.0.0.1:<port>`, for Resolver.setServers. */
  readonly server: string;
  stop(): Promise<void>;
}

/**
 * A port nobody holds now on 127.0.0.1 for both UDP and TCP (dnsmasq binds both), the kernel's
 * choice for TCP, for the server to bind next.
 */
export async function freeDnsPort(): Promise<number> {
  for (;;) {
    const tcp = net.createServer();
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    const { port } = tcp.address() as net.AddressInfo;
    const udp = dgram.createSocket('udp4');
    const udpFree = await new Promise<boolean>((resolve) => {
      udp.once('error', () => resolve(false));
      udp.bind(port, '127.0.0.1', () => resolve(true));
    });
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    await new Promise<void>((resolve) => tcp.close(() => resolve()));
    if (udpFree) return port;
  }
}

/** Starts tried at most: another process may take the port between its choice and dnsmasq's bind. */
const START_ATTEMPTS = 5;

/** A UDP socket that takes queries and never answers: a DNS server that is down but not refusing. */
export async function startSilentDnsServer(): Promise<Dnsmasq> {
  const socket = dgram.createSocket('udp4');
  socket.on('message', () => {});
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    stop: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

async function answers(server: string, probe: string): Promise<boolean> {
  const resolver = new dns.promises.Resolver({ timeout: 200, tries: 1 });
  resolver.setServers([server]);
  try {
    await resolver.resolve4(probe);
    return true;
  } catch {
    return false;
  }
}

export async function startDnsmasq(records: DnsRecords): Promise<Dnsmasq> {
  if (!existsSync(DNSMASQ_PATH)) {
    throw new Error(`${DNSMASQ_PATH} not found: the reverse-DNS integration tests need dnsmasq (Debian package dnsmasq-base)`);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(await freeDnsPort(), records);
    } catch (err) {
      // Only a port taken meanwhile is tried again; any other failure is the test's to see.
      if (attempt >= START_ATTEMPTS || !/Address already in use/.test((err as Error).message)) throw err;
    }
  }
}

async function startOn(port: number, records: DnsRecords): Promise<Dnsmasq> {
  const probe = 'dnsmasq-ready.test';
  const args = [
    '--keep-in-foreground',
    '--no-resolv',
    '--no-hosts',
    '--bind-interfaces',
    '--listen-address=127.0.0.1',
    `--port=${port}`,
    '--conf-file=/dev/null',
    // As root it would switch to `nobody` and need /run for its pid file; the test keeps it as is.
    '--user=root',
    '--pid-file=',
    '--log-facility=-',
    `--host-record=${probe},127.0.0.1`,
    ...['test', ...(records.localZones ?? [])].map((zone) => `--local=/${zone}/`),
    ...(records.hosts ?? []).map((h) => `--host-record=${[h.name, ...h.addresses].join(',')}`),
    ...(records.ptrs ?? []).map((p) => `--ptr-record=${ptrName(p.address)!},${p.name}`),
  ];
  const child: ChildProcess = spawn(DNSMASQ_PATH, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  const server = `127.0.0.1:${port}`;
  const stop = async () => {
    if (exitCode === undefined) child.kill('SIGTERM');
    await exited;
  };

  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await answers(server, probe))) {
    if (exitCode !== undefined) throw new Error(`dnsmasq exited (${String(exitCode)}): ${stderr.trim()}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`dnsmasq did not answer on ${server} within ${START_TIMEOUT_MS} ms: ${stderr.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { server, stop };
}
