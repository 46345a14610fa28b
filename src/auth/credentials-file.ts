import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { errnoOf, tokenFileCorruptError, tokenFileIoError } from './store-errors.js';
import type { StoredOAuthState } from './token-store.js';

/** The version of the credentials document this code reads and writes. */
export const CREDENTIALS_FILE_VERSION = 1;

/** The entries of a credentials file, by key. A `Map`, so no key can reach a prototype. */
export type CredentialEntries = Map<string, StoredOAuthState>;

const FILE_MODE = 0o600;
const FOLDER_MODE = 0o700;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why `value` is not a stored OAuth state, or `undefined` when it is one. */
function stateProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'an entry is not an object';
  for (const field of ['tokens', 'clientInformation', 'discovery'] as const)
    if (value[field] !== undefined && !isRecord(value[field]))
      return `an entry's ${field} is not an object`;
  if (value['savedAt'] !== undefined && typeof value['savedAt'] !== 'number')
    return "an entry's savedAt is not a number";
  const pending = value['pendingLogin'];
  if (pending !== undefined) {
    if (!isRecord(pending)) return "an entry's pendingLogin is not an object";
    if (typeof pending['state'] !== 'string' || typeof pending['verifier'] !== 'string')
      return "an entry's pendingLogin has no state or verifier";
    if (typeof pending['expiresAt'] !== 'number')
      return "an entry's pendingLogin expiresAt is not a number";
  }
  return undefined;
}

/** Parses the text of the credentials file at `path`; throws its typed error, never its text. */
export function parseCredentials(text: string, path: string): CredentialEntries {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw tokenFileCorruptError(path, 'not JSON');
  }
  if (!isRecord(doc)) throw tokenFileCorruptError(path, 'not a JSON object');
  if (doc['version'] !== CREDENTIALS_FILE_VERSION) {
    const seen = typeof doc['version'] === 'number' ? `version ${doc['version']}` : 'no version';
    throw tokenFileCorruptError(path, `${seen}, expected ${CREDENTIALS_FILE_VERSION}`);
  }
  const entries = doc['entries'];
  if (!isRecord(entries)) throw tokenFileCorruptError(path, 'entries is not an object');
  const out: CredentialEntries = new Map();
  for (const [key, value] of Object.entries(entries)) {
    const problem = stateProblem(value);
    if (problem) throw tokenFileCorruptError(path, problem);
    out.set(key, value as StoredOAuthState);
  }
  return out;
}

/** Reads the credentials file; a missing file has no entries. */
export async function readCredentials(path: string): Promise<CredentialEntries> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return new Map();
    throw tokenFileIoError('read', path, err);
  }
  return parseCredentials(text, path);
}

/** Creates the folder of `path` with mode 0700 when it is missing; an existing one is left as is. */
export async function ensureFolder(path: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true, mode: FOLDER_MODE });
  } catch (err) {
    throw tokenFileIoError('write', path, err);
  }
}

/**
 * Replaces the credentials file with `entries`, atomically: the document goes to a temporary
 * file in the same folder, created with mode 0600 (so it is never readable by others, not even
 * while it is written), flushed to disk, then renamed over the file. A reader sees the old
 * document or the new one, never a part; the file left behind is mode 0600 whatever mode the
 * old one had. The caller holds the lock.
 */
export async function writeCredentials(path: string, entries: CredentialEntries): Promise<void> {
  const doc = { version: CREDENTIALS_FILE_VERSION, entries: Object.fromEntries(entries) };
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  const folder = dirname(path);
  const temp = join(folder, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', FILE_MODE);
    try {
      // the umask may only have taken bits away; this puts back the owner's read and write
      await handle.chmod(FILE_MODE);
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw tokenFileIoError('write', path, err);
  }
  await syncFolder(folder);
}

/** Flushes the folder's entry list, so the rename survives a crash; not possible everywhere. */
async function syncFolder(folder: string): Promise<void> {
  if (process.platform === 'win32') return;
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // some file systems refuse to sync a folder; the file itself is already on disk
  }
}
