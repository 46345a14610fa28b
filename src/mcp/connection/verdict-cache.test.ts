import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileVerdictCache } from './verdict-cache.js';

const DAY = 24 * 60 * 60 * 1000;
const discover = { supportedVersions: ['2026-07-28'], capabilities: { tools: {} } };

/** A cache over a file holding `entries`, each saved `ageMs` ago. */
function cacheWith(entries: Record<string, unknown>, ageMs: number): FileVerdictCache {
  const dir = mkdtempSync(join(tmpdir(), 'muster-verdicts-'));
  const savedAt = Date.now() - ageMs;
  const file = Object.fromEntries(
    Object.entries(entries).map(([key, verdict]) => [key, { verdict, savedAt }]),
  );
  writeFileSync(join(dir, 'protocol-verdicts.json'), JSON.stringify(file));
  return new FileVerdictCache(dir);
}

describe('FileVerdictCache lifetimes', () => {
  const verdicts = {
    modern: { kind: 'modern', discover },
    refused: { kind: 'modern', discover, legacyRefused: true },
    failed: { kind: 'modern', discover, legacyFailed: true },
    legacy: { kind: 'legacy' },
  };

  it('keeps every verdict within a day', async () => {
    const cache = cacheWith(verdicts, DAY / 2);
    for (const [key, verdict] of Object.entries(verdicts))
      expect(await cache.get(key)).toEqual(verdict);
  });

  it('keeps a modern verdict a week, but one of a failed legacy trial only a day, as a legacy one', async () => {
    const cache = cacheWith(verdicts, 2 * DAY);
    expect(await cache.get('modern')).toEqual(verdicts.modern);
    expect(await cache.get('refused')).toEqual(verdicts.refused);
    expect(await cache.get('failed')).toBeUndefined();
    expect(await cache.get('legacy')).toBeUndefined();
  });
});

describe('FileVerdictCache saves', () => {
  it('has every verdict set at once on disk when settled, for a new reader', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-verdicts-'));
    const cache = new FileVerdictCache(dir);
    const keys = Array.from({ length: 10 }, (_, i) => `k${i}`);
    for (const key of keys) void cache.set(key, { kind: 'legacy' });
    await cache.settled();
    const reader = new FileVerdictCache(dir);
    for (const key of keys) expect(await reader.get(key)).toEqual({ kind: 'legacy' });
  });

  it('settles a forget too, and a set made after it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-verdicts-'));
    const cache = new FileVerdictCache(dir);
    await cache.set('gone', { kind: 'legacy' });
    void cache.delete('gone');
    void cache.set('kept', { kind: 'modern', discover });
    await cache.settled();
    const reader = new FileVerdictCache(dir);
    expect(await reader.get('gone')).toBeUndefined();
    expect(await reader.get('kept')).toEqual({ kind: 'modern', discover });
  });
});
