import type { Stream } from 'node:stream';

/**
 * The latest bytes a child process wrote to stderr, kept for diagnostics. It drains the
 * stream (so a chatty child never blocks on a full pipe), keeps at most `maxBytes`, and
 * never logs anything.
 *
 * @example
 * ```ts
 * const ring = new StderrRing(8192);
 * ring.drain(transport.stderr);
 * // later, on failure:
 * const text = ring.tail();
 * ```
 */
export class StderrRing {
  private readonly maxBytes: number;
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(maxBytes: number) {
    this.maxBytes = Math.max(0, Math.floor(maxBytes));
  }

  /** Reads `stream` to its end, keeping its last bytes. A stream error ends the reading. */
  drain(stream: Stream | null | undefined): void {
    if (stream === null || stream === undefined) return;
    stream.on('data', (chunk: Buffer | string) => this.push(chunk));
    stream.on('error', () => {});
  }

  /** Keeps `chunk`, dropping the oldest bytes beyond the limit. */
  push(chunk: Buffer | Uint8Array | string): void {
    if (this.maxBytes === 0) return;
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
    if (bytes.byteLength >= this.maxBytes) {
      bytes = bytes.subarray(bytes.byteLength - this.maxBytes);
      this.chunks = [];
      this.size = 0;
    }
    this.chunks.push(bytes);
    this.size += bytes.byteLength;
    while (this.size > this.maxBytes) {
      const first = this.chunks[0]!;
      const excess = this.size - this.maxBytes;
      if (first.byteLength <= excess) {
        this.chunks.shift();
        this.size -= first.byteLength;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  /**
   * The kept text, decoded as UTF-8. A character cut at the start of the window is dropped
   * rather than shown as a replacement character.
   */
  tail(): string {
    const bytes = Buffer.concat(this.chunks, this.size);
    let start = 0;
    // Skip UTF-8 continuation bytes (10xxxxxx) left over from a cut character.
    while (start < bytes.length && start < 4 && (bytes[start]! & 0xc0) === 0x80) start += 1;
    return bytes.subarray(start).toString('utf8');
  }

  /** How many bytes are kept. */
  get byteLength(): number {
    return this.size;
  }
}
