import { MessageHeadScanner } from './message-head.js';
import type { MessageHead } from './message-head.js';

/** A line that went over the bound: its size and what its top level said. */
export interface OversizedLine extends MessageHead {
  /** The bytes of the line, up to its newline. */
  readonly bytes: number;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits a byte stream into newline-delimited lines (a stdio server's JSON-RPC messages),
 * keeping at most `maxBytes` of one line in memory. A line over the bound is not kept: its
 * bytes are counted and scanned for its top-level `id` and `method` as they pass, and it is
 * reported once its newline arrives, so the lines after it are read as usual.
 */
export class BoundedLineReader {
  #parts: Buffer[] = [];
  #size = 0;
  #over: MessageHeadScanner | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversized: (line: OversizedLine) => void,
  ) {}

  /** Reads the next chunk of the stream. */
  push(chunk: Buffer): void {
    let start = 0;
    while (start <= chunk.length) {
      const end = chunk.indexOf(LF, start);
      const piece = chunk.subarray(start, end === -1 ? chunk.length : end);
      this.#take(piece);
      if (end === -1) return;
      this.#endLine();
      start = end + 1;
    }
  }

  /** Drops whatever partial line is kept. */
  clear(): void {
    this.#parts = [];
    this.#size = 0;
    this.#over = undefined;
  }

  #take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.#size += piece.length;
    if (this.#over) {
      this.#over.push(piece);
      return;
    }
    if (this.#size <= this.maxBytes) {
      this.#parts.push(piece);
      return;
    }
    // over the bound: stop keeping the line, read its head from what was kept and what comes
    this.#over = new MessageHeadScanner();
    for (const part of this.#parts) this.#over.push(part);
    this.#over.push(piece);
    this.#parts = [];
  }

  #endLine(): void {
    const over = this.#over;
    const size = this.#size;
    const parts = this.#parts;
    this.clear();
    if (over) {
      this.onOversized({ ...over.result(), bytes: size });
      return;
    }
    let line = Buffer.concat(parts, size);
    if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    if (line.length > 0) this.onLine(line.toString('utf8'));
  }
}
