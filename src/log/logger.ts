/**
 * pino, because it is the fastest structured logger for Node and writes JSON lines that log
 * pipelines read as they are. Child loggers carry {queue, job, origin, attempt}; secrets are redacted.
 */
import { pino, destination as pinoDestination } from 'pino';
import type { Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'robots-audit' },
      redact: { paths: ['secret', '*.secret', 'headers.authorization', 'url.password'], censor: '[redacted]' },
    },
    destination ?? pinoDestination(2),
  );
}
