import { McpError } from '../../errors/index.js';
import type { McpTransportFailureReason } from '../../errors/index.js';

/** What {@link limitResponseBody} needs. */
export interface BodyLimit {
  /** The server's registry name (for error messages). */
  readonly server: string;
  /** Bytes accepted per response, or per SSE event on a `text/event-stream` response. */
  readonly maxResponseBytes: number;
  /**
   * The response came from Node's own `fetch` over the network, whose HTTP parser (llhttp, or
   * nghttp2 for HTTP/2) fails a body that runs past its declared `content-length`: such a
   * body, declared within the limit and not compressed, needs no counting. Leave it unset for
   * any other `fetch`: a `Response` built in code may declare any length.
   */
  readonly lengthEnforced?: boolean;
}

/** A response whose body is counted, and the end of that body. */
export interface LimitedResponse {
  readonly response: Response;
  /**
   * Settles when the body is finished with: resolves when it ends, is cancelled or fails
   * for another reason; rejects with the {@link McpError} when it grew too large. Absent
   * when there is nothing to wait for: no body, or a body the HTTP layer holds to a declared
   * length within the limit (`lengthEnforced`), returned as it came.
   */
  readonly done?: Promise<void>;
}

/** Statuses whose responses never have a body (`new Response` refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The `MCP_OPERATION_FAILED` error of a response that exceeds `mcp.maxResponseBytes`.
 * `atLeast` says the count stopped at the limit rather than at a declared length.
 * `details.reason` is `response-too-large`: the typed fact that the server answered.
 */
export function responseTooLarge(
  limit: BodyLimit,
  bytes: number,
  what: 'response' | 'event',
  atLeast: boolean,
): McpError {
  const size = `${atLeast ? 'at least ' : ''}${bytes} bytes`;
  const subject = what === 'event' ? `a server-sent event of ${size}` : `a response of ${size}`;
  return new McpError(
    'MCP_OPERATION_FAILED',
    `Server "${limit.server}" sent ${subject}, which exceeds mcp.maxResponseBytes (${limit.maxResponseBytes}): raise the limit or ask the server for less`,
    {
      server: limit.server,
      details: {
        server: limit.server,
        reason: 'response-too-large' satisfies McpTransportFailureReason,
        bytes,
        limit: limit.maxResponseBytes,
        unit: what,
      },
    },
  );
}

/**
 * Whether `fetch` hands the body over as the server sent it: no `content-encoding`, or
 * `identity`. A compressed body is decompressed by `fetch`, so its declared length bounds
 * only the compressed bytes.
 */
function sentAsIs(response: Response): boolean {
  const encoding = response.headers.get('content-encoding');
  return encoding === null || encoding.trim().toLowerCase() === 'identity';
}

/** The media type of a `content-type` value, lower-cased, without parameters. */
function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Decodes whole bodies as `Response.text()` does (UTF-8, a leading BOM dropped); stateless. */
const UTF8 = new TextDecoder();

/** Counts bytes; returns the running count after `chunk`. */
type Counter = (chunk: Uint8Array) => number;

/** Counts the whole body. */
function totalCounter(): Counter {
  let total = 0;
  return (chunk) => (total += chunk.byteLength);
}

const CR = 0x0d;
const LF = 0x0a;

/**
 * Counts the bytes of the current server-sent event: the count restarts at each blank
 * line (the event boundary), whatever the line ends (CRLF, LF or CR). Returns the largest
 * count reached within `chunk`.
 */
function sseEventCounter(): Counter {
  let eventBytes = 0;
  let lineBytes = 0;
  let afterCr = false;
  return (chunk) => {
    let peak = eventBytes;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === LF && afterCr) {
        afterCr = false;
        continue;
      }
      afterCr = byte === CR;
      if (byte === CR || byte === LF) {
        if (lineBytes === 0) eventBytes = 0;
        else eventBytes += 1;
        lineBytes = 0;
      } else {
        lineBytes += 1;
        eventBytes += 1;
        if (eventBytes > peak) peak = eventBytes;
      }
    }
    return peak;
  };
}

/**
 * Bounds the bytes of `response` before anything parses it. A declared `content-length`
 * over the limit fails at once (the body is cancelled); an event stream is bounded per
 * event only, so its declared length is not compared. Otherwise the body is counted as it is
 * read, and reading fails, and cancels the network body, as soon as the count passes the
 * limit: per event for `text/event-stream`, through a counting stream (a long-lived stream is
 * not killed by its total size), over the whole body for anything else, on the response
 * itself ({@link boundInPlace}). A response of Node's own `fetch` (`limit.lengthEnforced`)
 * whose declared length is within the limit, and whose body is not compressed, is returned
 * as it came: its HTTP parser fails the body if it runs past that length.
 *
 * @throws McpError `MCP_OPERATION_FAILED` when `content-length` exceeds the limit.
 */
export function limitResponseBody(response: Response, limit: BodyLimit): LimitedResponse {
  const sse = mediaType(response.headers.get('content-type')) === 'text/event-stream';
  const declared = response.headers.get('content-length');
  if (!sse && declared !== null && /^\d+$/.test(declared.trim())) {
    const bytes = Number(declared.trim());
    if (bytes > limit.maxResponseBytes) {
      const error = responseTooLarge(limit, bytes, 'response', false);
      response.body?.cancel(error).catch(() => {});
      throw error;
    }
    // the parser counts for us (a basic response is one that came over the network)
    if (limit.lengthEnforced === true && response.type === 'basic' && sentAsIs(response))
      return { response };
  }
  const source = response.body;
  if (source === null || NULL_BODY_STATUSES.has(response.status)) return { response };
  let settle: (error?: McpError) => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    settle = (error) => (error === undefined ? resolve() : reject(error));
  });
  // The caller may never await `done`; an oversize error is reported through the body too.
  done.catch(() => {});
  if (!sse) return { response: boundInPlace(response, source, limit, settle), done };

  const limited = new Response(countedStream(source, sseEventCounter(), limit, true, settle), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  // Keep what the client may read from the original (the final URL of the request).
  Object.defineProperty(limited, 'url', { value: response.url });
  return { response: limited, done };
}

/**
 * `source` read through a counter: the stream errors, and cancels the network body, as soon as
 * the count passes the limit.
 */
function countedStream(
  source: ReadableStream<Uint8Array>,
  count: Counter,
  limit: BodyLimit,
  sse: boolean,
  settle: (error?: McpError) => void,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          settle();
          throw error;
        }
        if (chunk.done) {
          settle();
          controller.close();
          return;
        }
        const bytes = count(chunk.value);
        if (bytes > limit.maxResponseBytes) {
          const error = responseTooLarge(limit, bytes, sse ? 'event' : 'response', true);
          reader.cancel(error).catch(() => {});
          settle(error);
          controller.error(error);
          return;
        }
        controller.enqueue(chunk.value);
      },
      async cancel(reason) {
        settle();
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** What a response bounded in place reads its body through (see {@link boundInPlace}). */
interface InPlace {
  source: ReadableStream<Uint8Array>;
  whole?: Promise<Uint8Array>;
  counted?: ReadableStream<Uint8Array>;
  readonly limit: BodyLimit;
  readonly settle: (error?: McpError) => void;
}

/** Where a response bounded in place keeps its {@link InPlace}. */
const IN_PLACE = Symbol('muster.boundedBody');

/** The {@link InPlace} of a response bounded in place (the methods below are its own). */
function inPlace(response: Response): InPlace {
  return (response as unknown as { [IN_PLACE]: InPlace })[IN_PLACE];
}

function wholeBody(state: InPlace): Promise<Uint8Array> {
  return (state.whole ??= readBounded(state.source, state.limit, state.settle));
}

async function boundedText(this: Response): Promise<string> {
  return UTF8.decode(await wholeBody(inPlace(this)));
}

async function boundedCopy(this: Response): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await wholeBody(inPlace(this)));
}

/**
 * The reading methods of a response bounded in place, shared by every such response (they
 * find the body through `this`): nothing is made per response but its {@link InPlace}.
 */
const IN_PLACE_METHODS: PropertyDescriptorMap = {
  body: {
    get(this: Response) {
      const state = inPlace(this);
      return state.whole
        ? state.source
        : (state.counted ??= countedStream(
            state.source,
            totalCounter(),
            state.limit,
            false,
            state.settle,
          ));
    },
  },
  text: { value: boundedText },
  json: {
    async value(this: Response) {
      return JSON.parse(await boundedText.call(this)) as unknown;
    },
  },
  arrayBuffer: {
    async value(this: Response) {
      return (await boundedCopy.call(this)).buffer;
    },
  },
  bytes: { value: boundedCopy },
  blob: {
    async value(this: Response) {
      return new Blob([await boundedCopy.call(this)], {
        type: this.headers.get('content-type') ?? '',
      });
    },
  },
  formData: {
    async value(this: Response) {
      return new Response(await boundedCopy.call(this), { headers: this.headers }).formData();
    },
  },
  clone: {
    value(this: Response) {
      const state = inPlace(this);
      const [kept, other] = state.source.tee();
      state.source = kept;
      const twin = new Response(other, {
        status: this.status,
        statusText: this.statusText,
        headers: this.headers,
      });
      Object.defineProperty(twin, 'url', { value: this.url });
      // the twin's end is not the request's: only the original settles `done`
      return boundInPlace(twin, other, state.limit, () => undefined);
    },
  },
};

/**
 * Bounds a whole (not event-stream) body on the response itself, without a second stream and
 * a second `Response`: building those costs Node more per request than reading the answer
 * (a web stream is made transferable at construction). `json()`, `text()`, `arrayBuffer()`,
 * `bytes()`, `blob()` and `formData()` read the original body with a count and fail with the
 * limit's error as soon as it is passed; `body`, when someone asks for the stream itself, is
 * a counted stream as for event streams (the original once the body was read); `clone()`
 * tees the body and bounds both halves. The methods are shared ({@link IN_PLACE_METHODS}).
 */
function boundInPlace(
  response: Response,
  body: ReadableStream<Uint8Array>,
  limit: BodyLimit,
  settle: (error?: McpError) => void,
): Response {
  const state: InPlace = { source: body, limit, settle };
  Object.defineProperty(response, IN_PLACE, { value: state });
  return Object.defineProperties(response, IN_PLACE_METHODS);
}

/** The whole of `source`, counted as it comes; the limit's error once the count passes it. */
async function readBounded(
  source: ReadableStream<Uint8Array>,
  limit: BodyLimit,
  settle: (error?: McpError) => void,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    // inside the try: a body already taken fails the read and still settles `done`
    const reader = source.getReader();
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      total += chunk.value.byteLength;
      if (total > limit.maxResponseBytes) {
        const error = responseTooLarge(limit, total, 'response', true);
        reader.cancel(error).catch(() => {});
        settle(error);
        throw error;
      }
      chunks.push(chunk.value);
    }
  } catch (error) {
    // a failed read ends the body too (after an oversize error `done` has already rejected)
    settle();
    throw error;
  }
  settle();
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}
