import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../../src/index.js';
import type { AgentEvent, Tracer } from '../../src/index.js';
import { collect, deferred } from '../support/run-helpers.js';
import { one, recorder } from '../support/tracing.js';

// SPEC 12b: a run that ends early (aborted by its signal, or by a consumer that stops
// iterating) with tool calls in flight still ends every span it started.

/** Two read-only tools (run concurrently) that wait on promises the test holds. */
function waitingAgent(onBothStarted: () => void) {
  const release = deferred<string>();
  let started = 0;
  const waiting = (name: string) =>
    tool({
      name,
      description: 'Waits for the test.',
      input: z.object({}),
      annotations: { readOnlyHint: true },
      execute: () => {
        if (++started === 2) onBothStarted();
        return release.promise;
      },
    });
  const { exporter, tracer } = recorder();
  const names: string[] = [];
  // counts every span the run starts, to compare with the spans that ended
  const counting: Tracer = {
    startSpan: (name, options, context) => {
      names.push(name);
      return tracer.startSpan(name, options as never, context as never);
    },
  };
  const agent = createAgent({
    model: scriptedModel([
      {
        toolCalls: [
          { name: 'wait_a', arguments: {} },
          { name: 'wait_b', arguments: {} },
        ],
      },
      { text: 'never' },
    ]),
    modelName: 'scripted-1',
    tools: [waiting('wait_a'), waiting('wait_b')],
    policy: { allow: ['wait_a', 'wait_b'] },
    observability: { tracer: counting },
  });
  return { agent, exporter, started: names, release: () => release.resolve('late') };
}

function expectAllEnded(
  exporter: ReturnType<typeof recorder>['exporter'],
  started: readonly string[],
) {
  const spans = exporter.getFinishedSpans();
  expect(spans.map((s) => s.name).sort()).toEqual([...started].sort());
  expect(started).toEqual(
    expect.arrayContaining(['invoke_agent', 'chat scripted-1', 'execute_tool wait_a']),
  );
  for (const name of ['execute_tool wait_a', 'execute_tool wait_b']) {
    const call = one(spans, name);
    expect(call.attributes['error.type'], name).toBe('TOOL_OUTCOME_UNKNOWN');
    expect(call.status).toEqual({ code: 2, message: 'TOOL_OUTCOME_UNKNOWN' });
  }
  const run = one(spans, 'invoke_agent');
  expect(run.attributes['error.type']).toBe('ABORTED');
  expect(run.status.code).toBe(2);
  expect(one(spans, 'chat scripted-1').status.code).toBe(0);
}

describe('spans of a run that ends early', () => {
  it('are all ended when the run is aborted with two calls in flight', async () => {
    const ac = new AbortController();
    const { agent, exporter, started, release } = waitingAgent(() => ac.abort());
    try {
      const { error } = await collect(agent.run({ input: 'wait', signal: ac.signal }));
      expect(error?.code).toBe('ABORTED');
      expectAllEnded(exporter, started);
    } finally {
      release();
      await agent.close();
    }
  });

  it('are all ended when the consumer breaks out of the loop with two calls in flight', async () => {
    const both = deferred();
    const { agent, exporter, started, release } = waitingAgent(() => both.resolve());
    const seen: AgentEvent['type'][] = [];
    try {
      for await (const ev of agent.run({ input: 'wait' })) {
        seen.push(ev.type);
        if (seen.filter((t) => t === 'tool.called').length < 2) continue;
        await both.promise; // both calls are executing: stop reading
        break;
      }
      expect(seen).not.toContain('session.failed');
      expectAllEnded(exporter, started);
    } finally {
      release();
      await agent.close();
    }
  });
});
