import { once } from '../../util/index.js';
import type { TraceContext, TraceSpan, Tracer } from '../../util/index.js';

/** The part of `@opentelemetry/api` Muster uses, typed structurally (the package is optional). */
export interface OtelApi {
  readonly trace: {
    getTracer(name: string, version?: string): Tracer;
    setSpan(context: TraceContext, span: TraceSpan): TraceContext;
  };
  readonly context: {
    active(): TraceContext;
    with<T>(context: TraceContext, fn: () => T): T;
  };
  readonly ROOT_CONTEXT: TraceContext;
}

// a variable, so bundlers and the type checker do not insist on the optional package
const API_MODULE = '@opentelemetry/api';
/**
 * `@opentelemetry/api`, imported on first use and at most once per process; `undefined` when it
 * is not installed (or is not a 1.x API).
 */
export const loadOtelApi: () => Promise<OtelApi | undefined> = once(() =>
  import(API_MODULE).then(
    (m: { default?: unknown } & Partial<OtelApi>) => {
      const api = (m.trace ? m : m.default) as Partial<OtelApi> | undefined;
      return api?.trace && api.context && api.ROOT_CONTEXT ? (api as OtelApi) : undefined;
    },
    () => undefined,
  ),
);

/** The API's registry of globals (shared by every copy of API 1.x) by its `Symbol.for` key. */
const GLOBALS_KEY = Symbol.for('opentelemetry.js.api.1');

/**
 * What is registered with `@opentelemetry/api` in this process, read without importing it: the
 * API keeps its globals under a `Symbol.for` key of `globalThis` (that is how separate copies
 * of the package share a provider), and `trace` is there once a tracer provider is registered
 * (`trace.setGlobalTracerProvider`, an SDK's `register()`), `context` once a context manager is.
 */
export function otelGlobals():
  | { readonly trace?: unknown; readonly context?: unknown }
  | undefined {
  return (globalThis as Record<symbol, { trace?: unknown; context?: unknown } | undefined>)[
    GLOBALS_KEY
  ];
}

/** The key under which the API keeps a context's span (`createContextKey` uses `Symbol.for`). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/**
 * A context holding `span`, for a tracer used without the API installed: the same key the
 * API's `trace.setSpan` writes, on a minimal immutable context.
 */
export function contextWithSpan(parent: TraceContext | undefined, span: TraceSpan): TraceContext {
  return (parent ?? EMPTY).setValue(SPAN_KEY, span);
}

class MinimalContext implements TraceContext {
  readonly #values: Map<symbol, unknown>;
  constructor(values: Map<symbol, unknown> = new Map()) {
    this.#values = values;
  }
  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }
  setValue(key: symbol, value: unknown): TraceContext {
    return new MinimalContext(new Map(this.#values).set(key, value));
  }
  deleteValue(key: symbol): TraceContext {
    const values = new Map(this.#values);
    values.delete(key);
    return new MinimalContext(values);
  }
}

const EMPTY: TraceContext = new MinimalContext();

/** An empty context, for a tracer used without the API installed. */
export function emptyContext(): TraceContext {
  return EMPTY;
}
