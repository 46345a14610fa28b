import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { expect } from 'vitest';

// Shared by the tracing tests: the OpenTelemetry SDK's in-memory exporter and span lookups.

/** A tracer whose spans land in an in-memory exporter. */
export function recorder() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, provider, tracer: provider.getTracer('test') };
}

export const byName = (spans: readonly ReadableSpan[], name: string) =>
  spans.filter((s) => s.name === name);
export const one = (spans: readonly ReadableSpan[], name: string): ReadableSpan => {
  const found = byName(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
};
export const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
export const idOf = (span: ReadableSpan) => span.spanContext().spanId;

/** A span time in milliseconds. */
export function hrMs(time: readonly [number, number]): number {
  return time[0] * 1e3 + time[1] / 1e6;
}
