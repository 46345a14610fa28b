import type * as ProperLockfile from 'proper-lockfile';
import {
  errnoOf,
  tokenFileIoError,
  tokenFileLockLostError,
  tokenFileLockedError,
} from './store-errors.js';

/** A lock older than this (ms) without a refresh is taken to be a crashed holder's, and taken over. */
const STALE_MS = 10_000;

/**
 * How a waiter retries a held lock: from 5 ms up to 100 ms apart, 130 times, so 12 s or more
 * in all, which outlasts a stale lock. Randomized, so that waiters do not retry in step.
 */
const RETRIES = { retries: 130, factor: 1.2, minTimeout: 5, maxTimeout: 100, randomize: true };

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
 * Runs `work` holding the cross-process lock of `path` (a `<path>.lock` folder that
 * `proper-lockfile` creates atomically and keeps fresh while it is held). The folder of `path`
 * must exist. Waits for another holder; takes over a lock left by a crashed process after
 * 10 s.
 */
export async function withFileLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  const { lock } = await loadLockfile();
  let lost: Error | undefined;
  let release: () => Promise<void>;
  try {
    release = await lock(path, {
      realpath: false,
      stale: STALE_MS,
      retries: RETRIES,
      onCompromised: (err) => {
        lost = err;
      },
    });
  } catch (err) {
    if (errnoOf(err) === 'ELOCKED') throw tokenFileLockedError(path, err);
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
  if (lost) throw tokenFileLockLostError(path, lost);
  return result;
}
