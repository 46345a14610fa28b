import { randomBytes } from 'node:crypto';
import { SessionError } from '../errors/index.js';
import type { SessionListQuery, SessionPatch, SessionState } from './session-store.js';

// Rules every store shares: lease checks, listing bounds, errors with stable codes.

/** The lease of a session as a store keeps it; `owner` is absent once released. */
export interface LeaseRecord {
  readonly token: number;
  readonly owner?: string;
  /** Milliseconds since the epoch. */
  readonly expiresAt: number;
}

/** True when `record` is held by someone at `now`. */
export function isLive(record: LeaseRecord | undefined, now: number): boolean {
  return record !== undefined && record.owner !== undefined && record.expiresAt > now;
}

/**
 * Whether a write naming `token` (or none) may go into a session whose lease is `record`:
 * a named lease must be the live current one; an unnamed write needs no live lease.
 */
export function writeAllowed(
  record: LeaseRecord | undefined,
  token: number | undefined,
  now: number,
): boolean {
  if (token === undefined) return !isLive(record, now);
  return isLive(record, now) && record!.token === token;
}

/** The error of a write or renewal whose lease is not current. */
export function leaseLostError(sessionId: string): SessionError {
  return new SessionError(
    'SESSION_ALREADY_RUNNING',
    `The lease on session '${sessionId}' is no longer current (it expired or another replica took the session over): this run stops; resume the session where its lease is held.`,
    { sessionId },
  );
}

/** The error of a change to a session that a live lease of another run holds. */
export function heldError(sessionId: string): SessionError {
  return new SessionError(
    'SESSION_ALREADY_RUNNING',
    `Session '${sessionId}' is running: wait for its run to end (or its lease to expire) before changing it.`,
    { sessionId },
  );
}

/** The error of a write to a session that does not exist. */
export function notFoundError(sessionId: string): SessionError {
  return new SessionError('SESSION_NOT_FOUND', `Session '${sessionId}' does not exist.`, {
    sessionId,
  });
}

/** The error of creating a session whose id is taken. */
export function existsError(sessionId: string): SessionError {
  return new SessionError(
    'SESSION_ALREADY_RUNNING',
    `Session '${sessionId}' already exists: continue it by id or choose another id.`,
    { sessionId },
  );
}

/** The default and largest page sizes of `list()`. */
export const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;

/** The page size a query asks for, bounded. */
export function pageSize(query: SessionListQuery | undefined): number {
  const limit = query?.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isSafeInteger(limit) || limit < 1) return DEFAULT_PAGE_SIZE;
  return Math.min(limit, MAX_PAGE_SIZE);
}

/** A lease owner's token counter starts here; every acquire raises it by one. */
export const FIRST_TOKEN = 1;

/** A new archive reference: `ref_` and 128 random bits in base36 (as the memory archive). */
export function newStoredRef(): string {
  return `ref_${BigInt(`0x${randomBytes(16).toString('hex')}`).toString(36)}`;
}

/** Applies the scalar fields of `patch` to `state` (messages and lists are the store's). */
export function patchedFields(
  patch: SessionPatch,
): Partial<Pick<SessionState, 'status' | 'iteration' | 'finalContent'>> {
  return {
    ...(patch.status !== undefined ? { status: patch.status } : {}),
    ...(patch.iteration !== undefined ? { iteration: patch.iteration } : {}),
    ...(patch.finalContent !== undefined ? { finalContent: patch.finalContent } : {}),
  };
}
