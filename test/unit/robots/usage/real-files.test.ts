/**
 * Usage preferences of real robots.txt files (test/fixtures/usage-preferences: 55 files from 42
 * public repositories, each with its provenance, and the preferences worked out by hand under
 * the decisions of docs/usage-preferences.md), as the night and `check` read them: as the named
 * crawler, through its followed group (src/crawlers/usage-verdicts.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt, USAGE_PURPOSES } from '../../../../src/robots/index.js';
import type { UsagePreference, UsagePurpose } from '../../../../src/robots/index.js';
import { usageAsCrawler } from '../../../../src/crawlers/index.js';

const FOLDER = path.join(import.meta.dirname, '../../../fixtures/usage-preferences');

interface Entry {
  file: string;
  source: { repo: string; path: string; commit: string; url: string };
  forms: string[];
  expected: ({ agent: string; url: string } & Record<UsagePurpose, UsagePreference>)[];
}

const manifest = JSON.parse(fs.readFileSync(path.join(FOLDER, 'manifest.json'), 'utf8')) as Entry[];

describe('the collection', () => {
  it('holds at least 50 real files, each traced to a repository and commit, none twice', () => {
    expect(manifest.length).toBeGreaterThanOrEqual(50);
    for (const e of manifest) expect(e.source.commit, e.file).toMatch(/^[0-9a-f]{40}$/);
    const texts = manifest.map((e) => fs.readFileSync(path.join(FOLDER, 'files', e.file), 'latin1'));
    expect(new Set(texts).size).toBe(texts.length);
  });
});

describe.each(manifest.map((e) => [e.file, e] as const))('%s', (_file, entry) => {
  const robots = parseRobotsTxt(fs.readFileSync(path.join(FOLDER, 'files', entry.file)));
  it.each(entry.expected.map((c) => [c.agent, c.url, c] as const))('%s %s', (agent, url, expected) => {
    const { usage } = usageAsCrawler(robots, url, agent);
    expect(Object.fromEntries(USAGE_PURPOSES.map((p) => [p, usage[p].preference]))).toEqual(Object.fromEntries(USAGE_PURPOSES.map((p) => [p, expected[p]])));
  });
});
