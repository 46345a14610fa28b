import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { MusterError } from '../../errors/index.js';
import type { AgentEvent } from '../events.js';
import { RunTrace } from './run-trace.js';

function runTrace() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const errors: unknown[] = [];
  const trace = new RunTrace(
    {
      tracer: provider.getTracer('test'),
      api: undefined,
      parent: undefined,
      content: false,
      servers: { facts: new Map(), transportOf: () => 'stdio' },
      onError: (err) => errors.push(err),
    },
    { sessionId: 's1', runId: 'r1', modelName: 'm', provider: 'scripted' },
  );
  return { exporter, trace, errors };
}

const base = { timestamp: '2026-01-01T00:00:00.000Z', sessionId: 's1', runId: 'r1' };
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

describe('RunTrace', () => {
  it('ends a connect still open when the run completes, as unfinished and not failed', () => {
    const { exporter, trace, errors } = runTrace();
    trace.onEvent({
      ...base,
      type: 'mcp.server.status',
      server: 'slow',
      status: 'connecting',
    } as AgentEvent);
    trace.onEvent({
      ...base,
      type: 'session.completed',
      content: 'done',
      iterations: 1,
      usage,
    } as AgentEvent);
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name).sort()).toEqual(['initialize', 'invoke_agent']);
    const connect = spans.find((s) => s.name === 'initialize')!;
    expect(connect.attributes['muster.mcp.connect.unfinished']).toBe(true);
    expect(connect.attributes['error.type']).toBeUndefined();
    expect(connect.status.code).toBe(0);
    expect(errors).toEqual([]);
  });

  it('marks a model turn whose work threw with the error code, not INTERNAL_ERROR', async () => {
    const { exporter, trace } = runTrace();
    const failure = new MusterError('AGENT_LIMIT_EXCEEDED', 'over the context limits');
    await expect(trace.modelTurn(1, false, () => Promise.reject(failure))).rejects.toBe(failure);
    await expect(
      trace.modelTurn(2, false, () => Promise.reject(new Error('a plain bug'))),
    ).rejects.toThrow('a plain bug');
    const turns = exporter.getFinishedSpans().filter((s) => s.name === 'chat m');
    expect(turns.map((s) => s.attributes['error.type'])).toEqual([
      'AGENT_LIMIT_EXCEEDED',
      'INTERNAL_ERROR',
    ]);
  });
});
