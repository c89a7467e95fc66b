/**
 * E-mail channels are named by a `mailto:` URI (RFC 6068): `mailto:seo@example.com`, or several
 * addresses separated by commas, which get one message together. Only addresses: header fields
 * (`?subject=`, `?cc=`) are refused, since the alert decides what the message says. Pure.
 */

export class MailtoError extends Error {}

/** An address as RFC 5322's dot-atom form allows it (no quoted local parts, no comments). */
const ADDRESS = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** Addresses a channel may hold (a message to more is a mailing list's job). */
export const MAILTO_MAX_ADDRESSES = 20;

export function isMailto(input: string): boolean {
  return /^mailto:/i.test(input.trim());
}

/**
 * The channel URL as stored (`mailto:` and the addresses, domains in lower case, each once) and
 * its addresses. Throws MailtoError with the reason.
 */
export function parseMailto(input: string): { url: string; addresses: string[] } {
  const trimmed = input.trim();
  if (!isMailto(trimmed)) throw new MailtoError(`"${input}" is not a mailto: URI`);
  const rest = trimmed.slice('mailto:'.length);
  if (/[?#]/.test(rest)) throw new MailtoError(`"${input}": header fields (?subject=, ?cc=, ...) are not taken; name the addresses only`);
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    throw new MailtoError(`"${input}": a malformed %-escape`);
  }
  const addresses: string[] = [];
  for (const raw of decoded.split(',')) {
    const address = raw.trim();
    if (address === '') continue;
    if (!ADDRESS.test(address)) throw new MailtoError(`"${address}" is not an e-mail address (name@example.com)`);
    const at = address.lastIndexOf('@');
    const normal = `${address.slice(0, at)}@${address.slice(at + 1).toLowerCase()}`;
    if (!addresses.includes(normal)) addresses.push(normal);
  }
  if (addresses.length === 0) throw new MailtoError(`"${input}": no address`);
  if (addresses.length > MAILTO_MAX_ADDRESSES) throw new MailtoError(`"${input}": ${addresses.length} addresses, at most ${MAILTO_MAX_ADDRESSES}`);
  return { url: `mailto:${addresses.join(',')}`, addresses };
}
