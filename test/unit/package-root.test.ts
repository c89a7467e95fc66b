/**
 * Run-time files (the migrations) are found from the package's root, so the same module finds
 * them from `src/` under tsx, from `dist/src/` when compiled, and inside node_modules.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../../src/db/migrate.js';
import { packageRoot } from '../../src/package-root.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'robots-audit-package-root-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Creates `files` (relative paths) under a fresh directory; returns it. */
function tree(name: string, files: string[]): string {
  const root = path.join(tmp, name);
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), '{}');
  }
  return root;
}

const moduleUrl = (root: string, file: string) => pathToFileURL(path.join(root, file)).href;

describe('packageRoot', () => {
  it('is the same directory from the sources and from dist/', () => {
    const root = tree('built', ['package.json', 'src/db/migrate.ts', 'dist/src/db/migrate.js']);
    expect(packageRoot(moduleUrl(root, 'src/db/migrate.ts'))).toBe(root);
    expect(packageRoot(moduleUrl(root, 'dist/src/db/migrate.js'))).toBe(root);
  });

  it('inside node_modules, is the installed package, not the project that installed it', () => {
    const project = tree('project', ['package.json', 'node_modules/robots-audit/package.json', 'node_modules/robots-audit/dist/src/db/migrate.js']);
    expect(packageRoot(moduleUrl(project, 'node_modules/robots-audit/dist/src/db/migrate.js'))).toBe(path.join(project, 'node_modules/robots-audit'));
  });

  it('is this repository for this repository\'s modules, where migrations/ is', () => {
    expect(packageRoot(pathToFileURL(path.join(REPO, 'src/db/migrate.ts')).href)).toBe(REPO);
    expect(MIGRATIONS_FOLDER).toBe(path.join(REPO, 'migrations'));
    expect(fs.existsSync(path.join(MIGRATIONS_FOLDER, 'meta/_journal.json'))).toBe(true);
  });

  it('fails clearly when no package.json is above the module', () => {
    // The filesystem root has no package.json on any machine this runs on (checked, not assumed).
    expect(fs.existsSync('/package.json')).toBe(false);
    expect(() => packageRoot('file:///module.js')).toThrow(/no package\.json above \//);
  });
});
