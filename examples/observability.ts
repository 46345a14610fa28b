/**
 * Observability (docs/guide/observability.md), offline: `observability.onEvent` sees every
 * event, the policy observer sees every decision (never the arguments), and an OpenTelemetry
 * tracer (the SDK's in-memory exporter here) receives a span per run, model turn and tool call.
 *
 *   npx tsx examples/observability.ts
 */
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../src/index.js';

const exporter = new InMemorySpanExporter(); // in an app: an OTLP exporter, or NodeSDK
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const lookup = tool({
  name: 'lookup_order',
  description: 'Finds an order.',
  input: z.object({ id: z.string() }),
  annotations: { readOnlyHint: true },
  execute: ({ id }) => `order ${id}: shipped`,
});

const counts = new Map<string, number>();
const agent = createAgent({
  model: scriptedModel([
    { toolCalls: [{ name: 'lookup_order', arguments: { id: 'o-1' } }] },
    { text: 'Order o-1 has shipped.' },
  ]),
  tools: [lookup],
  policy: {
    allow: ['lookup_order'],
    observer: (d) => console.log(`[policy] ${d.toolName}: ${d.decision} at ${d.stage}`),
  },
  observability: {
    onEvent: (ev) => void counts.set(ev.type, (counts.get(ev.type) ?? 0) + 1),
    onError: (err) => console.error('an observer failed', err),
    tracer: provider.getTracer('my-app'),
    agentName: 'support',
  },
});

try {
  await agent.send('Where is order o-1?');
  console.log(`[events] ${[...counts].map(([type, n]) => `${type} ${n}`).join(', ')}`);
  for (const span of exporter.getFinishedSpans())
    console.log(`[span] ${span.name} (${span.attributes['gen_ai.operation.name']})`);
} finally {
  await agent.close();
}
