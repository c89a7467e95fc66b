/**
 * The configuration of one command run: the environment with the caller's overrides layered on
 * it (CliIo.env: in-process callers, tests, the demo), checked by loadConfig. The CLI's one read
 * of the environment; light (zod only), so that commands that need no pipeline load no more.
 */
import { loadConfig } from '../config/env.js';
import type { AppConfig } from '../config/env.js';
import type { CliIo } from './io.js';

export function commandConfig(io: Pick<CliIo, 'env'>, overrides: Record<string, string> = {}): AppConfig {
  // eslint-disable-next-line no-restricted-properties -- the CLI's one read of the environment, validated by loadConfig
  return loadConfig({ ...process.env, ...io.env }, overrides);
}
