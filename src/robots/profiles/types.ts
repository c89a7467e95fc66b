/** Shared shapes of the parser profiles (src/robots/profiles). */

/** A profile's verdict; `line` is the deciding line where the library reports one. */
export interface ProfileVerdict {
  allowed: boolean;
  line?: number;
}

/** A body read by one profile, ready for many (url, token) questions. */
export interface ProfileParsed {
  check(url: string, productToken: string): ProfileVerdict;
}
