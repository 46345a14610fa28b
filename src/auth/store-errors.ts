import { MusterError } from '../errors/index.js';
import type { MusterErrorCode } from '../errors/index.js';
import { redact } from '../util/index.js';

// Every message here names the file, the key or the service, and never a stored value: the
// stores build their errors only from these.

/**
 * File-system failures the user can fix by changing the path or its permissions (`EEXIST`:
 * a file stands where the folder should be).
 */
const SETUP_ERRNOS = new Set(['EACCES', 'EPERM', 'EISDIR', 'ENOTDIR', 'EEXIST', 'EROFS', 'ELOOP']);

/** The `code` of a Node.js system error (`ENOENT`, `EACCES`, ...), if `err` is one. */
export function errnoOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * An I/O failure on the token file: `INVALID_CONFIGURATION` when the path or its permissions
 * are at fault, `INTERNAL_ERROR` otherwise (a full disk, say). The original error is `cause`.
 */
export function tokenFileIoError(
  action: 'read' | 'write' | 'lock',
  path: string,
  cause: unknown,
): MusterError {
  const errno = errnoOf(cause);
  const setup = errno !== undefined && SETUP_ERRNOS.has(errno);
  const code: MusterErrorCode = setup ? 'INVALID_CONFIGURATION' : 'INTERNAL_ERROR';
  const hint = setup ? '; check its permissions, or give the store another path' : '';
  return new MusterError(
    code,
    `Could not ${action} the token file ${path}${errno ? ` (${errno})` : ''}${hint}.`,
    { cause, details: { path, ...(errno ? { errno } : {}) } },
  );
}

/**
 * The token file is not a version-1 credentials document (`details.reason:
 * 'token-file-corrupt'`; `problem` says what is wrong, such as `not JSON`). The parser's own
 * error is not kept as `cause`: its message quotes the text it choked on, which may be a token.
 */
export function tokenFileCorruptError(path: string, problem: string): MusterError {
  return new MusterError(
    'INVALID_CONFIGURATION',
    `The token file ${path} is not a valid Muster credentials file (${problem}); delete it ` +
      `(the servers will ask you to log in again) or fix it.`,
    { details: { path, reason: 'token-file-corrupt', problem } },
  );
}

/** The token file stayed locked by another process for longer than the store waits. */
export function tokenFileLockedError(path: string, waitedMs: number, cause: unknown): MusterError {
  return new MusterError(
    'INTERNAL_ERROR',
    `The token file ${path} stayed locked by another process for over ${Math.floor(waitedMs / 1000)} s; try again.`,
    { cause, details: { path } },
  );
}

/** The lock on the token file was lost (taken over as stale) while this process held it. */
export function tokenFileLockLostError(path: string, cause: unknown): MusterError {
  return new MusterError(
    'INTERNAL_ERROR',
    `Lost the lock on the token file ${path} while writing it (the process was paused too ` +
      `long?); another process may have written at the same time, so check the stored logins.`,
    { cause, details: { path } },
  );
}

/**
 * A failure of the OS keychain. Its message is kept (it says what is wrong: no keychain, a
 * locked one) with the value this call handed to the keychain masked out; should the value
 * have been in it, the original error is dropped rather than kept as `cause`.
 */
export function keychainError(
  action: 'read' | 'write' | 'delete',
  where: KeychainEntryName,
  cause: unknown,
  written?: string,
): MusterError {
  const raw = cause instanceof Error ? cause.message : String(cause);
  const reason = redact(raw, written);
  return new MusterError(
    'INTERNAL_ERROR',
    `Could not ${action} the keychain entry ${describe(where)}: ${reason}`,
    { cause: reason === raw ? cause : undefined, details: { ...where } },
  );
}

/** The service and account of one keychain entry. */
export interface KeychainEntryName {
  readonly service: string;
  readonly key: string;
}

const describe = ({ service, key }: KeychainEntryName) =>
  `${JSON.stringify(key)} of service ${JSON.stringify(service)}`;

/** A keychain entry that is not the JSON of a stored OAuth state. Its text is never quoted. */
export function keychainCorruptError(where: KeychainEntryName): MusterError {
  return new MusterError(
    'INVALID_CONFIGURATION',
    `The keychain entry ${describe(where)} is not a stored Muster login; delete it (the ` +
      `server will ask you to log in again).`,
    { details: { ...where } },
  );
}

/** `@napi-rs/keyring`, an optional peer dependency, is not installed or could not load. */
export function keyringMissingError(cause: unknown): MusterError {
  return new MusterError(
    'INVALID_CONFIGURATION',
    'The keychain token store needs the optional package @napi-rs/keyring, which could not ' +
      'be loaded: npm i @napi-rs/keyring',
    { cause },
  );
}
