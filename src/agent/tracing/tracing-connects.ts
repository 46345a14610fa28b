import type { McpServerStatusEvent, McpTransportType } from '../../mcp/index.js';
import { failSpan, networkTransport, SPAN_KIND } from './tracing-attributes.js';
import type { TraceContext, TraceSpan, Tracer } from '../../util/index.js';

/** What the traces know of a server from its last connect (for its tool calls' attributes). */
export interface ServerFacts {
  readonly transport?: string | undefined;
  readonly protocolVersion?: string | undefined;
}

/** The servers' facts an agent's traces share, and where a server's transport type is looked up. */
export interface ServerFactsBook {
  readonly facts: Map<string, ServerFacts>;
  /** The declared transport type of a server (a local lookup, no I/O). */
  readonly transportOf: (server: string) => McpTransportType | undefined;
}

/** The facts of `server`, looked up once when no connect has told them. */
export function factsOf(book: ServerFactsBook, server: string): ServerFacts {
  let facts = book.facts.get(server);
  if (!facts) {
    facts = { transport: networkTransport(book.transportOf(server)) };
    book.facts.set(server, facts);
  }
  return facts;
}

/**
 * MCP connect spans, driven by `mcp.server.status` events: `connecting` starts an `initialize`
 * client span for the server; the next status ends it (`connected`: ok, with the protocol
 * version; `failed`, `needs-auth`, `disabled`, `pending` after an abort: `error.type` is the
 * status error's code, else the status). Status messages are never recorded.
 */
export class ConnectSpans {
  readonly #open = new Map<string, TraceSpan>();
  readonly #tracer: () => Tracer | undefined;
  readonly #parent: () => TraceContext | undefined;
  readonly #book: ServerFactsBook;

  /** While `tracer` gives none, only the facts are kept (no spans). */
  constructor(
    tracer: () => Tracer | undefined,
    parent: () => TraceContext | undefined,
    book: ServerFactsBook,
  ) {
    this.#tracer = tracer;
    this.#parent = parent;
    this.#book = book;
  }

  /** Follows one status event. */
  onStatus(event: McpServerStatusEvent): void {
    const open = this.#open.get(event.server);
    if (open) {
      this.#open.delete(event.server);
      endConnect(open, event);
    }
    if (event.status === 'connected') {
      const transport = factsOf(this.#book, event.server).transport;
      this.#book.facts.set(event.server, { transport, protocolVersion: event.protocolVersion });
    }
    const tracer = event.status === 'connecting' ? this.#tracer() : undefined;
    if (!tracer) return;
    const span = tracer.startSpan(
      'initialize',
      {
        kind: SPAN_KIND.client,
        attributes: {
          'mcp.method.name': 'initialize',
          'muster.mcp.server': event.server,
          'network.transport': factsOf(this.#book, event.server).transport,
        },
      },
      this.#parent(),
    );
    this.#open.set(event.server, span);
  }

  /**
   * Ends every connect still open when the run completed: not as failed (nothing failed in
   * the run), marked `muster.mcp.connect.unfinished`.
   */
  endUnfinished(): void {
    for (const span of this.#open.values()) {
      span.setAttribute('muster.mcp.connect.unfinished', true);
      span.end();
    }
    this.#open.clear();
  }

  /** Ends every connect still open (the run ended first), with `error.type` `code`. */
  endAll(code: string): void {
    for (const span of this.#open.values()) failSpan(span, code);
    this.#open.clear();
  }
}

function endConnect(span: TraceSpan, event: McpServerStatusEvent): void {
  if (event.status === 'connected') {
    if (event.protocolVersion) span.setAttribute('mcp.protocol.version', event.protocolVersion);
    if (event.era) span.setAttribute('muster.mcp.era', event.era);
    span.end();
    return;
  }
  failSpan(span, event.error?.code ?? event.status);
}
