import { MusterError } from '../errors/index.js';
import { isPrincipalId, MAX_PRINCIPAL_CHARS } from '../util/index.js';

/** The longest principal id, in characters (Unicode code points). */
export const MAX_PRINCIPAL_LENGTH = MAX_PRINCIPAL_CHARS;

/**
 * Checks a principal id (SPEC 15.4: the user a run acts for) by the one rule runs use
 * (`isPrincipalId`): a string of 1 to {@link MAX_PRINCIPAL_LENGTH} characters, well-formed (no
 * lone surrogate), with no control characters. Returns it unchanged. The message never quotes
 * the id: a bad one may hold anything (a pasted token, a line break that would forge a log
 * line).
 *
 * @throws MusterError `INVALID_CONFIGURATION` for anything else.
 */
export function checkPrincipal(principal: unknown): string {
  const problem = isPrincipalId(principal);
  if (problem === undefined) return principal as string;
  throw new MusterError('INVALID_CONFIGURATION', `A principal id ${problem}.`);
}
