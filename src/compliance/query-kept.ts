/**
 * What of a request's query string is kept (docs/compliance.md, "Privacy"): query strings carry
 * search terms, session and tracking ids. A request's query is stored only when the judgement
 * needs it, that is when the version in force decides the URL with its query otherwise than
 * without it (a `Disallow: /*?sessionid=` reads it). Otherwise the path is stored with a bare `?`
 * that says a query was dropped. Pure.
 */
export function keptTarget(target: string, decidesAlike: (withoutQuery: string) => boolean): string {
  const q = target.indexOf('?');
  if (q < 0) return target;
  const withoutQuery = target.slice(0, q);
  return decidesAlike(withoutQuery) ? `${withoutQuery}?` : target;
}
