/**
 * A transaction on one pooled connection, for the writes that use pg directly (multi-row inserts
 * from arrays, which drizzle does not build): committed when `work` resolves, rolled back when it
 * throws (or, with `commit: false`, always: a dry run that counts what it would change).
 */
import type pg from 'pg';

export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, options: { commit?: boolean } = {}): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query(options.commit === false ? 'rollback' : 'commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
