import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { musterHome } from '../util/index.js';
import { ensureFolder, readCredentials, writeCredentials } from './credentials-file.js';
import type { CredentialEntries } from './credentials-file.js';
import { withFileLock } from './file-lock.js';
import { KeyedQueue } from './keyed-queue.js';
import type { StoredOAuthState, TokenStore } from './token-store.js';

/** Options of {@link fileTokenStore}. */
export interface FileTokenStoreOptions {
  /**
   * The credentials file. Default: `credentials.json` in the folder named by the
   * `MUSTER_HOME` environment variable, else in `~/.muster` (read when the store is made).
   */
  readonly path?: string;
}

/** The name of the credentials file in the Muster home folder. */
export const CREDENTIALS_FILE_NAME = 'credentials.json';

/**
 * This process's writes to each file, one at a time, across every store on that file: the
 * lock orders processes, this orders the calls within one (so they do not wait on each other
 * through the lock's retries).
 */
const writers = new KeyedQueue();

/** This process's `exclusive` calls, one at a time per lock file (as {@link writers}). */
const refreshers = new KeyedQueue();

/**
 * How long an `exclusive` call waits for another process's (ms): that one may be a refresh
 * of several requests, each allowed 30 s; a waiting 401 gives up sooner, on its own deadline.
 */
const EXCLUSIVE_WAIT_MS = 90_000;

/**
 * The file whose lock `exclusive` takes for `key`: beside the credentials file, named by a
 * hash of the key (which names a user and a server, and is nobody's business in a listing).
 */
const exclusiveTarget = (path: string, key: string) =>
  `${path}.${createHash('sha256').update(key).digest('hex').slice(0, 16)}.refresh`;

/** A copy of `value` as the file will hold it (a caller that changes `value` later changes nothing). */
const asStored = (value: StoredOAuthState): StoredOAuthState =>
  JSON.parse(JSON.stringify(value)) as StoredOAuthState;

/**
 * A token store in one JSON file, shared by every process of the user:
 * `{ "version": 1, "entries": { [key]: state } }`, mode 0600 in a folder made 0700 when
 * missing. Every write replaces the file atomically (a temporary file in the same folder,
 * flushed, then renamed), so a reader never sees half a document and needs no lock; every
 * read-modify-write (`set`, `delete`, `update`) holds a cross-process lock, so two processes
 * never lose each other's update. `exclusive(key, work)` holds a second lock, one per key
 * (`credentials.json.<hash>.refresh.lock`), for as long as `work` runs, so that one process at
 * a time refreshes a key's tokens while the others wait and then read what it saved. A file
 * with a wider mode is tightened to 0600 by the next write.
 *
 * A file that is not a version-1 credentials document fails with `INVALID_CONFIGURATION`
 * naming the file (never quoting it); I/O failures keep the original error as `cause`.
 *
 * @example
 * ```ts
 * const store = fileTokenStore(); // ~/.muster/credentials.json, or $MUSTER_HOME/credentials.json
 * await store.update(key, (state) => ({ ...state, tokens, savedAt: Date.now() }));
 * ```
 */
export function fileTokenStore(options: FileTokenStoreOptions = {}): TokenStore {
  const path = resolve(options.path ?? join(musterHome(), CREDENTIALS_FILE_NAME));

  /** Applies `change` to the entries under the lock; writes them when it says they changed. */
  const mutate = <T>(change: (entries: CredentialEntries) => { changed: boolean; result: T }) =>
    writers.run(path, async () => {
      await ensureFolder(path);
      return withFileLock(path, async () => {
        const entries = await readCredentials(path);
        const { changed, result } = change(entries);
        if (changed) await writeCredentials(path, entries);
        return result;
      });
    });

  return {
    async get(key) {
      return (await readCredentials(path)).get(key);
    },
    async set(key, value) {
      const stored = asStored(value);
      await mutate((entries) => {
        entries.set(key, stored);
        return { changed: true, result: undefined };
      });
    },
    async delete(key) {
      await mutate((entries) => ({ changed: entries.delete(key), result: undefined }));
    },
    async update(key, change) {
      return mutate((entries) => {
        const next = change(entries.get(key));
        if (next === undefined) return { changed: entries.delete(key), result: undefined };
        const stored = asStored(next);
        entries.set(key, stored);
        return { changed: true, result: stored };
      });
    },
    exclusive(key, work) {
      const target = exclusiveTarget(path, key);
      return refreshers.run(target, async () => {
        await ensureFolder(path);
        return withFileLock(path, work, {
          lockTarget: target,
          waitMs: EXCLUSIVE_WAIT_MS,
          // what `work` wrote took the file's own lock; losing this one only let another
          // process refresh too, which the caller's work cannot undo
          failWhenLost: false,
        });
      });
    },
  };
}
