/**
 * drizzle-kit reads `migrations/meta`: the journal's order, and a chain of snapshots where each
 * points at the one before (`prevId`). Migrations written on parallel branches both point at the
 * same parent, and then `drizzle-kit generate` refuses to run ("a collision"), so the next schema
 * change cannot be generated. Checked here so a merge that breaks the chain fails the tests.
 * `npx drizzle-kit generate` on a tree that passes says "No schema changes": the last snapshot is
 * the whole schema of src/db/schema.ts.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const META = join(import.meta.dirname, '../../../migrations/meta');
const journal = JSON.parse(readFileSync(join(META, '_journal.json'), 'utf8')) as { entries: { idx: number; when: number; tag: string }[] };
const snapshotOf = (tag: string) => JSON.parse(readFileSync(join(META, `${tag.slice(0, 4)}_snapshot.json`), 'utf8')) as { id: string; prevId: string };

describe('migrations/meta', () => {
  it('the journal numbers its entries in order and their times only grow (the migrator applies what is newer than the last applied)', () => {
    journal.entries.forEach((entry, i) => {
      expect(entry.idx).toBe(i);
      if (i > 0) expect(entry.when).toBeGreaterThan(journal.entries[i - 1]!.when);
    });
  });

  it('every migration has one snapshot, and every snapshot a migration', () => {
    const snapshots = readdirSync(META).filter((f) => f.endsWith('_snapshot.json')).sort();
    expect(snapshots).toEqual(journal.entries.map((e) => `${e.tag.slice(0, 4)}_snapshot.json`).sort());
  });

  it('each snapshot points at the one before it in the journal: one chain, no collision', () => {
    const ids = journal.entries.map((e) => snapshotOf(e.tag));
    ids.forEach((snapshot, i) => {
      expect(snapshot.prevId, journal.entries[i]!.tag).toBe(i === 0 ? '00000000-0000-0000-0000-000000000000' : ids[i - 1]!.id);
    });
    expect(new Set(ids.map((s) => s.id)).size).toBe(ids.length);
  });
});
