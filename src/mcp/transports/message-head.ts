/** What the top level of a JSON-RPC message says about it, read without keeping the message. */
export interface MessageHead {
  /** The top-level `id` (a number or a string), when the message has one. */
  readonly id?: number | string;
  /** True when the top level has a `method`: a request or notification, not a response. */
  readonly hasMethod: boolean;
  /** True when the message is a JSON array (a batch): its ids are not read. */
  readonly batch: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
/** Longer top-level keys or id values are not kept (no MCP id or key of interest is longer). */
const MAX_TOKEN = 128;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/**
 * Reads the `id` and `method` keys at the top level of one JSON message fed in chunks, keeping
 * only a few bytes: used for a message too large to keep, so its request can still be told
 * apart. A byte-level scan is enough: JSON's structural characters are ASCII, and no byte of a
 * multi-byte UTF-8 character equals one. A message that is not a JSON object yields no id.
 */
export class MessageHeadScanner {
  #depth = 0;
  #inString = false;
  #escaped = false;
  #started = false;
  #batch = false;
  /** At the top level: the next string is a key. */
  #expectKey = false;
  #collecting: 'key' | 'id' | undefined;
  #token: number[] = [];
  #key: string | undefined;
  #idString = false;
  #id: number | string | undefined;
  #hasMethod = false;

  /** Feeds the next bytes of the message. */
  push(bytes: Uint8Array): void {
    for (const byte of bytes) this.#byte(byte);
  }

  /** What was read so far (call it once the message has ended). */
  result(): MessageHead {
    this.#endIdValue();
    return {
      ...(this.#id !== undefined ? { id: this.#id } : {}),
      hasMethod: this.#hasMethod,
      batch: this.#batch,
    };
  }

  #byte(byte: number): void {
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false;
      else if (byte === BACKSLASH) this.#escaped = true;
      else if (byte === QUOTE) {
        this.#inString = false;
        if (this.#collecting === 'key') this.#endKey();
        else if (this.#collecting === 'id') this.#endIdValue();
        return;
      }
      this.#keep(byte);
      return;
    }
    if (!this.#started) {
      if (isSpace(byte)) return;
      this.#started = true;
      this.#batch = byte === OPEN_BRACKET;
      if (byte === OPEN_BRACE) {
        this.#depth = 1;
        this.#expectKey = true;
      } else this.#depth = -1; // not an object: nothing to read
      return;
    }
    if (this.#depth !== 1) {
      if (this.#depth < 1) return;
      if (byte === QUOTE) this.#inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.#depth += 1;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) this.#depth -= 1;
      return;
    }
    // the top level of the object
    if (byte === QUOTE) {
      this.#inString = true;
      if (this.#expectKey) this.#start('key');
      else if (this.#collecting === 'id' && this.#token.length === 0) this.#idString = true;
      return;
    }
    if (byte === COLON) {
      this.#expectKey = false;
      if (this.#key === 'method') this.#hasMethod = true;
      if (this.#key === 'id' && this.#id === undefined) {
        this.#idString = false;
        this.#start('id');
      }
      return;
    }
    if (byte === COMMA || byte === CLOSE_BRACE) {
      this.#endIdValue();
      this.#key = undefined;
      this.#expectKey = byte === COMMA;
      if (byte === CLOSE_BRACE) this.#depth = 0;
      return;
    }
    if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      this.#collecting = undefined;
      this.#depth += 1;
      return;
    }
    if (this.#collecting === 'id' && !isSpace(byte)) this.#keep(byte);
  }

  #start(what: 'key' | 'id'): void {
    this.#collecting = what;
    this.#token = [];
  }

  #keep(byte: number): void {
    if (this.#collecting === undefined) return;
    if (this.#token.length >= MAX_TOKEN) this.#collecting = undefined;
    else this.#token.push(byte);
  }

  #endKey(): void {
    this.#key = Buffer.from(this.#token).toString('utf8');
    this.#collecting = undefined;
  }

  #endIdValue(): void {
    if (this.#collecting !== 'id') return;
    this.#collecting = undefined;
    const text = Buffer.from(this.#token).toString('utf8');
    if (this.#idString) this.#id = text;
    else if (/^-?\d+$/.test(text)) this.#id = Number(text);
  }
}
