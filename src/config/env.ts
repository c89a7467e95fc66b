/**
 * The one place that reads the process environment (house style, habit 6). Everything else
 * receives a typed `AppConfig`. Every limit has its default here, beside the rule it implements.
 */
import { z } from 'zod';

const seconds = (list: string) =>
  list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => {
      const n = Number(s);
      if (!Number.isFinite(n) || n < 0) throw new Error(`not a number of seconds: "${s}"`);
      return n;
    });

const csv = (list: string) =>
  list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

export const envSchema = z.object({
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/test'),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  /** BullMQ key prefix; tests use a unique one per file. */
  ROBOTS_AUDIT_QUEUE_PREFIX: z.string().default('robots-audit'),
  ROBOTS_AUDIT_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  // --- the fetcher (src/http) ---
  /** User-Agent header: names the product and a URL for site owners. */
  ROBOTS_AUDIT_USER_AGENT: z
    .string()
    .default('robots-audit/0.1 (+https://github.com/robots-audit/robots-audit; robots.txt monitoring)'),
  /** at least five hops must be followed. */
  ROBOTS_AUDIT_MAX_REDIRECTS: int(5, 0),
  /** R-18 / D-6: bytes kept of a body; the rest is not read. */
  ROBOTS_AUDIT_MAX_BODY_BYTES: int(500 * 1024, 1),
  /** Cap on bytes produced by decompression (a gzip bomb must not exhaust memory). */
  ROBOTS_AUDIT_MAX_DECODED_BYTES: int(500 * 1024, 1),
  ROBOTS_AUDIT_CONNECT_TIMEOUT_MS: int(10_000, 1),
  ROBOTS_AUDIT_HEADERS_TIMEOUT_MS: int(15_000, 1),
  ROBOTS_AUDIT_BODY_TIMEOUT_MS: int(20_000, 1),
  ROBOTS_AUDIT_TOTAL_TIMEOUT_MS: int(45_000, 1),
  /** default cache lifetime of a robots.txt, seconds. */
  ROBOTS_AUDIT_DEFAULT_CACHE_SECONDS: int(24 * 3600, 0),
  /** SSRF guard exceptions: comma-separated CIDRs. */
  ROBOTS_AUDIT_ALLOW_NETWORKS: z.string().default('').transform(csv),
  /** Name pins like curl --resolve: `host=ip` or `*.suffix=ip`, comma-separated. */
  ROBOTS_AUDIT_RESOLVE: z.string().default('').transform(csv),

  // --- the fetch worker ---
  /** retry schedule within a run for 5xx and network failures, seconds. */
  ROBOTS_AUDIT_RETRY_DELAYS: z.string().default('30,120,600').transform(seconds),
  /** 503 is retried sooner: each delay is divided by this factor. */
  ROBOTS_AUDIT_RETRY_503_FACTOR: z.coerce.number().min(1).default(4),
  /** Upper bound on a server's Retry-After that we honour, seconds. */
  ROBOTS_AUDIT_RETRY_AFTER_CAP: z.coerce.number().min(0).default(3600),
  ROBOTS_AUDIT_FETCH_CONCURRENCY: int(32, 1),
  /** Global rate limit: at most this many fetches per second across all workers (0: none). */
  ROBOTS_AUDIT_FETCH_RATE_PER_SECOND: int(50, 0),
  ROBOTS_AUDIT_DIFF_CONCURRENCY: int(4, 1),
  ROBOTS_AUDIT_ALERT_CONCURRENCY: int(4, 1),
  /** How long a fetch job waits before trying a host that another fetch is using. */
  ROBOTS_AUDIT_HOST_BUSY_DELAY_MS: int(500, 1),
  /** Webhook delivery timeout, milliseconds. */
  ROBOTS_AUDIT_WEBHOOK_TIMEOUT_MS: int(15_000, 1),
  /** Base of the exponential backoff between webhook delivery attempts (2, 4, 8, ... s); tests lower it. */
  ROBOTS_AUDIT_ALERT_BACKOFF_MS: int(2_000, 1),
  /** Deadline to finish in-flight jobs on SIGTERM, milliseconds. */
  ROBOTS_AUDIT_SHUTDOWN_GRACE_MS: int(30_000, 0),

  // --- nightly runs (issue 4) ---
  ROBOTS_AUDIT_SCHEDULE: z.string().default('0 3 * * *'),
  ROBOTS_AUDIT_TIMEZONE: z.string().default('UTC'),
});

export type AppConfig = z.infer<typeof envSchema>;

let cached: AppConfig | undefined;

/** Parses the environment once; a bad value is a clear startup error, not a later crash. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Record<keyof AppConfig, string>> = {}): AppConfig {
  const result = envSchema.safeParse({ ...env, ...overrides });
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}

/** The process-wide configuration, read on first use. */
export function config(): AppConfig {
  cached ??= loadConfig();
  return cached;
}
