import { McpError } from '../../errors/index.js';
import type { McpTransportFailureReason } from '../../errors/index.js';

/** What {@link limitResponseBody} needs. */
export interface BodyLimit {
  /** The server's registry name (for error messages). */
  readonly server: string;
  /** Bytes accepted per response, or per SSE event on a `text/event-stream` response. */
  readonly maxResponseBytes: number;
}

/** A response whose body is counted, and the end of that body. */
export interface LimitedResponse {
  readonly response: Response;
  /**
   * Settles when the body is finished with: resolves when it ends, is cancelled or fails
   * for another reason; rejects with the {@link McpError} when it grew too large.
   */
  readonly done: Promise<void>;
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

/** The media type of a `content-type` value, lower-cased, without parameters. */
function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

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
 * event only, so its declared length is not compared. Otherwise the body is wrapped in a
 * counting stream that errors, and cancels the network body, as soon as the count passes
 * the limit: per event for `text/event-stream` (a long-lived stream is not killed by its
 * total size), over the whole body for anything else.
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
  }
  const source = response.body;
  if (source === null || NULL_BODY_STATUSES.has(response.status)) {
    return { response, done: Promise.resolve() };
  }
  const count = sse ? sseEventCounter() : totalCounter();
  const reader = source.getReader();
  let settle: (error?: McpError) => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    settle = (error) => (error === undefined ? resolve() : reject(error));
  });
  // The caller may never await `done`; an oversize error is reported through the body too.
  done.catch(() => {});

  const counted = new ReadableStream<Uint8Array>(
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

  const limited = new Response(counted, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  // Keep what the client may read from the original (the final URL of the request).
  Object.defineProperty(limited, 'url', { value: response.url });
  return { response: limited, done };
}
