import type * as ProperLockfile from 'proper-lockfile';
import {
  errnoOf,
  tokenFileIoError,
  tokenFileLockLostError,
  tokenFileLockedError,
} from './store-errors.js';

/** A lock older than this (ms) without a refresh is taken to be a crashed holder's, and taken over. */
const STALE_MS = 10_000;

/** How long a waiter waits for a held lock by default (ms): longer than a stale lock lives. */
const DEFAULT_WAIT_MS = 12_000;

/**
 * How a waiter retries a held lock for at least `waitMs`: from 5 ms up to 100 ms apart (the
 * ramp from 5 to 100 ms takes 17 retries), randomized so that waiters do not retry in step.
 */
const retriesFor = (waitMs: number) => ({
  retries: 17 + Math.ceil(waitMs / 100),
  factor: 1.2,
  minTimeout: 5,
  maxTimeout: 100,
  randomize: true,
});

/** How {@link withFileLock} locks; every field has a default. */
export interface FileLockOptions {
  /** The file whose lock is taken (`<lockTarget>.lock`); default: the token file itself. */
  readonly lockTarget?: string;
  /** How long to wait for another holder at least, in ms. Default 12 000. */
  readonly waitMs?: number;
  /**
   * Whether losing the lock while `work` ran fails the call (default). A lock that only
   * keeps others from repeating `work` may ignore it: what `work` wrote took its own lock.
   */
  readonly failWhenLost?: boolean;
}

type Lockfile = typeof ProperLockfile;

let lockfile: Promise<Lockfile> | undefined;

/** `proper-lockfile`, loaded on the first write (so importing Muster stays cheap). */
function loadLockfile(): Promise<Lockfile> {
  lockfile ??= import('proper-lockfile').catch((err: unknown) => {
    lockfile = undefined;
    throw err;
  });
  return lockfile;
}

/**
 * Runs `work` holding the cross-process lock of the token file `path` (a `<path>.lock`
 * folder, or `<lockTarget>.lock`, that `proper-lockfile` creates atomically and keeps fresh
 * while it is held). The folder of `path` must exist. Waits for another holder; takes over a
 * lock left by a crashed process after 10 s.
 */
export async function withFileLock<T>(
  path: string,
  work: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const { lock } = await loadLockfile();
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  let lost: Error | undefined;
  let release: () => Promise<void>;
  try {
    release = await lock(options.lockTarget ?? path, {
      realpath: false,
      stale: STALE_MS,
      retries: retriesFor(waitMs),
      onCompromised: (err) => {
        lost = err;
      },
    });
  } catch (err) {
    if (errnoOf(err) === 'ELOCKED') throw tokenFileLockedError(path, waitMs, err);
    throw tokenFileIoError('lock', path, err);
  }
  let result: T;
  try {
    result = await work();
  } finally {
    // a failed release leaves a lock folder that others take over once it is stale; the
    // work itself is done, so that is not this call's failure
    await release().catch(() => undefined);
  }
  if (lost && options.failWhenLost !== false) throw tokenFileLockLostError(path, lost);
  return result;
}
