/** The package entry: the robots.txt engine and the origin helpers. */
export * from './robots/types.js';
export { normalizeOrigin, robotsTxtUrl, isInScope, canonicalUrl, parseUserUrl, InvalidUrlError } from './robots/origin.js';
