import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProtocolVerdict } from '../client/mcp-connection.js';

/** Where protocol verdicts of earlier contacts are kept between processes. */
export interface VerdictCache {
  get(key: string): Promise<ProtocolVerdict | undefined>;
  set(key: string, verdict: ProtocolVerdict): Promise<void>;
  delete(key: string): Promise<void>;
  /** Resolves once every change made so far is saved (or its save failed, which is ignored). */
  settled(): Promise<void>;
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
  /** The save queued behind the one running, not started yet: it writes later changes too. */
  #queued: Promise<void> | undefined;
  /** Changes not saved yet. */
  readonly #changes = new Set<Promise<void>>();

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

  /** Saves `verdict` under `key`, now. Never rejects. */
  set(key: string, verdict: ProtocolVerdict): Promise<void> {
    const savedAt = Date.now();
    return this.#change(
      this.#load().then((entries) => {
        entries.set(key, { verdict, savedAt });
        return this.#save();
      }),
    );
  }

  /** Forgets the verdict saved under `key`. Never rejects. */
  delete(key: string): Promise<void> {
    return this.#change(
      this.#load().then((entries) => (entries.delete(key) ? this.#save() : undefined)),
    );
  }

  /** Every change made so far, saved: see {@link VerdictCache.settled}. */
  async settled(): Promise<void> {
    while (this.#changes.size > 0) await Promise.all(this.#changes);
  }

  /** Tracks a change until it is saved (it never rejects: load and save swallow failures). */
  #change(change: Promise<void>): Promise<void> {
    this.#changes.add(change);
    void change.then(() => this.#changes.delete(change));
    return change;
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

  /**
   * Writes the whole file after the save in flight; a save asked for while one is queued
   * joins it (ten servers met at once take one or two writes, not ten).
   */
  #save(): Promise<void> {
    if (this.#queued) return this.#queued;
    const queued = this.#writing.then(async () => {
      this.#queued = undefined;
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
    this.#queued = queued;
    this.#writing = queued;
    return queued;
  }
}
