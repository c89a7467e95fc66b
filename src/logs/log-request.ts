/**
 * One request as a server's access log tells it, whatever the format: the contract between the
 * log readers (`combined.ts`, `json-lines.ts`) and the import (src/services/log-import.service.ts).
 * Pure data: no I/O here, and nothing about who the client is or whether it was allowed.
 */
export interface LogRequest {
  /** When the request was received, as the log states it (its own offset applied). */
  at: Date;
  /**
   * The host the request was for, lower-cased, without a port, when the format carries it (a
   * virtual-host field, Logpush's ClientRequestHost); null otherwise (the site comes from `--site`).
   */
  host: string | null;
  /** The client's address as written (IPv4 or IPv6, no port, no brackets). */
  clientIp: string;
  /** The request method, as written (`GET`, `HEAD`, ...). */
  method: string;
  /**
   * The request target as written: a path with its query (`/a/b?c=d`), or an absolute URL for a
   * proxy-style request line. Never decoded here: the matcher decides on the bytes.
   */
  target: string;
  /** The response status; null when the log leaves it out (`-`). */
  status: number | null;
  /** The user-agent header; '' when the log has `-` or none. Unescaped from the log's own escapes. */
  userAgent: string;
}

/** A line that could not be read: why, and the line as read (for the summary; shown escaped, never raw). */
export interface LogLineError {
  error: string;
}

export type LogLineResult = LogRequest | LogLineError;

export function isLogLineError(r: LogLineResult): r is LogLineError {
  return 'error' in r;
}
