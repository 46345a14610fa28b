import type {
  ToolCallEnvironment,
  ToolCallOutcome,
  ToolCallRequest,
  ToolInfo,
} from '../../tools/index.js';
import type { AgentEvent } from '../events.js';
import type { TurnAttempts } from '../model-turn.js';
import type { ObservedRun, RunObserver } from '../run-observer.js';
import {
  contentAttribute,
  failSpan,
  outputMessages,
  providerName,
  SPAN_KIND,
  usageAttributes,
} from './tracing-attributes.js';
import { ChatSpans } from './tracing-chat.js';
import type { TracedTurn } from './tracing-chat.js';
import { contextSpan } from './safe-tracer.js';
import { contextWithSpan, emptyContext } from './tracing-api.js';
import type { OtelApi } from './tracing-api.js';
import { ConnectSpans, factsOf } from './tracing-connects.js';
import type { ServerFactsBook } from './tracing-connects.js';
import type { TraceAttributes, TraceContext, TraceSpan, Tracer } from '../../util/index.js';

/** What a run trace is made from. */
export interface RunTraceSetup {
  readonly tracer: Tracer;
  /** The loaded API, for the active context; absent when it is not installed. */
  readonly api: OtelApi | undefined;
  /** The parent of the run span: the run's `traceContext`, else the active context. */
  readonly parent: TraceContext | undefined;
  /** Record arguments, results and messages (`observability.traceContent`). */
  readonly content: boolean;
  readonly servers: ServerFactsBook;
  /** Where a failure of the trace itself goes (it never changes the run). */
  readonly onError: (err: unknown) => void;
}

/**
 * The spans of one run (SPEC 12b): `invoke_agent` (the run), and under it `chat {model}` per
 * model turn attempt, `execute_tool {tool}` per tool call and `initialize` per MCP connect. Model and
 * tool spans are opened around the work (`modelTurn`, `toolCall`) and are the active context
 * while it runs; everything else is read from the run's events (`onEvent`). The run's `provider`
 * is recorded as `gen_ai.provider.name`, its `agentName` as `gen_ai.agent.name`, its `input` only
 * with `traceContent`.
 */
export class RunTrace implements RunObserver {
  readonly #setup: RunTraceSetup;
  readonly #run: ObservedRun;
  /** `gen_ai.provider.name` and the client's own provider string (the API flavour). */
  readonly #provider: TraceAttributes;
  readonly #span: TraceSpan;
  /** The context holding the run span: the parent of every span of the run. */
  readonly context: TraceContext;
  readonly #tools = new Map<string, TraceSpan>();
  readonly #connects: ConnectSpans;
  readonly #chats: ChatSpans;

  constructor(setup: RunTraceSetup, run: ObservedRun) {
    this.#setup = setup;
    this.#run = run;
    this.#provider = {
      'gen_ai.provider.name': providerName(run.provider),
      'muster.model.provider': run.provider,
    };
    const name = run.agentName ? `invoke_agent ${run.agentName}` : 'invoke_agent';
    this.#span = setup.tracer.startSpan(
      name,
      {
        kind: SPAN_KIND.internal,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          ...this.#provider,
          'gen_ai.request.model': run.modelName,
          'gen_ai.agent.name': run.agentName,
          'gen_ai.conversation.id': run.sessionId,
          'muster.run.id': run.runId,
          // who the run acts for (SPEC 15.4): an id the host chose, never a credential
          'muster.principal': run.principal,
          'gen_ai.input.messages':
            setup.content && run.input !== undefined
              ? contentAttribute([{ role: 'user', parts: [{ type: 'text', content: run.input }] }])
              : undefined,
        },
      },
      setup.parent,
    );
    this.context = this.#withSpan(setup.parent, this.#span);
    this.#connects = new ConnectSpans(
      () => setup.tracer,
      () => this.context,
      setup.servers,
    );
    this.#chats = new ChatSpans({
      tracer: setup.tracer,
      parent: this.context,
      attributes: {
        ...this.#provider,
        'gen_ai.request.model': run.modelName,
        'gen_ai.conversation.id': run.sessionId,
      },
      modelName: run.modelName,
      content: setup.content,
      within: (span, fn) => this.#within(span, fn),
    });
  }

  /**
   * One model turn as `chat` client spans, the active context while `take` runs: one span per
   * attempt (see {@link ChatSpans.turn}).
   */
  modelTurn<T extends TracedTurn>(
    iteration: number,
    stream: boolean,
    take: (attempts: TurnAttempts) => Promise<T>,
  ): Promise<T> {
    return this.#chats.turn(iteration, stream, take);
  }

  /**
   * One tool call as an `execute_tool` span covering its whole pipeline (validation, hooks,
   * policy, execution, result), active while it runs; `run` gets the context holding it (for a
   * delegated run's `traceContext`). The span ends at the call's `tool.completed`.
   */
  async toolCall(
    call: ToolCallRequest,
    env: ToolCallEnvironment,
    run: (call: ToolCallRequest, env: ToolCallEnvironment) => Promise<ToolCallOutcome>,
  ): Promise<ToolCallOutcome> {
    const info = env.catalog.get(call.name)?.info;
    const span = this.#startTool(call.callId, call.name, info, call.arguments);
    const context = this.#withSpan(this.context, span);
    try {
      return await this.#within(span, () => run(call, { ...env, traceContext: context }), context);
    } finally {
      // an outcome that never reached tool.completed (a bug upstream) still ends its span
      if (this.#tools.get(call.callId) === span) {
        this.#tools.delete(call.callId);
        failSpan(span, 'INTERNAL_ERROR');
      }
    }
  }

  /** Reads one event of the run into its spans; a failure here is reported, never thrown. */
  onEvent(event: AgentEvent): void {
    try {
      this.#read(event);
    } catch (err) {
      this.#setup.onError(err);
    }
  }

  #read(event: AgentEvent): void {
    switch (event.type) {
      case 'mcp.server.status':
        this.#connects.onStatus(event);
        return;
      case 'tool.called':
        if (this.#setup.content)
          this.#tools
            .get(event.callId)
            ?.setAttribute('gen_ai.tool.call.arguments', contentAttribute(event.arguments));
        return;
      case 'tool.completed': {
        // a call refused before the pipeline ran (too many calls in a turn) has no span yet
        const span =
          this.#tools.get(event.callId) ??
          this.#startTool(event.callId, event.toolName, undefined, undefined);
        this.#tools.delete(event.callId);
        const code = event.errorCode ?? (event.isError ? 'tool_error' : undefined);
        span.setAttribute('muster.tool.executed', event.executed);
        if (code) return failSpan(span, code);
        if (this.#setup.content)
          span.setAttribute('gen_ai.tool.call.result', contentAttribute(event.content));
        span.end();
        return;
      }
      case 'session.completed':
        this.#span.setAttributes({
          ...usageAttributes(event.usage),
          'muster.iterations': event.iterations,
          'gen_ai.output.messages': this.#setup.content
            ? outputMessages(event.content, [], 'stop')
            : undefined,
        });
        // a connect the run did not wait for: ended with the run (its outcome is not known here)
        this.#connects.endUnfinished();
        this.#span.end();
        return;
      case 'session.failed':
        this.#endOpen('ABORTED');
        failSpan(this.#span, event.error.code);
        return;
      default:
        return;
    }
  }

  #startTool(callId: string, name: string, info: ToolInfo | undefined, args: unknown): TraceSpan {
    const attributes: TraceAttributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': name,
      'gen_ai.tool.call.id': callId,
      'gen_ai.tool.type': info?.source === 'mcp' ? 'extension' : 'function',
      'gen_ai.conversation.id': this.#run.sessionId,
      'muster.tool.source': info?.source,
    };
    if (info?.source === 'mcp' && info.server !== undefined) {
      const facts = factsOf(this.#setup.servers, info.server);
      attributes['mcp.method.name'] = 'tools/call';
      attributes['muster.mcp.server'] = info.server;
      attributes['muster.mcp.tool.original_name'] = info.originalName;
      attributes['mcp.protocol.version'] = facts.protocolVersion;
      attributes['network.transport'] = facts.transport;
    }
    if (this.#setup.content && args !== undefined)
      attributes['gen_ai.tool.call.arguments'] = contentAttribute(args);
    const span = this.#setup.tracer.startSpan(
      `execute_tool ${name}`,
      { kind: SPAN_KIND.internal, attributes },
      this.context,
    );
    this.#tools.set(callId, span);
    return span;
  }

  /** Ends the spans a failed run left open. */
  #endOpen(code: string): void {
    for (const span of this.#tools.values()) failSpan(span, code);
    this.#tools.clear();
    this.#connects.endAll(code);
  }

  #withSpan(parent: TraceContext | undefined, span: TraceSpan): TraceContext {
    const api = this.#setup.api;
    const base = parent ?? api?.ROOT_CONTEXT ?? emptyContext();
    // the context holds the tracer's own span (its children read its span context)
    const inner = contextSpan(span);
    if (!inner) return base;
    return api ? api.trace.setSpan(base, inner) : contextWithSpan(base, inner);
  }

  /** Runs `fn` with `span` as the active context (when the API is there to hold one). */
  #within<T>(span: TraceSpan, fn: () => T, context?: TraceContext): T {
    const api = this.#setup.api;
    return api ? api.context.with(context ?? this.#withSpan(this.context, span), fn) : fn();
  }
}
