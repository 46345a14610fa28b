import { MusterError } from '../errors/index.js';

/** The longest principal id, in characters (Unicode code points). */
export const MAX_PRINCIPAL_LENGTH = 256;

/** A C0 or C1 control character, or DEL. */
const CONTROL = /\p{Cc}/u;

/**
 * Checks a principal id (SPEC 15.4: the user a run acts for): a string of 1 to
 * {@link MAX_PRINCIPAL_LENGTH} characters, well-formed (no lone surrogate), with no control
 * characters. Returns it unchanged. The message never quotes the id: a bad one may hold
 * anything (a pasted token, a line break that would forge a log line).
 *
 * @throws MusterError `INVALID_CONFIGURATION` for anything else.
 */
export function checkPrincipal(principal: unknown): string {
  const problem =
    typeof principal !== 'string'
      ? `is a ${principal === null ? 'null' : typeof principal}, not a string`
      : principal.length === 0
        ? 'is empty'
        : !wellFormed(principal)
          ? 'holds a lone surrogate (not well-formed Unicode)'
          : [...principal].length > MAX_PRINCIPAL_LENGTH
            ? `has ${[...principal].length} characters, more than ${MAX_PRINCIPAL_LENGTH}`
            : CONTROL.test(principal)
              ? 'holds a control character'
              : undefined;
  if (problem === undefined) return principal as string;
  throw new MusterError(
    'INVALID_CONFIGURATION',
    `A principal id ${problem}: it must be 1 to ${MAX_PRINCIPAL_LENGTH} characters with no control characters.`,
  );
}

/** True when `text` has no lone surrogate (so its UTF-8 encoding is one-to-one). */
function wellFormed(text: string): boolean {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}
