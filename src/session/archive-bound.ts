import { MusterError } from '../errors/index.js';

/** The default bound of a store's archive: archived bytes kept per session (64 MiB). */
export const DEFAULT_STORED_ARCHIVE_BYTES = 64 * 1024 * 1024;

/** The per-session bound a store was given, checked. */
export function archiveBound(value: number | undefined): number {
  const max = value ?? DEFAULT_STORED_ARCHIVE_BYTES;
  if (!Number.isSafeInteger(max) || max < 1) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `maxArchiveBytesPerSession must be a positive whole number of bytes, not ${String(max)}.`,
    );
  }
  return max;
}

/** Refuses an item larger than the whole bound (as the memory archive does). */
export function assertFits(bytes: number, max: number): void {
  if (bytes <= max) return;
  throw new MusterError(
    'TOOL_RESULT_TOO_LARGE',
    `The item is ${bytes} bytes, over the archive's bound of ${max} bytes per session: raise maxArchiveBytesPerSession or ask the tool for less data.`,
    { details: { bytes, maxBytesPerSession: max } },
  );
}

/**
 * The refs to evict, oldest first, so that `incoming` more bytes fit under `max`, given the
 * session's kept items oldest first.
 */
export function refsToEvict(
  kept: readonly { ref: string; bytes: number }[],
  incoming: number,
  max: number,
): string[] {
  let total = kept.reduce((n, k) => n + k.bytes, 0);
  const out: string[] = [];
  for (const k of kept) {
    if (total + incoming <= max) break;
    out.push(k.ref);
    total -= k.bytes;
  }
  return out;
}
