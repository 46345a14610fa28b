import { ToolError } from '../errors/index.js';
import type {
  ToolDefinition,
  ToolExecutionContext,
  ToolExecutor,
  ToolInfo,
} from '../tools/index.js';
import { utf8Bytes } from '../util/index.js';
import type { ArchivedItem, ArchiveStore } from './archive-store.js';
import { characterBoundaryAtOrBefore, utf8SequenceLength } from './utf8.js';

/** The model-facing name of the built-in tool that reads archived tool output. */
export const CONTEXT_TOOL_NAME = 'context';

/** How many bytes one `context` call returns when the model gives no `length`. */
export const CONTEXT_DEFAULT_LENGTH = 16384;

/** The most bytes one `context` call may ask for. */
export const CONTEXT_MAX_LENGTH = 65536;

/** The definition of the `context` tool, as {@link ContextToolExecutor} lists it. */
export const CONTEXT_TOOL_DEFINITION: ToolDefinition = Object.freeze({
  name: CONTEXT_TOOL_NAME,
  description:
    'Reads tool output that was too large (or binary) to show in full. Such output shows a ' +
    'preview and a note like [archived: ref=ref_…, N bytes, …]. Pass that ref and a byte ' +
    'offset (the note says where to continue). Text comes back in `text`; binary data ' +
    '(images, audio, files) comes back base64 in `data`. Call again with `nextOffset` until ' +
    'it is null. References are valid only in this session.',
  inputSchema: Object.freeze({
    type: 'object',
    properties: Object.freeze({
      ref: Object.freeze({
        type: 'string',
        description: 'The reference from an [archived …] note, e.g. ref_abc123.',
      }),
      offset: Object.freeze({
        type: 'integer',
        minimum: 0,
        default: 0,
        description: 'Byte offset to start at (UTF-8 bytes for text). Default 0.',
      }),
      length: Object.freeze({
        type: 'integer',
        minimum: 1,
        maximum: CONTEXT_MAX_LENGTH,
        default: CONTEXT_DEFAULT_LENGTH,
        description: `How many bytes to read, at most. Default ${CONTEXT_DEFAULT_LENGTH}.`,
      }),
    }),
    required: Object.freeze(['ref']),
    additionalProperties: false,
  }),
  annotations: Object.freeze({ readOnlyHint: true, title: 'Read archived tool output' }),
});

const BUILTIN_INFO: ToolInfo = Object.freeze({ source: 'builtin' });

/** What {@link ContextToolExecutor} reads from. */
export interface ContextToolOptions {
  /** The session archive that `archiveToolResult` writes to. */
  readonly store: ArchiveStore;
}

/** What the model asks the `context` tool for. */
export interface ContextReadRequest {
  readonly ref: string;
  /** Byte offset; default 0. For text, it must be on a character boundary. */
  readonly offset?: number;
  /** Most bytes to return, 1 to 65536; default 16384. */
  readonly length?: number;
}

/**
 * One page of an archived item. `length` is the number of bytes returned, which may be less
 * than asked (end of the item, a character that would be split, or the result size limit).
 */
export interface ContextPage {
  readonly ref: string;
  readonly mimeType: string;
  readonly offset: number;
  readonly length: number;
  readonly totalBytes: number;
  /** Where the next page starts, or `null` when this page reaches the end. */
  readonly nextOffset: number | null;
  /** The page of a text item. */
  readonly text?: string;
  /** The page of a binary item, base64. */
  readonly data?: string;
}

/**
 * Offers the built-in `context` tool, which pages through a session's archived tool output
 * (SPEC 7.5). Only items of the calling session (`ctx.sessionId`) can be read.
 *
 * @example
 * ```ts
 * const store = new MemoryArchiveStore();
 * const executors = [hostTools, new ContextToolExecutor({ store })];
 * ```
 */
export class ContextToolExecutor implements ToolExecutor {
  readonly #store: ArchiveStore;
  readonly #buffers = new WeakMap<ArchivedItem, Buffer>();

  constructor(options: ContextToolOptions) {
    this.#store = options.store;
  }

  /** The tools this executor offers now. Called once per run to fix that run's catalog. */
  listTools(): readonly ToolDefinition[] {
    return [CONTEXT_TOOL_DEFINITION];
  }

  /** Safe facts about one tool; defaults to `{ source: 'executor' }`. */
  getToolInfo(name: string): ToolInfo | undefined {
    return name === CONTEXT_TOOL_NAME ? BUILTIN_INFO : undefined;
  }

  /** Runs one call whose arguments already passed validation and policy. */
  async execute(
    name: string,
    input: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): Promise<string> {
    if (name !== CONTEXT_TOOL_NAME) {
      throw new ToolError('TOOL_NOT_FOUND', `This executor offers only '${CONTEXT_TOOL_NAME}'.`, {
        toolName: name,
      });
    }
    // read() checks the arguments itself, as it is public API too.
    const request = input as unknown as ContextReadRequest;
    return JSON.stringify(await this.read(ctx.sessionId, request, ctx.maxResultBytes));
  }

  /**
   * Reads one page of an archived item of `sessionId`. When `maxResultBytes` is given, the
   * page is shortened until its JSON fits in that many UTF-8 bytes. Bad arguments, unknown refs
   * and offsets inside a character fail with `TOOL_ARGUMENTS_INVALID`.
   */
  async read(
    sessionId: string,
    request: ContextReadRequest,
    maxResultBytes = Number.POSITIVE_INFINITY,
  ): Promise<ContextPage> {
    const { ref, offset = 0, length = CONTEXT_DEFAULT_LENGTH } = parseRequest(request);
    const item = await this.#store.get(sessionId, ref);
    if (!item) {
      if (await this.#store.wasEvicted?.(sessionId, ref)) {
        throw invalid(
          `Archive reference ${ref} was dropped: this session's archive reached its size bound and keeps only its newest items. Call the tool that produced it again if you still need it.`,
        );
      }
      throw invalid(
        `Unknown archive reference ${JSON.stringify(ref.slice(0, 80))}: it belongs to no item of this session. Use a ref from an [archived …] note of this session.`,
      );
    }
    const buf = this.#bufferOf(item);
    if (offset > buf.length) {
      throw invalid(
        `offset ${offset} is past the end of ${ref} (${buf.length} bytes). Use an offset from 0 to ${buf.length}.`,
      );
    }
    const text = item.kind === 'text';
    if (text && characterBoundaryAtOrBefore(buf, offset) !== offset) {
      throw invalid(
        `offset ${offset} falls inside a multi-byte character of ${ref}. Use offset ${characterBoundaryAtOrBefore(buf, offset)} (the start of that character), or a nextOffset you were given.`,
      );
    }
    let page = slice(item, buf, offset, length);
    if (page.length === 0 && offset < buf.length) {
      throw invalid(
        `length ${length} is too short for the character at offset ${offset} of ${ref}; ask for at least ${utf8SequenceLength(buf[offset] ?? 0)} bytes.`,
      );
    }
    let size = utf8Bytes(JSON.stringify(page));
    while (size > maxResultBytes) {
      const shorter = Math.min(page.length - 1, Math.floor((page.length * maxResultBytes) / size));
      const next = shorter >= 1 ? slice(item, buf, offset, shorter) : undefined;
      if (!next || next.length === 0) {
        throw new ToolError(
          'TOOL_RESULT_TOO_LARGE',
          `No page of ${ref} at offset ${offset} fits in the result limit of ${maxResultBytes} bytes.`,
          { toolName: CONTEXT_TOOL_NAME },
        );
      }
      page = next;
      size = utf8Bytes(JSON.stringify(page));
    }
    return page;
  }

  #bufferOf(item: ArchivedItem): Buffer {
    let buf = this.#buffers.get(item);
    if (buf) return buf;
    if (item.kind === 'text' && typeof item.text === 'string') buf = Buffer.from(item.text, 'utf8');
    else if (item.kind === 'binary' && typeof item.data === 'string')
      buf = Buffer.from(item.data, 'base64');
    else {
      throw new ToolError(
        'TOOL_EXECUTION_FAILED',
        `Archived item ${item.ref} is damaged: a ${String(item.kind)} item without its payload.`,
        { toolName: CONTEXT_TOOL_NAME },
      );
    }
    this.#buffers.set(item, buf);
    return buf;
  }
}

/** The page of `buf` from `offset`, at most `length` bytes, never splitting a character of text. */
function slice(item: ArchivedItem, buf: Buffer, offset: number, length: number): ContextPage {
  const text = item.kind === 'text';
  const limit = Math.min(offset + length, buf.length);
  const end = text ? Math.max(offset, characterBoundaryAtOrBefore(buf, limit)) : limit;
  const bytes = buf.subarray(offset, end);
  return {
    ref: item.ref,
    mimeType: item.mimeType,
    offset,
    length: end - offset,
    totalBytes: buf.length,
    nextOffset: end < buf.length ? end : null,
    ...(text ? { text: bytes.toString('utf8') } : { data: bytes.toString('base64') }),
  };
}

function parseRequest(input: unknown): Required<ContextReadRequest> {
  const args = (typeof input === 'object' && input !== null ? input : {}) as Record<
    string,
    unknown
  >;
  const extra = Object.keys(args).filter((k) => !['ref', 'offset', 'length'].includes(k));
  if (extra.length > 0) throw invalid(`unknown argument(s): ${extra.join(', ')}.`);
  const { ref, offset = 0, length = CONTEXT_DEFAULT_LENGTH } = args;
  if (typeof ref !== 'string' || ref.length === 0) {
    throw invalid('ref must be the reference from an [archived …] note, e.g. "ref_abc123".');
  }
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
    throw invalid(`offset must be an integer >= 0, got ${JSON.stringify(offset)}.`);
  }
  if (
    typeof length !== 'number' ||
    !Number.isSafeInteger(length) ||
    length < 1 ||
    length > CONTEXT_MAX_LENGTH
  ) {
    throw invalid(
      `length must be an integer from 1 to ${CONTEXT_MAX_LENGTH}, got ${JSON.stringify(length)}.`,
    );
  }
  return { ref, offset, length };
}

function invalid(message: string): ToolError {
  return new ToolError('TOOL_ARGUMENTS_INVALID', message, { toolName: CONTEXT_TOOL_NAME });
}
