/**
 * The process entry of `robots-audit`: what `bin/robots-audit.js` runs from dist/, and what tests
 * spawn from the sources (test/helpers/cli-process.ts). Everything else goes through `main`, which
 * in-process callers use directly.
 */
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
