/**
 * The error a page throws for something that is not there; the server answers it with a 404
 * page (server.ts). Its own module so that every page module can throw it without importing
 * routes.ts, which registers them.
 */
export class NotFound extends Error {
  override name = 'NotFound';
  constructor(
    message: string,
    /** A page to go to instead, with its link's words. */
    readonly instead: { href: string; text: string } | null = null,
  ) {
    super(message);
  }
}
