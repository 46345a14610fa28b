import { createHmac, randomBytes } from 'node:crypto';
import type { McpServerConfig } from '../contracts/config-types.js';
import { normalizedKey } from './config-sources.js';

/**
 * This process's key: a fingerprint cannot be checked against a guessed value (an env value, a
 * header) anywhere else, and says nothing of the declaration it was made from.
 */
const KEY = randomBytes(32);

/** The fingerprint of a normalized declaration (`normalizedKey`). */
export function fingerprintOfKey(key: string): string {
  return createHmac('sha256', KEY).update(key).digest('base64url');
}

/**
 * A fingerprint of a server declaration, valid in this process: equal for two declarations
 * that normalize alike (key order, an absent `type`), different when anything else differs
 * (the command, an argument, an env value, the URL, a header value). A rule that remembers a
 * connection's approval keys it by this (`ConnectionSummary.fingerprint`), not by the
 * server's name, which another declaration can take.
 */
export function declarationFingerprint(config: McpServerConfig): string {
  return fingerprintOfKey(normalizedKey(config));
}
