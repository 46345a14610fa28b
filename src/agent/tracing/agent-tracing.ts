import type { McpTransportType } from '../../mcp/index.js';
import type { TraceContext, Tracer } from '../../util/index.js';
import type { Observability } from '../agent-options.js';
import type { AgentEvent } from '../events.js';
import { UNOBSERVED } from '../run-observer.js';
import type { ObservedRun, RunObserver, RunTracing } from '../run-observer.js';
import { RunTrace } from './run-trace.js';
import { TRACER_NAME } from './tracing-attributes.js';
import { loadOtelApi, otelGlobals } from './tracing-api.js';
import type { OtelApi } from './tracing-api.js';
import { safeTracer } from './safe-tracer.js';
import { ConnectSpans } from './tracing-connects.js';
import type { ServerFactsBook } from './tracing-connects.js';

/**
 * An agent's tracing (SPEC 12b): the tracer is `observability.tracer`, else the global provider
 * of `@opentelemetry/api`. Whether a global provider (or context manager) is registered is read
 * from the API's globals without importing it; the API is imported only then, on the first run
 * that needs it, once. So with no tracer and no provider a run builds no span and imports
 * nothing (one property read per run). Connects outside runs (`initialize()`, `register()`) get
 * spans of their own once the tracer is known.
 */
export class AgentTracing implements RunTracing {
  readonly #explicit: Tracer | undefined;
  readonly #content: boolean;
  readonly #servers: ServerFactsBook;
  #loading: Promise<OtelApi | undefined> | undefined;
  #api: OtelApi | undefined;
  #background: ConnectSpans | undefined;

  readonly #onError: (err: unknown) => void;

  private constructor(
    options: Observability,
    transportOf: ServerFactsBook['transportOf'],
    onError: (err: unknown) => void,
  ) {
    this.#onError = onError;
    this.#explicit = options.tracer && safeTracer(options.tracer, onError);
    this.#content = options.traceContent === true;
    this.#servers = { facts: new Map(), transportOf };
  }

  /** The tracing of an agent with these options; `undefined` when `tracing` is `false`. */
  static of(
    options: Observability | undefined,
    transportOf: (server: string) => McpTransportType | undefined,
    onError: (err: unknown) => void,
  ): AgentTracing | undefined {
    if (options?.tracing === false) return undefined;
    return new AgentTracing(options ?? {}, transportOf, onError);
  }

  /**
   * Imports the API when something is registered with it (a provider, or a context manager
   * for a given tracer's parents), at most once; resolves at once otherwise.
   */
  async prepare(): Promise<void> {
    if (this.#loading) {
      await this.#loading;
      return;
    }
    const globals = otelGlobals();
    if (!(this.#explicit ? globals : globals?.trace)) return;
    this.#loading = loadOtelApi();
    this.#api = await this.#loading;
  }

  /**
   * Whether a run starting now is traced: a tracer was given, or a provider is registered with
   * the API. Decided synchronously (one property read), so an untraced run awaits nothing.
   */
  traces(): boolean {
    return this.#explicit !== undefined || otelGlobals()?.trace !== undefined;
  }

  /**
   * The trace of a run starting now (call it when {@link traces}), or `UNOBSERVED` when there
   * is no tracer after all. `run.agentName` is the running agent's own (a child's differs from
   * its root's). `parent` is the run's own `traceContext`; otherwise the active context is the
   * parent.
   */
  async startRun(run: ObservedRun, parent: TraceContext | undefined): Promise<RunObserver> {
    if (!this.traces()) return UNOBSERVED;
    await this.prepare();
    const tracer = this.#tracer();
    if (!tracer) return UNOBSERVED;
    const api = this.#api;
    return new RunTrace(
      {
        tracer,
        api,
        parent: parent ?? api?.context.active(),
        content: this.#content,
        servers: this.#servers,
        onError: this.#onError,
      },
      run,
    );
  }

  /** Reads an event from outside any run: connects started by `initialize()` or the registry. */
  background(event: AgentEvent): void {
    if (event.type !== 'mcp.server.status') return;
    this.#background ??= new ConnectSpans(
      () => this.#tracer(),
      () => this.#api?.context.active(),
      this.#servers,
    );
    try {
      this.#background.onStatus(event);
    } catch (err) {
      this.#onError(err);
    }
  }

  #tracer(): Tracer | undefined {
    if (this.#explicit) return this.#explicit;
    const api = this.#api;
    if (!api || !otelGlobals()?.trace) return undefined;
    // not kept: the global provider may be replaced (a tracer of the old one would stay bound)
    return safeTracer(api.trace.getTracer(TRACER_NAME), this.#onError);
  }
}
