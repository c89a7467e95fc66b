/**
 * `--allow-network <cidr>` and `--resolve <host=ip>` for commands that make outbound requests
 * (`fetch`, `alerts test`): one call's exceptions to the SSRF guard and name pins, for an
 * intranet audit or a test server on 127.0.0.1. They add to ROBOTS_AUDIT_ALLOW_NETWORKS and
 * ROBOTS_AUDIT_RESOLVE; a pin given here wins over a configured pin for the same name.
 */
import type { Command } from 'commander';
import type { AppConfig } from '../config/env.js';
import { parseResolvePins } from '../http/resolve-pins.js';
import { createSsrfGuard } from '../http/ssrf-guard.js';

export interface NetworkOptions {
  allowNetwork?: string[];
  resolve?: string[];
}

export interface NetworkSettings {
  allowNetworks: string[];
  resolvePins: string[];
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function addNetworkOptions(command: Command): Command {
  return command
    .option('--allow-network <cidr>', 'let the SSRF guard through to this network, e.g. 10.0.0.0/8 (repeatable)', collect)
    .option('--resolve <host=ip>', 'send a host name (or *.suffix) to a fixed address, like curl --resolve (repeatable)', collect);
}

/**
 * The configured networks and pins with this call's added. A malformed CIDR or pin throws an
 * Error that names it (before any request is made).
 */
export function networkSettings(options: NetworkOptions, config: AppConfig): NetworkSettings {
  const allowNetworks = [...config.ROBOTS_AUDIT_ALLOW_NETWORKS, ...(options.allowNetwork ?? [])];
  // The lookup takes the first exact pin of a name: this call's pins go first.
  const resolvePins = [...(options.resolve ?? []), ...config.ROBOTS_AUDIT_RESOLVE];
  createSsrfGuard(allowNetworks);
  parseResolvePins(resolvePins);
  return { allowNetworks, resolvePins };
}
