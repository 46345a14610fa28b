import type { McpTransportType } from '../mcp/index.js';
import type { Observability } from './agent-options.js';
import type { AgentEvent } from './events.js';
import { RunTrace } from './run-trace.js';
import type { TracedRun } from './run-trace.js';
import { TRACER_NAME } from './tracing-attributes.js';
import { globalProviderProbe, loadOtelApi } from './tracing-api.js';
import type { OtelApi } from './tracing-api.js';
import { ConnectSpans } from './tracing-connects.js';
import type { ServerFactsBook } from './tracing-connects.js';
import type { TraceContext, Tracer } from '../util/index.js';

/**
 * An agent's tracing (SPEC 12b): the tracer (`observability.tracer`, else the global provider
 * of `@opentelemetry/api`), found on the first run. The API is imported then, once, and only
 * when tracing is not turned off; without it installed, or with no global provider registered
 * and no tracer given, a run builds no span. Connects outside runs (`initialize()`,
 * `register()`) get spans of their own once the tracer is known.
 */
export class AgentTracing {
  readonly #explicit: Tracer | undefined;
  readonly #content: boolean;
  readonly #agentName: string | undefined;
  readonly #servers: ServerFactsBook;
  #ready: Promise<void> | undefined;
  #api: OtelApi | undefined;
  #hasProvider: (() => boolean) | undefined;
  #global: Tracer | undefined;
  #background: ConnectSpans | undefined;

  private constructor(options: Observability, transportOf: ServerFactsBook['transportOf']) {
    this.#explicit = options.tracer;
    this.#content = options.traceContent === true;
    this.#agentName = options.agentName;
    this.#servers = { facts: new Map(), transportOf };
  }

  /** The tracing of an agent with these options; `undefined` when `tracing` is `false`. */
  static of(
    options: Observability | undefined,
    transportOf: (server: string) => McpTransportType | undefined,
  ): AgentTracing | undefined {
    if (options?.tracing === false) return undefined;
    return new AgentTracing(options ?? {}, transportOf);
  }

  /** Loads the API (once; a failure to load means "not installed"). */
  prepare(): Promise<void> {
    this.#ready ??= loadOtelApi().then((api) => {
      this.#api = api;
      if (api && !this.#explicit) this.#hasProvider = globalProviderProbe(api);
    });
    return this.#ready;
  }

  /**
   * The trace of a run starting now, or `undefined` when there is no tracer (no span is built
   * then). `parent` is the run's own `traceContext`; otherwise the active context is the parent.
   */
  async startRun(
    run: Omit<TracedRun, 'agentName'>,
    parent: TraceContext | undefined,
  ): Promise<RunTrace | undefined> {
    if (!this.#ready) await this.prepare();
    else await this.#ready;
    const tracer = this.#tracer();
    if (!tracer) return undefined;
    const api = this.#api;
    return new RunTrace(
      {
        tracer,
        api,
        parent: parent ?? api?.context.active(),
        content: this.#content,
        servers: this.#servers,
      },
      { ...run, agentName: this.#agentName },
    );
  }

  /** Reads an event from outside any run: connects started by `initialize()` or the registry. */
  background(event: AgentEvent): void {
    if (event.type !== 'mcp.server.status') return;
    const tracer = this.#ready ? this.#tracer() : undefined;
    if (!this.#background || this.#backgroundTracer !== tracer) {
      this.#backgroundTracer = tracer;
      this.#background = new ConnectSpans(tracer, () => this.#api?.context.active(), this.#servers);
    }
    this.#background.onStatus(event);
  }

  #backgroundTracer: Tracer | undefined;

  #tracer(): Tracer | undefined {
    if (this.#explicit) return this.#explicit;
    const api = this.#api;
    if (!api || !this.#hasProvider?.()) return undefined;
    this.#global ??= api.trace.getTracer(TRACER_NAME);
    return this.#global;
  }
}
