/**
 * Bodies by content hash: a robots.txt that did not change since last night is not stored again;
 * its snapshot points at the same row.
 */
import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Executor } from './client.js';
import { bodies } from './schema.js';

export function sha256Of(content: Uint8Array): Buffer {
  return createHash('sha256').update(content).digest();
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function createBodiesRepo(db: Executor) {
  return {
    /** Stores `content` unless a body with the same hash exists; returns the hash (32 bytes). */
    async putBody(content: Uint8Array): Promise<Buffer> {
      const sha256 = sha256Of(content);
      // Most nights the body is already there: look first, so its bytes do not cross the wire.
      const found = await db.select({ sha256: bodies.sha256 }).from(bodies).where(eq(bodies.sha256, sha256)).limit(1);
      if (found.length === 0) {
        await db
          .insert(bodies)
          .values({ sha256, content: asBuffer(content), size: content.byteLength })
          .onConflictDoNothing();
      }
      return sha256;
    },

    async getBody(sha256: Buffer): Promise<Buffer | null> {
      const rows = await db.select({ content: bodies.content }).from(bodies).where(eq(bodies.sha256, sha256)).limit(1);
      return rows[0]?.content ?? null;
    },
  };
}

export type BodiesRepo = ReturnType<typeof createBodiesRepo>;
