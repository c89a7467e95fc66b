#!/usr/bin/env node
// The command-line entry point: the compiled CLI in dist/ (`npm run build`; `npm ci` and
// `npm pack` build it through the `prepare` script). Tests run the sources instead
// (test/helpers/cli-process.ts), so they never see a stale dist/.
import { fileURLToPath } from 'node:url';

const ENTRY = new URL('../dist/src/cli/entry.js', import.meta.url);

try {
  await import(ENTRY.href);
} catch (err) {
  // Only the entry itself missing means "not built"; a module missing deeper is a real error.
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes(fileURLToPath(ENTRY))) throw err;
  console.error('robots-audit: dist/ is not built: run `npm run build` in the package (npm ci does it)');
  process.exitCode = 1;
}
