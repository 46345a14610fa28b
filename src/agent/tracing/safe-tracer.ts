import type { TraceAttributes, TraceAttributeValue, Tracer, TraceSpan } from '../../util/index.js';

/**
 * A tracer whose failures never change a run (as for every observer, SPEC 10): a `startSpan`
 * that throws gives a span that records nothing, and a span method that throws is reported to
 * `onError` and ignored.
 */
export function safeTracer(tracer: Tracer, onError: (err: unknown) => void): Tracer {
  return {
    startSpan(name, options, context) {
      try {
        return new SafeSpan(tracer.startSpan(name, options, context), onError);
      } catch (err) {
        onError(err);
        return new SafeSpan(undefined, onError);
      }
    },
  };
}

class SafeSpan implements TraceSpan {
  readonly #span: TraceSpan | undefined;
  readonly #onError: (err: unknown) => void;

  constructor(span: TraceSpan | undefined, onError: (err: unknown) => void) {
    this.#span = span;
    this.#onError = onError;
  }

  /** The span this one guards: what `trace.setSpan` must hold, so the host's spans nest under it. */
  get inner(): TraceSpan | undefined {
    return this.#span;
  }

  setAttribute(key: string, value: TraceAttributeValue): unknown {
    return this.#try((s) => s.setAttribute(key, value));
  }
  setAttributes(attributes: TraceAttributes): unknown {
    return this.#try((s) => s.setAttributes(attributes));
  }
  addEvent(name: string, attributes?: TraceAttributes): unknown {
    return this.#try((s) => s.addEvent(name, attributes));
  }
  setStatus(status: { code: number; message?: string }): unknown {
    return this.#try((s) => s.setStatus(status));
  }
  end(endTime?: number): void {
    this.#try((s) => s.end(endTime));
  }
  isRecording(): boolean {
    return this.#try((s) => s.isRecording()) === true;
  }

  #try<T>(fn: (span: TraceSpan) => T): T | undefined {
    if (!this.#span) return undefined;
    try {
      return fn(this.#span);
    } catch (err) {
      this.#onError(err);
      return undefined;
    }
  }
}

/** The span to put into a context: the guarded one, so the SDK's own span is what children see. */
export function contextSpan(span: TraceSpan): TraceSpan | undefined {
  return span instanceof SafeSpan ? span.inner : span;
}
