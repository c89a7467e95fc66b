/**
 * Preloaded into a CLI child process (`--import`): when the process exits, writes the npm
 * packages it loaded as a JSON array to the file named by ROBOTS_AUDIT_LOADED_PACKAGES_FILE.
 * What it sees is CommonJS's module cache: a package loaded only as ES modules does not show,
 * but the CommonJS packages under the heavy ones do (bullmq → ioredis, drizzle-orm → pg, and
 * undici, pino, commander themselves).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';

const OUTPUT = process.env.ROBOTS_AUDIT_LOADED_PACKAGES_FILE;
const require = createRequire(import.meta.url);

/** `/x/node_modules/@scope/name/lib/a.js` → `@scope/name`; the innermost node_modules wins. */
export function packageOfPath(file: string): string | null {
  const match = /.*[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file);
  return match ? match[1]!.replace('\\', '/') : null;
}

if (OUTPUT) {
  process.on('exit', () => {
    const packages = new Set(Object.keys(require.cache).map(packageOfPath).filter((p) => p !== null));
    fs.writeFileSync(OUTPUT, JSON.stringify([...packages].sort()));
  });
}
