import { MusterError } from '../errors/index.js';

/**
 * Refuses to act on a session for another principal than the one stored with it (SPEC
 * 15.4): `PRINCIPAL_MISMATCH`. A session stored without a principal belongs to the local
 * user, so a caller naming one is refused on it, and a caller naming none is refused on a
 * session that has one. `action` names what was refused (`continue`, `resume`, `decide a
 * wait of`, `steer`). The message names neither principal: the session's owner is not
 * told to whoever asked.
 */
export function assertSessionPrincipal(
  sessionId: string,
  stored: string | undefined,
  caller: string | undefined,
  action: string,
): void {
  if (stored === caller) return;
  const asked = caller === undefined ? 'no principal (the local user)' : 'another principal';
  throw new MusterError(
    'PRINCIPAL_MISMATCH',
    `Cannot ${action} session '${sessionId}' with ${asked}: it belongs to ${stored === undefined ? 'the local user' : 'another principal'}. Act on it as the principal it was started for, or start a new session.`,
    { details: { sessionId } },
  );
}
