import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProtocolVerdict } from '../client/mcp-connection.js';

/** Where protocol verdicts of earlier contacts are kept between processes. */
export interface VerdictCache {
  get(key: string): Promise<ProtocolVerdict | undefined>;
  set(key: string, verdict: ProtocolVerdict): Promise<void>;
  delete(key: string): Promise<void>;
}

interface Entry {
  readonly verdict: ProtocolVerdict;
  readonly savedAt: number;
}

/** A legacy verdict is trusted for a day: an upgraded server would still answer `initialize`. */
const LEGACY_TTL_MS = 24 * 60 * 60 * 1000;
/** A modern verdict fails loudly when stale (and is then dropped), so it may live longer. */
const MODERN_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const FILE = 'protocol-verdicts.json';

/**
 * True for a verdict kept a day: a legacy one, and a modern one learned from a legacy trial
 * that failed without a refusal (`legacyFailed`: no answer, an ended process), which may not
 * fail again and is tried again then.
 */
function shortLived(verdict: ProtocolVerdict): boolean {
  return verdict.kind === 'legacy' || verdict.legacyFailed === true;
}

/**
 * Verdicts in `<MUSTER_HOME>/protocol-verdicts.json`, keyed by a hash of the normalized
 * declaration (no secrets are stored: keys are hashes, values are protocol facts). It is an
 * optimization only: every read or write failure is ignored.
 */
export class FileVerdictCache implements VerdictCache {
  #entries: Promise<Map<string, Entry>> | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(private readonly dir: string) {}

  /** The cache key of a normalized declaration. */
  static keyOf(normalizedDeclaration: string): string {
    return createHash('sha256').update(normalizedDeclaration).digest('hex');
  }

  /** The verdict saved under `key`, or `undefined` when there is none or it is too old. */
  async get(key: string): Promise<ProtocolVerdict | undefined> {
    const entry = (await this.#load()).get(key);
    if (!entry) return undefined;
    const ttl = shortLived(entry.verdict) ? LEGACY_TTL_MS : MODERN_TTL_MS;
    return Date.now() - entry.savedAt <= ttl ? entry.verdict : undefined;
  }

  /** Saves `verdict` under `key`, now. */
  async set(key: string, verdict: ProtocolVerdict): Promise<void> {
    (await this.#load()).set(key, { verdict, savedAt: Date.now() });
    await this.#save();
  }

  /** Forgets the verdict saved under `key`. */
  async delete(key: string): Promise<void> {
    if ((await this.#load()).delete(key)) await this.#save();
  }

  #load(): Promise<Map<string, Entry>> {
    this.#entries ??= readFile(join(this.dir, FILE), 'utf8').then(
      (text) => {
        const parsed = JSON.parse(text) as Record<string, Entry>;
        return new Map(
          Object.entries(parsed).filter(
            ([, e]) => typeof e?.savedAt === 'number' && typeof e.verdict?.kind === 'string',
          ),
        );
      },
      () => new Map<string, Entry>(),
    );
    return this.#entries.catch(() => new Map<string, Entry>());
  }

  #save(): Promise<void> {
    this.#writing = this.#writing.then(async () => {
      try {
        const entries = await this.#load();
        await mkdir(this.dir, { recursive: true, mode: 0o700 });
        const tmp = join(this.dir, `${FILE}.${process.pid}.tmp`);
        await writeFile(tmp, JSON.stringify(Object.fromEntries(entries)), { mode: 0o600 });
        await rename(tmp, join(this.dir, FILE));
      } catch {
        // the cache is an optimization; a read-only home only costs a protocol probe
      }
    });
    return this.#writing;
  }
}
