/**
 * docker-compose.yml, read with a real YAML parser (anchors and merge keys resolved as Compose
 * resolves them): the services, what each runs, its environment (checked against the app's own
 * configuration schema), the start order, the health checks, and that workers can be scaled.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { COMMAND_MODULES } from '../../../src/cli/command-table.js';
import { envSchema, loadConfig } from '../../../src/config/env.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

interface Service {
  image?: string;
  build?: string | { context: string };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  container_name?: string;
  restart?: string;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
  volumes?: string[];
}

const compose = parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const APP = ['migrate', 'scheduler', 'worker'] as const;
const COMMAND_NAMES = COMMAND_MODULES.flatMap((m) => m.commands.map((c) => c.name));

/** Compose durations as used here: `40s`, `1m30s`. */
function seconds(duration: string): number {
  const match = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(duration);
  if (!match || duration === '') throw new Error(`not a duration: ${duration}`);
  return Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0);
}

describe('docker-compose.yml: services', () => {
  it('has Postgres, Redis and the four app processes, nothing else', () => {
    expect(Object.keys(services).sort()).toEqual(['dashboard', 'migrate', 'postgres', 'redis', 'scheduler', 'worker']);
  });

  it('issue 17: the dashboard runs `serve` on every address of its container, the token from the environment, published on 127.0.0.1:8080 by default', () => {
    const dashboard = services.dashboard!;
    expect(dashboard.command).toEqual(['serve', '--host', '0.0.0.0', '--port', '8080']);
    expect(COMMAND_NAMES).toContain('serve');
    expect(dashboard.build).toBe('.');
    expect(dashboard.image).toBe(services.worker!.image);
    expect(dashboard.environment).toEqual({ ...services.worker!.environment, ROBOTS_AUDIT_DASHBOARD_TOKEN: '${ROBOTS_AUDIT_DASHBOARD_TOKEN:-}' });
    expect(dashboard.ports).toEqual(['${ROBOTS_AUDIT_DASHBOARD_PUBLISH:-127.0.0.1:8080}:8080']);
    expect(dashboard.restart).toBe('unless-stopped');
    expect(dashboard.depends_on).toEqual(services.worker!.depends_on);
    expect(dashboard.healthcheck!.test.at(-1)).toContain("fetch('http://127.0.0.1:8080/login')");
    // A token as Compose would pass it: the schema accepts one of 16 characters or more.
    expect(loadConfig({ ...dashboard.environment, ROBOTS_AUDIT_DASHBOARD_TOKEN: 'x'.repeat(16) }).ROBOTS_AUDIT_DASHBOARD_TOKEN).toBe('x'.repeat(16));
  });

  it('keeps Postgres and Redis as the tests and the defaults expect them', () => {
    expect(services.postgres).toMatchObject({
      image: 'postgres:16',
      environment: { POSTGRES_USER: 'postgres', POSTGRES_HOST_AUTH_METHOD: 'trust', POSTGRES_DB: 'test' },
      ports: ['127.0.0.1:5432:5432'],
      healthcheck: { test: ['CMD-SHELL', 'pg_isready -U postgres -d test'] },
    });
    expect(services.redis).toMatchObject({
      image: 'redis:7',
      // What docs/operations.md asks of a Redis, so the worker and the scheduler start without a warning.
      command: ['redis-server', '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec', '--maxmemory-policy', 'noeviction'],
      ports: ['127.0.0.1:6379:6379'],
      volumes: ['redisdata:/data'],
      healthcheck: { test: ['CMD', 'redis-cli', 'ping'] },
    });
  });

  it.each(APP)('%s is built from this repository as one shared image', (name) => {
    expect(services[name]!.build).toBe('.');
    expect(services[name]!.image).toBe(services.worker!.image);
  });

  it.each([
    ['migrate', ['db', 'migrate']],
    ['scheduler', ['scheduler']],
    ['worker', ['worker']],
  ])('%s runs `robots-audit %s`, a command the CLI has', (name, command) => {
    expect(services[name]!.command).toEqual(command);
    expect(COMMAND_NAMES).toContain(command[0]);
  });

  it('migrate is one-shot; scheduler and worker restart', () => {
    expect(services.migrate!.restart).toBe('no');
    expect(services.scheduler!.restart).toBe('unless-stopped');
    expect(services.worker!.restart).toBe('unless-stopped');
  });
});

describe('docker-compose.yml: environment', () => {
  it.each(APP)('%s: only variables the app reads, valid for its schema', (name) => {
    const environment = services[name]!.environment ?? {};
    expect(Object.keys(environment).filter((key) => !(key in envSchema.shape))).toEqual([]);
    expect(() => loadConfig(environment)).not.toThrow();
  });

  it.each(APP)('%s: reaches Postgres and Redis by their service names and ports', (name) => {
    const config = loadConfig(services[name]!.environment ?? {});
    const database = new URL(config.DATABASE_URL);
    const redis = new URL(config.REDIS_URL);
    expect([database.protocol, database.hostname, database.port || '5432', database.pathname]).toEqual(['postgres:', 'postgres', '5432', `/${services.postgres!.environment!.POSTGRES_DB}`]);
    expect([redis.protocol, redis.hostname, redis.port || '6379']).toEqual(['redis:', 'redis', '6379']);
  });
});

describe('docker-compose.yml: start order and health', () => {
  it('migrate waits for a healthy Postgres', () => {
    expect(services.migrate!.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
  });

  it.each(['scheduler', 'worker'])('%s waits for healthy Postgres and Redis and a successful migrate', (name) => {
    expect(services[name]!.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
      migrate: { condition: 'service_completed_successfully' },
    });
  });

  it.each(['postgres', 'redis', 'scheduler', 'worker'])('%s has a health check', (name) => {
    const test = services[name]!.healthcheck?.test;
    expect(Array.isArray(test) && ['CMD', 'CMD-SHELL'].includes(test[0]!) && test.length > 1).toBe(true);
  });

  it.each([
    ['scheduler', 'ROBOTS_AUDIT_SCHEDULER_METRICS_PORT'],
    ['worker', 'ROBOTS_AUDIT_METRICS_PORT'],
  ] as const)('%s: the health check asks /healthz on the port the process listens on (%s)', (name, setting) => {
    const service = services[name]!;
    const port = loadConfig(service.environment ?? {})[setting];
    expect(port).toBeGreaterThan(0);
    const [kind, ...args] = service.healthcheck!.test;
    expect([kind, args[0], args[1]]).toEqual(['CMD', 'node', '-e']);
    // The image runs Node 24: a global fetch; an error or a non-2xx exits 1.
    expect(args[2]).toBe(`fetch('http://127.0.0.1:${port}/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`);
  });

  it.each(['scheduler', 'worker'])('%s gets longer than its shutdown grace before Docker kills it', (name) => {
    const service = services[name]!;
    const graceMs = loadConfig(service.environment ?? {}).ROBOTS_AUDIT_SHUTDOWN_GRACE_MS;
    expect(seconds(service.stop_grace_period ?? '10s') * 1000).toBeGreaterThan(graceMs);
  });
});

describe('docker-compose.yml: scaling', () => {
  it.each(APP)('%s has no container name and publishes no port (so --scale worker=N works)', (name) => {
    expect(services[name]!.container_name).toBeUndefined();
    expect(services[name]!.ports).toBeUndefined();
  });
});

describe('seconds', () => {
  it.each([
    ['40s', 40],
    ['1m30s', 90],
    ['2m', 120],
  ])('%s is %i s', (text, value) => expect(seconds(text)).toBe(value));

  it('refuses what it cannot read', () => {
    expect(() => seconds('')).toThrow();
    expect(() => seconds('40')).toThrow();
  });
});
