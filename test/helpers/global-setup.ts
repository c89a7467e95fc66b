/**
 * Integration global setup: fails fast, with the command to run, when Postgres or Redis is down;
 * then builds the migrated template database that `createTestDatabase()` clones (test-db.ts).
 */
import net from 'node:net';
import { config } from '../../src/config/env.js';
import { ensureTemplateDatabase } from './test-db.js';

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(2000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

export default async function setup(): Promise<void> {
  const postgres = new URL(config().DATABASE_URL);
  const postgresPort = Number(postgres.port || 5432);
  if (!(await reachable(postgres.hostname, postgresPort))) throw new Error(`PostgreSQL is not reachable on ${postgres.hostname}:${postgresPort} (see README: Services)`);
  if (!(await reachable('127.0.0.1', 6379))) throw new Error('Redis is not reachable on 127.0.0.1:6379 (see README: Services)');
  await ensureTemplateDatabase();
}
