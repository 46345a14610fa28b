import type { Check } from './option-checks.js';

/** The longest principal id, in characters (code points). */
export const MAX_PRINCIPAL_CHARS = 256;

/** Control characters (C0, DEL, C1) and lone surrogates: never part of a principal id. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f]|\p{Cs}/u;

/**
 * A principal id (SPEC 15.4): the user a run acts for, 1–256 characters, none of them a
 * control character (U+0000–U+001F, U+007F–U+009F) or a lone surrogate. The problem names
 * what to pass instead.
 */
export const isPrincipalId: Check = (v) => {
  if (typeof v !== 'string')
    return "must be a string naming the user the run acts for (such as 'alice@example.com')";
  const chars = [...v].length;
  if (chars < 1 || chars > MAX_PRINCIPAL_CHARS || FORBIDDEN.test(v))
    return `must be 1-${MAX_PRINCIPAL_CHARS} characters with no control characters (U+0000-U+001F, U+007F-U+009F): pass a stable id of the user the run acts for (such as 'alice@example.com'), or leave it out for the local user`;
  return undefined;
};
