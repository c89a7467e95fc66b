/**
 * The CLI as a child process, run from the sources: what tests spawn instead of
 * `bin/robots-audit.js`, which runs the compiled dist/ and could be stale (or absent) while the
 * sources under test have changed. tsx compiles the sources on the fly, as vitest does.
 */
import { fileURLToPath } from 'node:url';

/** The source entry of the CLI (`src/cli/entry.ts`), an absolute path. */
export const CLI_SOURCE_ENTRY = fileURLToPath(new URL('../../src/cli/entry.ts', import.meta.url));

/** Executable and arguments that run `robots-audit <args...>` from the sources: `spawn(...cliProcess(args))`. */
export function cliProcess(args: readonly string[]): [command: string, args: string[]] {
  return [process.execPath, ['--import', 'tsx', CLI_SOURCE_ENTRY, ...args]];
}
