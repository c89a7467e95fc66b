/**
 * Files the package reads at run time (its migrations) sit beside package.json, not beside the
 * module reading them: the same module runs from `src/` under tsx and from `dist/src/` when
 * compiled, one directory deeper. So such paths are found from the package's root, which is
 * what Node itself calls a package: the nearest directory above a module with a package.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The root directory of the package holding the module at `moduleUrl` (pass `import.meta.url`). */
export function packageRoot(moduleUrl: string): string {
  const start = path.dirname(fileURLToPath(moduleUrl));
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}
