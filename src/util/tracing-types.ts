// Structural copies of the few OpenTelemetry API types Muster uses. An `@opentelemetry/api`
// `Tracer`, `Span` and `Context` fit them, but nothing here imports the package, so the
// declarations compile for hosts that do not have it installed (SPEC 12b: it is an optional
// peer dependency).

/** An attribute value, as OpenTelemetry accepts it. */
export type TraceAttributeValue = string | number | boolean | string[] | number[];

/** Span attributes by key. */
export type TraceAttributes = Record<string, TraceAttributeValue | undefined>;

/**
 * An OpenTelemetry `Context` (opaque to Muster): what `context.active()` returns and what a
 * run or a tool receives as `traceContext`.
 */
export interface TraceContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): TraceContext;
  deleteValue(key: symbol): TraceContext;
}

/** The span-creation options Muster passes (a subset of OpenTelemetry's `SpanOptions`). */
export interface TraceSpanOptions {
  /** `SpanKind`: 0 internal, 2 client. */
  kind?: number;
  attributes?: TraceAttributes;
  startTime?: number;
}

/** The part of an OpenTelemetry `Span` Muster uses. */
export interface TraceSpan {
  setAttribute(key: string, value: TraceAttributeValue): unknown;
  setAttributes(attributes: TraceAttributes): unknown;
  addEvent(name: string, attributes?: TraceAttributes): unknown;
  /** `code`: 1 ok, 2 error. */
  setStatus(status: { code: number; message?: string }): unknown;
  end(endTime?: number): void;
  isRecording(): boolean;
}

/**
 * An OpenTelemetry `Tracer` (from `@opentelemetry/api`; any object with this `startSpan`
 * fits), for `observability.tracer`.
 */
export interface Tracer {
  startSpan(name: string, options?: TraceSpanOptions, context?: TraceContext): TraceSpan;
}
