/**
 * The one place that reads the process environment (house style, habit 6). Everything else
 * receives a typed `AppConfig`. Every limit has its default here, beside the rule it implements.
 */
import { z } from 'zod';
import { FLAPPING_SETTLE_NIGHTS, FLAPPING_WINDOW_NIGHTS } from '../policy/flapping.js';
import { DEFAULT_RUN_HOLD_SECONDS } from '../policy/run-hold.js';
import type { RetrySchedule } from '../policy/retry-schedule.js';
import { redisTargetOf, RedisUrlError } from './redis-options.js';

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

/** The dashboard token's shortest length (ROBOTS_AUDIT_DASHBOARD_TOKEN). */
export const DASHBOARD_TOKEN_MIN_LENGTH = 16;
/** How long a dashboard login lasts, seconds (ROBOTS_AUDIT_DASHBOARD_SESSION_SECONDS): a working day. */
export const DASHBOARD_SESSION_SECONDS = 12 * 3600;
/** Failed dashboard logins a client may make per minute (ROBOTS_AUDIT_DASHBOARD_LOGIN_FAILURES). */
export const DASHBOARD_LOGIN_FAILURES = 5;
/** CSV downloads the dashboard streams at once (ROBOTS_AUDIT_DASHBOARD_DOWNLOADS). */
export const DASHBOARD_DOWNLOADS = 2;
/** How long a dashboard page waits for what it computes from a site's bytes, ms (ROBOTS_AUDIT_DASHBOARD_COMPUTE_MS; src/web/page-compute.ts). */
export const DASHBOARD_COMPUTE_MS = 5_000;
/** Threads the dashboard computes in (ROBOTS_AUDIT_DASHBOARD_COMPUTE_THREADS). */
export const DASHBOARD_COMPUTE_THREADS = 1;

/**
 * What `worker` and `scheduler` do at start about a Redis unsafe for the queues
 * (ROBOTS_AUDIT_REDIS_CHECK; src/health/redis-check.ts): `strict` refuses one that may evict keys
 * or keeps nothing on disk; `standard` refuses eviction and warns of no persistence (the product
 * re-enqueues from Postgres what a restart forgot); `warn` only warns; `off` does not look.
 */
export const REDIS_CHECK_MODES = ['strict', 'standard', 'warn', 'off'] as const;
export type RedisCheckMode = (typeof REDIS_CHECK_MODES)[number];

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
/** A TCP port; 0 means the listener is off. */
const port = (def: number) => z.coerce.number().int().min(0).max(65_535).default(def);

export const envSchema = z.object({
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/test'),
  /**
   * `redis://` or `rediss://` (read by ioredis), or a Sentinel-managed Redis:
   * `redis+sentinel://[user:password@]host:26379,host:26379/master-name[/db]` (src/config/redis-options.ts).
   */
  REDIS_URL: z
    .string()
    .default('redis://127.0.0.1:6379')
    .superRefine((url, ctx) => {
      try {
        redisTargetOf(url);
      } catch (err) {
        if (!(err instanceof RedisUrlError)) throw err;
        ctx.addIssue({ code: 'custom', message: err.message });
      }
    }),
  /** At start, workers and the scheduler read Redis' eviction policy and persistence and refuse or warn (REDIS_CHECK_MODES). */
  ROBOTS_AUDIT_REDIS_CHECK: z.enum(REDIS_CHECK_MODES).default('standard'),
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
  /** DNS answers are reused for their TTL, at most this long, seconds (src/http/dns-resolver.ts). */
  ROBOTS_AUDIT_DNS_CACHE_SECONDS: int(300, 0),
  /** A name that does not resolve is not asked again for this long, seconds. */
  ROBOTS_AUDIT_DNS_NEGATIVE_CACHE_SECONDS: int(10, 0),
  /** Names whose answers are kept at most (the oldest go first). */
  ROBOTS_AUDIT_DNS_CACHE_ENTRIES: int(10_000, 1),

  // --- log imports: who a crawler is, and what is kept (docs/compliance.md) ---
  /**
   * The DNS servers crawler identities are checked with (forward-confirmed reverse DNS),
   * comma-separated `host` or `host:port`; empty: the system's (/etc/resolv.conf).
   */
  ROBOTS_AUDIT_VERIFY_DNS_SERVERS: z.string().default('').transform(csv),
  /** Per query attempt, milliseconds: a dead resolver costs seconds, not the import. */
  ROBOTS_AUDIT_VERIFY_DNS_TIMEOUT_MS: int(2_000, 1),
  /** Addresses whose answers are kept (a log's crawlers come from a few thousand). */
  ROBOTS_AUDIT_VERIFY_DNS_CACHE_ENTRIES: int(50_000, 1),
  /** Client addresses kept with a finding (a violation, a spoofed claim) are cleared by `prune` after this many days; 0 keeps them. */
  ROBOTS_AUDIT_LOG_IP_RETENTION_DAYS: int(30, 0),

  // --- the fetch worker ---
  /** retry schedule within a run for 5xx and network failures, seconds. */
  ROBOTS_AUDIT_RETRY_DELAYS: z.string().default('30,120,600').transform(seconds),
  /** 503 is retried sooner: each delay is divided by this factor. */
  ROBOTS_AUDIT_RETRY_503_FACTOR: z.coerce.number().min(1).default(4),
  /** Upper bound on a server's Retry-After that we honour, seconds. */
  ROBOTS_AUDIT_RETRY_AFTER_CAP: z.coerce.number().min(0).default(3600),
  /**
   * A run waits for one site's retry only when it is due within this many seconds of being
   * scheduled (src/policy/run-hold.ts); a longer wait holds that site only: the run ends for the
   * others and the site is pending until its retry. 0: a run never waits for a retry.
   */
  ROBOTS_AUDIT_RUN_HOLD_SECONDS: z.coerce.number().min(0).default(DEFAULT_RUN_HOLD_SECONDS),
  /**
   * Fetches in flight at once per worker process: the bound on open sockets. Sized for real
   * latency: at ~300 ms a robots.txt, 1,024 in flight allow ~3,400 sites/s, and a night of 1,000
   * sites goes out in one wave instead of two (docs/benchmarks.md).
   */
  ROBOTS_AUDIT_FETCH_CONCURRENCY: int(1024, 1),
  /**
   * Body bytes every fetch in flight may hold. Past them a body needs one of the large-body slots
   * below, and waits for one (its socket held back by TCP flow control). Real robots.txt are a few
   * KiB: 96% of the 3,000 real files in test/fixtures/corpus fit in the 64 KiB default.
   */
  ROBOTS_AUDIT_SMALL_BODY_BYTES: int(64 * 1024, 1),
  /**
   * Fetches at once per worker process whose body has grown past SMALL_BODY_BYTES. With the two
   * above they bound the body bytes a worker holds while fetching: 1,024 x 64 KiB + 64 x 500 KiB,
   * about 95 MiB, where every fetch holding up to MAX_BODY_BYTES would be 500 MiB.
   */
  ROBOTS_AUDIT_LARGE_BODY_FETCHES: int(64, 1),
  /** Optional global rate limit: at most this many fetches started per second across all workers (0: none). */
  ROBOTS_AUDIT_FETCH_RATE_PER_SECOND: int(0, 0),
  /** Sites per batch job: a run is queued as batches of this many sites. */
  ROBOTS_AUDIT_BATCH_SIZE: int(100, 1),
  /** Batch jobs at once per worker process (their fetches share FETCH_CONCURRENCY). */
  ROBOTS_AUDIT_BATCH_CONCURRENCY: int(16, 1),
  /** A site still fetching this long after its batch started goes on in a site job of its own. */
  ROBOTS_AUDIT_BATCH_DEADLINE_MS: int(20_000, 1),
  /**
   * How far V8 lets a worker's heap grow past what the last full collection kept, in percent (0:
   * V8's own choice, up to 300% with much memory). A worker keeps ~60 MB live, but allocates fast
   * enough that V8 would grow its heap towards 4 times that before collecting; 30 keeps RSS flat
   * under 300 MB for a few percent of CPU (docs/benchmarks.md).
   */
  ROBOTS_AUDIT_WORKER_HEAP_GROWTH_PERCENT: int(30, 0),
  /** Site jobs at once per worker process (retries, sites handed over by a batch): they mostly wait. */
  ROBOTS_AUDIT_SITE_CONCURRENCY: int(256, 1),
  /** Nights stored per transaction, at most. */
  ROBOTS_AUDIT_WRITE_BATCH: int(500, 1),
  /** How long a finished night waits for others to share its transaction, milliseconds. */
  ROBOTS_AUDIT_WRITE_DELAY_MS: int(25, 0),
  ROBOTS_AUDIT_ALERT_CONCURRENCY: int(4, 1),
  /**
   * Base of the exponential backoff of batch and site jobs that failed on Postgres or Redis (not
   * on a website: those follow ROBOTS_AUDIT_RETRY_DELAYS), milliseconds: 5, 10, 20, ... s.
   */
  ROBOTS_AUDIT_JOB_BACKOFF_MS: int(5_000, 1),
  /**
   * How long a job stays a worker's without that worker renewing it (BullMQ's lock), and how
   * often workers look for jobs whose worker died: a killed worker's jobs go to another worker
   * within about twice this, milliseconds.
   */
  ROBOTS_AUDIT_JOB_LOCK_MS: int(30_000, 1_000),
  /**
   * How long Postgres lets a pipeline session sit idle inside a transaction before it ends the
   * session and rolls the transaction back (`idle_in_transaction_session_timeout`), milliseconds.
   * A worker frozen or cut off in the middle of its night transaction holds the run's counter row,
   * which every other worker's night transaction updates: without this, the whole deployment
   * waits for it (issue 30's cluster tests). Between the statements of a transaction the pipeline
   * waits on nothing but itself (milliseconds), so this only ever ends a lost session; keep it
   * below ROBOTS_AUDIT_JOB_LOCK_MS. 0: no limit.
   */
  ROBOTS_AUDIT_DB_IDLE_TRANSACTION_MS: int(10_000, 0),
  /** How long a fetch waits before trying a host that another fetch is using. */
  ROBOTS_AUDIT_HOST_BUSY_DELAY_MS: int(500, 1),
  /**
   * Confirm a change before it counts (issue 18): when a night's body differs from the site's
   * version in force, a second fetch on a new connection after this delay, milliseconds.
   */
  ROBOTS_AUDIT_CONFIRM_DELAY_MS: int(1_000, 0),
  /** K: a body that comes back to a version of the last K nights means the site flaps (src/policy/flapping.ts); 0 turns flapping off. */
  ROBOTS_AUDIT_FLAPPING_WINDOW_NIGHTS: int(FLAPPING_WINDOW_NIGHTS, 0),
  /** M: a flapping site settles after M nights in a row on one version. */
  ROBOTS_AUDIT_FLAPPING_SETTLE_NIGHTS: int(FLAPPING_SETTLE_NIGHTS, 1),
  /** Webhook delivery timeout, milliseconds. */
  ROBOTS_AUDIT_WEBHOOK_TIMEOUT_MS: int(15_000, 1),
  /** Base of the exponential backoff between webhook delivery attempts (2, 4, 8, ... s); tests lower it. */
  ROBOTS_AUDIT_ALERT_BACKOFF_MS: int(2_000, 1),
  /** Deadline to finish in-flight jobs on SIGTERM, milliseconds. */
  ROBOTS_AUDIT_SHUTDOWN_GRACE_MS: int(30_000, 0),

  // --- e-mail alerts (issue 21) ---
  /**
   * The SMTP server of `mailto:` channels: `smtp://user:pass@mail.example.com:587` (plain, upgraded
   * with STARTTLS whenever the server offers it) or `smtps://...:465` (TLS from the first byte);
   * certificates are verified against Node's CA list. nodemailer options may follow as query
   * parameters (`?requireTLS=true`, `?tls.servername=...`). Empty: e-mail channels cannot be sent.
   */
  ROBOTS_AUDIT_SMTP_URL: z
    .string()
    .default('')
    .transform((s) => (s === '' ? null : s))
    .refine((s) => s === null || /^smtps?:\/\/[^/?#]+/i.test(s), 'must be an smtp:// or smtps:// URL with a host'),
  /** The From of alert mails: `alerts@example.com` or `robots-audit <alerts@example.com>`. */
  ROBOTS_AUDIT_MAIL_FROM: z
    .string()
    .default('')
    .transform((s) => (s === '' ? null : s))
    .refine((s) => s === null || /^(?:[^<>@]*<)?[^\s<>@]+@[^\s<>@]+\.[^\s<>@]+>?$/.test(s.trim()), 'must be an address, or a name and an address in <>'),
  /** One SMTP step (connecting, the greeting, any answer): past it the delivery is retried. */
  ROBOTS_AUDIT_SMTP_TIMEOUT_MS: int(15_000, 1),
  /** Where the dashboard is served (e.g. `https://robots.example.com`): alert mails link to the site's page there. */
  ROBOTS_AUDIT_DASHBOARD_URL: z
    .string()
    .default('')
    .transform((s) => (s === '' ? null : s.replace(/\/+$/, '')))
    .refine((s) => s === null || /^https?:\/\/[^/?#]+/i.test(s), 'must be an http:// or https:// URL'),

  // --- the dashboard (robots-audit serve) ---
  /**
   * The token every dashboard request must carry (Bearer header or the login form's cookie).
   * Required to serve on an address other than loopback; empty means unset. At least 16
   * characters: it is the only lock on the portfolio's data.
   */
  ROBOTS_AUDIT_DASHBOARD_TOKEN: z
    .string()
    .default('')
    .transform((s) => (s === '' ? null : s))
    .refine((s) => s === null || s.length >= DASHBOARD_TOKEN_MIN_LENGTH, `must be at least ${DASHBOARD_TOKEN_MIN_LENGTH} characters`),
  /**
   * The proxies whose X-Forwarded-For / -Proto / -Host the dashboard believes: none by default
   * (it is reached directly), or a comma-separated list of addresses and CIDRs (`127.0.0.1`,
   * `10.0.0.0/8`; `loopback`, `linklocal` and `uniquelocal` name those ranges). Behind an HTTPS
   * proxy named here the login cookie is `Secure`, and failed logins are counted per real client.
   */
  ROBOTS_AUDIT_DASHBOARD_TRUST_PROXY: z.string().default('').transform(csv),
  /** How long a dashboard login lasts, seconds: the cookie's lifetime and the server's own expiry of the session. */
  ROBOTS_AUDIT_DASHBOARD_SESSION_SECONDS: int(DASHBOARD_SESSION_SECONDS, 60),
  /** Failed logins (a wrong token, in the form or a Bearer header) a client may make per minute; then 429 until the minute is over. */
  ROBOTS_AUDIT_DASHBOARD_LOGIN_FAILURES: int(DASHBOARD_LOGIN_FAILURES, 1),
  /** CSV downloads streamed at once; one more gets 503 with Retry-After, so the pages stay responsive while they run. */
  ROBOTS_AUDIT_DASHBOARD_DOWNLOADS: int(DASHBOARD_DOWNLOADS, 1),
  /**
   * How long a page waits for what it computes from a site's bytes or a posted draft (lint, a
   * verdict, a draft's comparison), in a thread off the server's event loop; past it the page says
   * "not computed: the file is too large to analyse here" and the thread is stopped.
   */
  ROBOTS_AUDIT_DASHBOARD_COMPUTE_MS: int(DASHBOARD_COMPUTE_MS, 100),
  /** Threads those computations run in at once (each takes a core while it works). */
  ROBOTS_AUDIT_DASHBOARD_COMPUTE_THREADS: int(DASHBOARD_COMPUTE_THREADS, 1),

  // --- nightly runs (issue 4) ---
  ROBOTS_AUDIT_SCHEDULE: z.string().default('0 3 * * *'),
  ROBOTS_AUDIT_TIMEZONE: z.string().default('UTC'),
  /**
   * How often the scheduler brings its portfolio job schedulers in line with the schedules stored
   * in Postgres (`portfolios schedule`): a change is in force within this long, milliseconds.
   */
  ROBOTS_AUDIT_SCHEDULE_SYNC_MS: int(60_000, 100),

  // --- operating it: reachability, metrics and health endpoints ---
  /**
   * How long a command waits for Postgres and Redis to answer at start-up (then it prints one
   * line and exits), and how long /readyz and the outage probe of workers wait, milliseconds.
   */
  ROBOTS_AUDIT_SERVICE_CHECK_TIMEOUT_MS: int(3_000, 1),
  /**
   * How often a worker or the scheduler checks that Postgres and Redis answer (an outage is logged
   * once when it starts and once when it ends), and how often one waiting for Postgres at
   * start-up tries again, milliseconds.
   */
  ROBOTS_AUDIT_OUTAGE_PROBE_MS: int(5_000, 50),
  /**
   * Address the worker's and the scheduler's /metrics, /healthz and /readyz listen on. All
   * interfaces: Prometheus and health checks come from outside the container; the endpoints show
   * counts, never a site, a URL or a secret. 127.0.0.1 keeps them on the machine.
   */
  ROBOTS_AUDIT_METRICS_HOST: z.string().min(1).default('0.0.0.0'),
  /** Port of the worker's endpoints (9464: the usual port of an OpenTelemetry/Prometheus exporter); 0 turns them off. */
  ROBOTS_AUDIT_METRICS_PORT: port(9464),
  /** Port of the scheduler's endpoints, its own so a worker and the scheduler can share a host; 0 turns them off. */
  ROBOTS_AUDIT_SCHEDULER_METRICS_PORT: port(9465),
  /**
   * When the endpoints' port is taken (a second worker on the host), the ports after it tried, one
   * up each, the one chosen logged; 0: stop at start instead (METRICS_PORT_FALLBACKS).
   */
  ROBOTS_AUDIT_METRICS_PORT_FALLBACKS: int(15, 0),
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

/** The retry schedule within a run these settings give: workers retry by it, commands describe waits by it. */
export function retryScheduleOf(c: Pick<AppConfig, 'ROBOTS_AUDIT_RETRY_DELAYS' | 'ROBOTS_AUDIT_RETRY_503_FACTOR' | 'ROBOTS_AUDIT_RETRY_AFTER_CAP'>): RetrySchedule {
  return { delaysSeconds: c.ROBOTS_AUDIT_RETRY_DELAYS, factor503: c.ROBOTS_AUDIT_RETRY_503_FACTOR, retryAfterCapSeconds: c.ROBOTS_AUDIT_RETRY_AFTER_CAP };
}
