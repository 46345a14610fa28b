let lastMs = Number.NaN;
let lastIso = '';

/**
 * The time now as an ISO 8601 string, the same as `new Date().toISOString()`. The string is
 * made once per millisecond and reused, so the several events and writes of one step (which
 * usually fall in the same millisecond) share one timestamp without ever carrying a stale one.
 */
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
