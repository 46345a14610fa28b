import type { Client } from '@modelcontextprotocol/client';
import { callIsolated } from '../../util/index.js';
import type { DirectTool } from './sdk-direct-tools.js';
import {
  errorResult,
  projectResult,
  stampServerInfo,
  validateArguments,
} from './sdk-direct-tools.js';
import type { SdkMcpServer } from './sdk-server.js';
import { urlElicitationAnswer } from './sdk-direct-errors.js';
import type { ClientErrors, DirectEra } from './sdk-direct-errors.js';

interface RequestOptions {
  readonly signal?: AbortSignal;
  readonly timeout?: number;
  readonly resetTimeoutOnProgress?: boolean;
  readonly maxTotalTimeout?: number;
  readonly onprogress?: (p: { progress: number; total?: number; message?: string }) => void;
}

const INVALID_PARAMS = -32602;

/**
 * The client side of an in-process server's fast path: the subset of the official `Client`
 * that `McpConnection` uses for tools (`listTools`, `callTool`, `ping`, `discover`, the
 * negotiated facts, `close`), answered by calling the definition's handlers directly with the
 * server's semantics (arguments validated once with the tool's schema, a throwing handler an
 * error result, the client's per-request timeout reset by progress, its total timeout, its
 * abort). Any other request (resources, prompts, logging…) goes to a real client over the
 * transport path, opened on first use by `protocol()`, so it answers exactly as before.
 */
export class DirectClient {
  onclose: (() => void) | undefined = undefined;
  onerror: ((error: Error) => void) | undefined = undefined;
  /** The calls in flight, and how to fail each (a close fails them as a lost connection). */
  readonly #inFlight = new Map<AbortController, (error: unknown) => void>();
  #closed = false;
  #protocol: Promise<Client> | undefined;

  constructor(
    private readonly definition: SdkMcpServer,
    private readonly tools: ReadonlyMap<string, DirectTool>,
    private readonly negotiated: DirectEra,
    private readonly errors: ClientErrors,
    private readonly protocol: () => Promise<{ client: Client; close(): Promise<void> }>,
  ) {}

  /** The handshake: nothing to negotiate in process. */
  async connect(): Promise<void> {}

  /** The protocol version the connection reports. */
  getNegotiatedProtocolVersion(): string {
    return this.negotiated.protocolVersion;
  }

  /** The protocol era the connection reports. */
  getProtocolEra(): 'modern' | 'legacy' {
    return this.negotiated.era;
  }

  /** No discovery result in process. */
  getDiscoverResult(): undefined {
    return undefined;
  }

  /** The in-process server's name and version. */
  getServerVersion(): { name: string; version: string } {
    return { name: this.definition.name, version: this.definition.version };
  }

  /** Tools, with list changes: all an in-process server offers. */
  getServerCapabilities(): Record<string, unknown> {
    return { tools: { listChanged: true } };
  }

  /** No instructions in process. */
  getInstructions(): undefined {
    return undefined;
  }

  /** Answers at once while open. */
  async ping(): Promise<Record<string, never>> {
    this.#open();
    return {};
  }

  /** Nothing to discover in process; answers at once while open. */
  async discover(): Promise<Record<string, never>> {
    this.#open();
    return {};
  }

  /** The server's tools, each a copy of what it lists. */
  async listTools(): Promise<{ tools: Record<string, unknown>[] }> {
    this.#open();
    return { tools: [...this.tools.values()].map((t) => structuredClone(t.listed)) };
  }

  /** Only a server that asked for roots hears of changes: none on the fast path. */
  async sendRootsListChanged(): Promise<void> {
    if (this.#protocol) await (await this.#protocol).sendRootsListChanged();
  }

  /** Calls a tool's handler directly, as a call over a transport would behave. */
  async callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    options: RequestOptions = {},
  ): Promise<Record<string, unknown>> {
    this.#open();
    const tool = this.tools.get(params.name);
    if (!tool) throw new this.errors.ProtocolError(INVALID_PARAMS, `Tool ${params.name} not found`);
    const controller = new AbortController();
    let settle!: { resolve: (v: Record<string, unknown>) => void; reject: (e: unknown) => void };
    const done = new Promise<Record<string, unknown>>((resolve, reject) => {
      settle = { resolve, reject };
    });
    const started = Date.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const fail = (error: unknown) => {
      controller.abort(error);
      settle.reject(error);
    };
    this.#inFlight.set(controller, fail);
    const arm = () => {
      if (options.timeout === undefined) return;
      clearTimeout(timer);
      timer = setTimeout(
        () =>
          fail(
            new this.errors.SdkError('REQUEST_TIMEOUT', 'Request timed out', {
              timeout: options.timeout,
            }),
          ),
        options.timeout,
      );
    };
    // the client's own rejection of an aborted request
    const onAbort = () => {
      const reason: unknown = options.signal?.reason;
      fail(
        reason instanceof this.errors.SdkError
          ? reason
          : new this.errors.SdkError('REQUEST_TIMEOUT', String(reason)),
      );
    };
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    arm();
    const onprogress = options.onprogress;
    const reportProgress = async (
      progress: number | { progress: number; total?: number; message?: string },
      total?: number,
      message?: string,
    ): Promise<void> => {
      if (!onprogress || controller.signal.aborted) return;
      const p = typeof progress === 'object' ? progress : { progress, total, message };
      const update = {
        progress: p.progress,
        ...(p.total !== undefined ? { total: p.total } : {}),
        ...(p.message !== undefined ? { message: p.message } : {}),
      };
      const max = options.maxTotalTimeout;
      if (max && Date.now() - started >= max) {
        fail(
          new this.errors.SdkError('REQUEST_TIMEOUT', 'Maximum total timeout exceeded', {
            maxTotalTimeout: max,
            totalElapsed: Date.now() - started,
          }),
        );
        return;
      }
      if (options.resetTimeoutOnProgress) arm();
      callIsolated(() => onprogress(update), undefined);
    };
    // an already aborted call is refused before the handler runs, as the client refuses to send
    if (!controller.signal.aborted)
      void this.#run(tool, params.arguments, controller.signal, reportProgress)
        .then((result) => this.#read(result))
        .then(settle.resolve, settle.reject);
    try {
      return await done;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      this.#inFlight.delete(controller);
    }
  }

  async #run(
    tool: DirectTool,
    args: unknown,
    signal: AbortSignal,
    reportProgress: (...a: never[]) => Promise<void>,
  ): Promise<Record<string, unknown>> {
    try {
      const parsed = await validateArguments(tool, args);
      if ('error' in parsed) return this.#project(errorResult(parsed.error));
      const result = await tool.definition.handler(parsed.value as never, {
        signal,
        reportProgress: reportProgress as never,
      });
      return this.#project(result as unknown as Record<string, unknown>);
    } catch (err) {
      const refusal = urlElicitationAnswer(err, this.errors, this.negotiated);
      if (refusal) throw refusal;
      return this.#project(errorResult(err));
    }
  }

  /**
   * The result as the client reads it: checked with the result schema (a result no schema
   * accepts is the server's `Invalid tools/call result` refusal, not an error result), then
   * stamped with the server's name in the modern era. The client's own parse of the same
   * schema after it changes nothing more, so it is not repeated.
   */
  #read(result: Record<string, unknown>): Record<string, unknown> {
    const parsed = this.errors.specTypeSchemas.CallToolResult.safeParse(result);
    if (!parsed.success)
      throw new this.errors.ProtocolError(
        INVALID_PARAMS,
        `Invalid tools/call result: ${String(parsed.error)}`,
      );
    const value = parsed.data as Record<string, unknown>;
    return this.negotiated.era === 'modern'
      ? stampServerInfo(value, this.getServerVersion())
      : value;
  }

  #project(result: Record<string, unknown>): Record<string, unknown> {
    return projectResult(result, this.negotiated.era);
  }

  /**
   * `listen()` on the transport path's client: what that client's own subscription (opened
   * for list changes at its connect) already honors is left out, as `listen-operation.ts`
   * does with a client it can read before the request.
   */
  async listen(
    filter: Record<string, unknown>,
    options?: unknown,
  ): Promise<{ closed: Promise<void>; close(): Promise<void> }> {
    const client = (await this.protocolClient()) as unknown as {
      autoOpenedSubscription?: { honoredFilter?: Record<string, unknown> };
      listen(f: unknown, o: unknown): Promise<{ closed: Promise<void>; close(): Promise<void> }>;
    };
    const honored = client.autoOpenedSubscription?.honoredFilter ?? {};
    const rest = Object.fromEntries(
      Object.entries(filter).filter(([k, v]) => typeof v !== 'boolean' || !honored[k]),
    );
    if (Object.keys(rest).length === 0)
      return { closed: new Promise<void>(() => undefined), close: async () => undefined };
    return client.listen(rest, options);
  }

  /** A real client over the transport path, for every request the fast path does not serve. */
  protocolClient(): Promise<Client> {
    this.#open();
    this.#protocol ??= this.protocol().then(({ client, close }) => {
      this.#closeProtocol = close;
      this.#protocolNow = client;
      return client;
    });
    return this.#protocol;
  }

  /** That client, once open (for a property read: it cannot wait). */
  protocolNow(): Client | undefined {
    return this.#protocolNow;
  }

  #protocolNow: Client | undefined;
  #closeProtocol: (() => Promise<void>) | undefined;

  /** Closes the connection: calls in flight end at once, their outcome unknown. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // as over a transport: the calls in flight end at once, their outcome unknown
    for (const fail of this.#inFlight.values())
      fail(new this.errors.SdkError('CONNECTION_CLOSED', 'Connection closed'));
    this.#inFlight.clear();
    const protocol = this.#protocol;
    if (protocol) await protocol.then(() => this.#closeProtocol?.()).catch(() => undefined);
    this.onclose?.();
  }

  #open(): void {
    if (this.#closed) throw new this.errors.SdkError('CONNECTION_CLOSED', 'Connection closed');
  }
}
