/**
 * Hosts of a test cluster on one machine: each host is a network namespace (`ip netns`) with one
 * veth cable into a bridge, the cluster's switch, in the machine's own namespace. The bridge has
 * the address `.254` of the cluster's /24, which is where the test itself (the operator, the
 * webhook receiver: "the internet") sits. Nothing here uses 127.0.0.1: every process of the
 * cluster talks to the others by the addresses of their namespaces, as on separate machines.
 *
 * Faults are made with what the kernel offers without iptables or netem (neither exists on the
 * CI machine): a blackhole rule drops what one host sends to some addresses, and one on the other
 * side what those addresses send back (a partition between two addresses, not two hosts), and the bridge end of a host's cable set down cuts
 * the host off from everything (a pulled cable). Needs root (CI runs as root).
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess, SpawnOptions } from 'node:child_process';

/** Runs `ip` with these arguments and returns its output; throws with its stderr when it fails. */
export function ip(args: readonly string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** `ip` where failing is expected and harmless (deleting what may not be there). */
function ipQuiet(args: readonly string[]): void {
  try {
    ip(args);
  } catch {
    // gone already
  }
}

export interface Host {
  /** Short name (`data`, `w1`, ...). */
  name: string;
  /** The namespace's name. */
  ns: string;
  /** The host's first address; `addresses` has them all. */
  address: string;
  addresses: string[];
  /** The bridge end of the host's cable, in the machine's namespace. */
  cable: string;
}

export interface Network {
  /** `10.231.N`: the cluster's /24, without its last byte. */
  subnet: string;
  /** The bridge's address: where the test process is reachable from every host. */
  gateway: string;
  hosts: Map<string, Host>;
  addHost(name: string, lastBytes: number[]): Host;
  /** Spawns a program inside a host's namespace (the child's pid is the program's own: `ip netns exec` execs it). */
  spawnIn(host: Host, command: string, args: readonly string[], options?: SpawnOptions): ChildProcess;
  /** Drops everything between `host` and these addresses, both ways, until `heal`. */
  cutOff(host: Host, from: readonly string[]): void;
  /** Pulls the host's cable out of the switch (every address, every direction). */
  unplug(host: Host): void;
  /** Undoes `cutOff` and `unplug` for a host. */
  heal(host: Host): void;
  /** Process ids of every process in the host's namespace. */
  pids(host: Host): number[];
  /** SIGKILL to every process of the host: a machine that lost its power. */
  killHost(host: Host): void;
  /** Everything removed: processes killed, namespaces and the bridge deleted. */
  destroy(): void;
}

/**
 * A fresh network `10.231.<index>.0/24` (index 1-250), removing first whatever a crashed earlier
 * run with the same index left behind.
 */
export function createNetwork(index: number): Network {
  if (!Number.isInteger(index) || index < 1 || index > 250) throw new Error(`network index ${index}: 1 to 250`);
  const subnet = `10.231.${index}`;
  const bridge = `rabr${index}`;
  const prefix = `ra${index}-`;
  const hosts = new Map<string, Host>();
  const cuts = new Map<string, { ns: string; selector: string[] }[]>();

  const nsPids = (ns: string): number[] => {
    try {
      return ip(['netns', 'pids', ns])
        .split('\n')
        .filter(Boolean)
        .map(Number);
    } catch {
      return [];
    }
  };
  const killNs = (ns: string) => {
    for (const pid of nsPids(ns)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // exited meanwhile
      }
    }
  };
  const removeLeftovers = () => {
    const existing = ip(['netns', 'list'])
      .split('\n')
      .map((l) => l.split(' ')[0]!)
      .filter((n) => n.startsWith(prefix));
    for (const ns of existing) {
      killNs(ns);
      ipQuiet(['netns', 'del', ns]);
    }
    ipQuiet(['link', 'del', bridge]);
  };

  removeLeftovers();
  ip(['link', 'add', bridge, 'type', 'bridge']);
  ip(['addr', 'add', `${subnet}.254/24`, 'dev', bridge]);
  ip(['link', 'set', bridge, 'up']);

  const network: Network = {
    subnet,
    gateway: `${subnet}.254`,
    hosts,
    addHost(name, lastBytes) {
      const ns = `${prefix}${name}`;
      // Interface names have 15 bytes at most: `rv<index>-<name>`.
      const cable = `rv${index}-${name}`.slice(0, 15);
      ip(['netns', 'add', ns]);
      ip(['link', 'add', cable, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
      ip(['link', 'set', cable, 'master', bridge, 'up']);
      const addresses = lastBytes.map((b) => `${subnet}.${b}`);
      for (const a of addresses) ip(['-n', ns, 'addr', 'add', `${a}/24`, 'dev', 'eth0']);
      ip(['-n', ns, 'link', 'set', 'eth0', 'up']);
      ip(['-n', ns, 'link', 'set', 'lo', 'up']);
      const host: Host = { name, ns, address: addresses[0]!, addresses, cable };
      hosts.set(name, host);
      return host;
    },
    spawnIn(host, command, args, options = {}) {
      return spawn('ip', ['netns', 'exec', host.ns, command, ...args], options);
    },
    cutOff(host, from) {
      const added = cuts.get(host.name) ?? [];
      for (const address of from) {
        // A rule, not a route: the other host keeps talking to this one from its other addresses
        // (Postgres on the data host's first address while its Redis address is cut off).
        const rule = (ns: string, selector: string[]) => {
          ip(['-n', ns, 'rule', 'add', ...selector, 'blackhole']);
          added.push({ ns, selector });
        };
        rule(host.ns, ['to', address]);
        const other = [...hosts.values()].find((h) => h.addresses.includes(address));
        // The other side too: its replies must not get through either.
        if (other) for (const own of host.addresses) rule(other.ns, ['from', address, 'to', own]);
      }
      cuts.set(host.name, added);
    },
    unplug(host) {
      ip(['link', 'set', host.cable, 'down']);
    },
    heal(host) {
      for (const { ns, selector } of cuts.get(host.name) ?? []) ipQuiet(['-n', ns, 'rule', 'del', ...selector, 'blackhole']);
      cuts.delete(host.name);
      ip(['link', 'set', host.cable, 'up']);
    },
    pids: (host) => nsPids(host.ns),
    killHost: (host) => killNs(host.ns),
    destroy() {
      for (const host of hosts.values()) killNs(host.ns);
      removeLeftovers();
    },
  };
  return network;
}
