/**
 * What the site reports (history, diff, explain) throw when the input cannot be answered: the
 * command prints the message as one line and exits with the code. `usage` (2): the argument is
 * malformed (not a site, not a night, not a user-agent token); `not_found` (1): it is well
 * formed but names nothing there is (a site not monitored, a run that does not exist, a URL of
 * another site).
 */
export type SiteReportErrorKind = 'usage' | 'not_found';

export class SiteReportError extends Error {
  constructor(
    readonly kind: SiteReportErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'SiteReportError';
  }

  get exitCode(): number {
    return this.kind === 'usage' ? 2 : 1;
  }
}

/** The part of a pg Pool (or client) the reports use. */
export interface Queryable {
  query<R extends Record<string, unknown> = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}
