/**
 * What a forward-confirmed reverse DNS lookup (FCrDNS) of an address found: the contract between
 * the lookup (src/http/reverse-dns.ts, which does the I/O) and the judge (identity.ts, which decides
 * nothing by itself but on this). Pure.
 */
export type ReverseDnsAnswer =
  /** A PTR name of the address resolves back to it. `hostnames`: every such name, when several. */
  | { readonly kind: 'confirmed'; readonly hostname: string; readonly hostnames?: readonly string[] }
  /** PTR names exist, but none resolves back to the address. */
  | { readonly kind: 'mismatch'; readonly detail: string }
  /** The address has no PTR record. */
  | { readonly kind: 'no-ptr'; readonly detail: string }
  /** DNS gave no answer (timeout, SERVFAIL, refused): nothing is known. */
  | { readonly kind: 'failed'; readonly reason: string };
