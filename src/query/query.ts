import { randomUUID } from 'node:crypto';
import { createAgent } from '../agent/index.js';
import type { Agent, AgentEvent } from '../agent/index.js';
import { MusterError, toMusterError } from '../errors/index.js';
import type { McpConnectionSummary, McpServerStatus } from '../mcp/index.js';
import { compilePatterns } from '../policy/index.js';
import { boundedControlRequest } from './control-request.js';
import { decideDeferredCalls } from './deferred-calls.js';
import { QueryInput } from './query-input.js';
import type { UserTurn } from './query-input.js';
import { RunMessageMapper } from './query-messages.js';
import { resolveQueryOptions } from './query-options.js';
import type { QueryOptions, ResolvedQueryOptions } from './query-options.js';
import type {
  QueryInitializationResult,
  QueryMcpServerStatus,
  QueryMessage,
  QuerySystemInitMessage,
  QueryUserMessage,
} from './query-types.js';

/** What `mcpAuthenticate()` resolves with. */
export interface QueryAuthenticateResult {
  /** The URL the user must open (pull mode). */
  readonly authUrl?: string;
  readonly requiresUserAction: boolean;
}

/** The message stream of a query, with its control methods. */
export interface Query extends AsyncGenerator<QueryMessage, void> {
  /** Connects the servers (once) and resolves with the tools and statuses. */
  initializationResult(): Promise<QueryInitializationResult>;
  /** A local snapshot of every server (no I/O, no secrets). */
  mcpServerStatus(): Promise<QueryMcpServerStatus[]>;
  /** Starts a pull-mode OAuth login (`agent.mcp.authenticate`). */
  mcpAuthenticate(name: string, redirectUri?: string): Promise<QueryAuthenticateResult>;
  /** Finishes it with the callback URL (`agent.mcp.submitOAuthCallback`). */
  mcpSubmitOAuthCallbackUrl(name: string, callbackUrl: string): Promise<McpConnectionSummary>;
  /** Aborts the current user turn: it ends with an error `result`; later turns still run. */
  interrupt(): Promise<void>;
  /** Adds the user turns of another stream; resolves once it is read. */
  streamInput(stream: AsyncIterable<QueryUserMessage>): Promise<void>;
  /** Ends the query: aborts the current turn, stops reading input, closes the agent. */
  close(): Promise<void>;
}

/** What `query()` takes. */
export interface QueryParams {
  /** One user turn, or a stream of user messages (one turn each). */
  readonly prompt: string | AsyncIterable<QueryUserMessage>;
  readonly options?: QueryOptions;
}

/**
 * A message-stream facade over `Agent` for hosts written against `query()`-style SDKs: each
 * user turn is one `agent.run()` on the query's session, and its events are mapped to
 * messages (`system`/`init` once, `assistant`, `user` tool results,
 * `system`/`elicitation_complete`, and a `result` per turn). With `outputFormat`, each
 * turn asks for a typed answer, carried by its success `result` as `structured_output`.
 * When `canUseTool` answers `defer`, the turn ends with a `parked` result naming the wait and
 * the query ends; a query with `options.resume` set to that session (and the same
 * `sessionStore`) continues it first: `canUseTool` is asked again about each pending call (or
 * the waits were decided with `agent.decide()` / `muster decide`), then the run resumes and
 * the prompt's turns follow. Unknown options fail with `INVALID_CONFIGURATION` at once.
 *
 * @example
 * ```ts
 * const q = query({ prompt: 'Greet Alice', options: { model, mcpServers: { my_tools: server },
 *   allowedTools: ['mcp__my_tools__greet'] } });
 * for await (const msg of q) if (msg.type === 'result') console.log(msg.result);
 * ```
 */
export function query(params: QueryParams): Query {
  return new QueryStream(params);
}

class QueryStream implements Query {
  readonly #agent: Agent;
  readonly #input: QueryInput;
  readonly #options: ResolvedQueryOptions;
  readonly #sessionId: string;
  readonly #visible: ReturnType<typeof compilePatterns> | undefined;
  readonly #messages: AsyncGenerator<QueryMessage, void>;
  #current: AbortController | undefined;
  #init: Promise<QueryInitializationResult> | undefined;
  #closed = false;
  #forgetAbort: () => void = () => undefined;

  constructor(params: QueryParams) {
    if (!params || typeof params !== 'object')
      throw new MusterError('INVALID_CONFIGURATION', 'query() takes { prompt, options }.');
    const extra = Object.keys(params).filter((k) => k !== 'prompt' && k !== 'options');
    if (extra.length > 0)
      throw new MusterError('INVALID_CONFIGURATION', `query() does not know '${extra[0]}'.`);
    this.#options = resolveQueryOptions(params.options, () => void this.interrupt());
    const tools = params.options?.tools;
    this.#visible = tools ? compilePatterns(tools, 'tools') : undefined;
    this.#input = new QueryInput(params.prompt);
    this.#agent = createAgent(this.#options.agent);
    this.#sessionId = this.#options.sessionId ?? randomUUID();
    // a close that fails after an abort has nowhere else to go: the abort stands
    const onAbort = () => void this.close().catch(() => undefined);
    const abortSignal = this.#options.abortSignal;
    abortSignal?.addEventListener('abort', onAbort, { once: true });
    // a host that reuses one controller must not keep every closed query alive through it
    this.#forgetAbort = () => abortSignal?.removeEventListener('abort', onAbort);
    this.#messages = this.#generate();
  }

  next(): Promise<IteratorResult<QueryMessage, void>> {
    return this.#messages.next();
  }

  async return(): Promise<IteratorResult<QueryMessage, void>> {
    await this.close();
    return this.#messages.return();
  }

  throw(error: unknown): Promise<IteratorResult<QueryMessage, void>> {
    return this.#messages.throw(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  initializationResult(): Promise<QueryInitializationResult> {
    this.#init ??= this.#agent.initialize().then(() => ({
      session_id: this.#sessionId,
      model: this.#options.modelName,
      tools: this.#visibleTools(),
      mcp_servers: this.#statuses(),
    }));
    return this.#init;
  }

  async mcpServerStatus(): Promise<QueryMcpServerStatus[]> {
    return this.#statuses();
  }

  async mcpAuthenticate(name: string, redirectUri?: string): Promise<QueryAuthenticateResult> {
    const configured = this.#options.oauth?.[name]?.redirectUri;
    if (redirectUri !== undefined && !sameUrl(redirectUri, configured)) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `mcpAuthenticate('${name}'): the redirect URI must be the one registered in options.mcpOAuth.${name}.redirectUri${configured === undefined ? ' (none is set)' : ''}.`,
      );
    }
    return boundedControlRequest(
      `mcpAuthenticate('${name}')`,
      this.#options.controlRequestTimeoutMs,
      undefined,
      () => this.#agent.mcp.authenticate(name),
    );
  }

  mcpSubmitOAuthCallbackUrl(name: string, callbackUrl: string): Promise<McpConnectionSummary> {
    return boundedControlRequest(
      `mcpSubmitOAuthCallbackUrl('${name}')`,
      this.#options.controlRequestTimeoutMs,
      undefined,
      () => this.#agent.mcp.submitOAuthCallback(name, callbackUrl),
    );
  }

  async interrupt(): Promise<void> {
    this.#current?.abort(new MusterError('ABORTED', 'The turn was interrupted.'));
  }

  async streamInput(stream: AsyncIterable<QueryUserMessage>): Promise<void> {
    return this.#input.add(stream);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#forgetAbort();
    this.#input.close();
    this.#current?.abort(new MusterError('ABORTED', 'The query was closed.'));
    await this.#agent.close();
  }

  async *#generate(): AsyncGenerator<QueryMessage, void> {
    let initSent = false;
    try {
      // a parked session (after `defer`) is continued first, before any new user turn
      if (await this.#parked()) {
        await this.initializationResult();
        initSent = true;
        yield this.#initMessage();
        if (yield* this.#runTurn(undefined)) return;
      }
      for (;;) {
        const turn = this.#closed ? undefined : await this.#input.next();
        if (!turn || this.#closed) break;
        if (!initSent) {
          await this.initializationResult();
          initSent = true;
          yield this.#initMessage();
        }
        // a turn that parks ends the query, as `defer` does in the reference SDKs
        if (yield* this.#runTurn(turn)) return;
      }
    } finally {
      this.#closed = true;
      this.#forgetAbort();
      this.#input.close();
      await this.#agent.close();
    }
  }

  /** Whether the query's session is parked on waits (only a given session id can be). */
  async #parked(): Promise<boolean> {
    if (this.#options.sessionId === undefined) return false;
    return (await this.#agent.sessions.get(this.#sessionId))?.status === 'parked';
  }

  /**
   * Runs one user turn, or (`turn` undefined) continues the parked session: `canUseTool` is
   * asked again about its pending calls, then the run resumes. Resolves true when the turn
   * ended parked.
   */
  async *#runTurn(turn: UserTurn | undefined): AsyncGenerator<QueryMessage, boolean> {
    const controller = new AbortController();
    this.#current = controller;
    const mapper = new RunMessageMapper(
      this.#sessionId,
      this.#options.modelName,
      this.#options.partialMessages,
    );
    let ended = false;
    let parked = false;
    try {
      let events: AsyncIterable<AgentEvent>;
      if (turn === undefined) {
        const { interrupt } = await decideDeferredCalls(
          this.#agent,
          this.#sessionId,
          this.#options.permissions,
          controller.signal,
          this.#options.principal,
        );
        if (interrupt) void this.interrupt();
        events = this.#agent.resume(this.#sessionId, {
          signal: controller.signal,
          ...(this.#options.principal !== undefined ? { principal: this.#options.principal } : {}),
          ...(this.#options.output ? { output: this.#options.output } : {}),
        });
      } else {
        events = this.#agent.run({
          ...turn,
          sessionId: this.#sessionId,
          signal: controller.signal,
          ...(this.#options.principal !== undefined ? { principal: this.#options.principal } : {}),
          ...(this.#options.output ? { output: this.#options.output } : {}),
        });
      }
      for await (const event of events) {
        for (const message of mapper.map(event)) {
          if (message.type === 'result') {
            ended = true;
            parked = message.subtype === 'parked';
          }
          yield message;
        }
      }
    } catch (err) {
      // the run yielded session.failed (mapped to a result) before throwing the same error
      if (!ended) yield mapper.failure(toMusterError(err, 'INTERNAL_ERROR', 'The turn failed'));
    } finally {
      if (this.#current === controller) this.#current = undefined;
    }
    return parked;
  }

  #initMessage(): QuerySystemInitMessage {
    return {
      type: 'system',
      subtype: 'init',
      session_id: this.#sessionId,
      uuid: randomUUID(),
      model: this.#options.modelName,
      cwd: this.#options.cwd,
      tools: this.#visibleTools(),
      mcp_servers: this.#agent.mcp.list().map((s) => ({ name: s.name, status: s.status })),
      permissionMode: 'default',
    };
  }

  #visibleTools(): string[] {
    const visible = this.#visible;
    return this.#agent.mcp
      .list()
      .flatMap((s) =>
        s.tools
          .filter(
            (t) =>
              !visible ||
              visible({ kind: 'tool', name: t.name, server: s.name, originalName: t.originalName }),
          )
          .map((t) => t.name),
      );
  }

  #statuses(): QueryMcpServerStatus[] {
    return this.#agent.mcp.list().map(toQueryStatus);
  }
}

function toQueryStatus(s: McpServerStatus): QueryMcpServerStatus {
  return {
    name: s.name,
    status: s.status,
    tools: s.tools.map((t) => ({
      name: t.name,
      annotations: {
        ...(t.annotations?.readOnlyHint !== undefined
          ? { readOnly: t.annotations.readOnlyHint }
          : {}),
        ...(t.annotations?.destructiveHint !== undefined
          ? { destructive: t.annotations.destructiveHint }
          : {}),
        ...(t.annotations?.openWorldHint !== undefined
          ? { openWorld: t.annotations.openWorldHint }
          : {}),
      },
    })),
    ...(s.error ? { error: s.error } : {}),
  };
}

/** Whether two URLs are the same once parsed (case of scheme and host, default ports...). */
function sameUrl(given: string, configured: string | URL | undefined): boolean {
  if (configured === undefined) return false;
  try {
    return new URL(given).href === new URL(String(configured)).href;
  } catch {
    return false;
  }
}
