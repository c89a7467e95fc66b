/**
 * Bodies by content: a robots.txt that did not change since last night is not stored again; its
 * nights reference the same row. Written by the night store (night-store.ts); read here.
 */
import { eq } from 'drizzle-orm';
import type { Executor } from './client.js';
import { bodies } from './schema.js';

export type Body = typeof bodies.$inferSelect;

export function createBodiesRepo(db: Executor) {
  return {
    async getBody(id: number): Promise<Buffer | null> {
      const rows = await db.select({ content: bodies.content }).from(bodies).where(eq(bodies.id, id)).limit(1);
      return rows[0]?.content ?? null;
    },

    /** A body with its parse summary, by id. */
    async getBodyRow(id: number): Promise<Body | null> {
      const rows = await db.select().from(bodies).where(eq(bodies.id, id)).limit(1);
      return rows[0] ?? null;
    },

    async findBySha256(sha256: Buffer): Promise<Body | null> {
      const rows = await db.select().from(bodies).where(eq(bodies.sha256, sha256)).limit(1);
      return rows[0] ?? null;
    },
  };
}

export type BodiesRepo = ReturnType<typeof createBodiesRepo>;
