import { describe, expect, it } from 'vitest';
import { createAgent, ModelError, scriptedModel } from '../../src/index.js';
import type { ModelClient, ScriptedTurn } from '../../src/index.js';
import { collect } from '../support/run-helpers.js';
import { byName, hrMs, idOf, one, parentOf, recorder } from '../support/tracing.js';

// SPEC 12b: what the run and chat spans say of the provider, of the agent that runs (a root,
// a child, a delegated run), of retried model turns and of turns whose preparation failed.

/** The scripted model under another client's provider string. */
function asProvider(provider: string, turns: readonly ScriptedTurn[]): ModelClient {
  const model = scriptedModel(turns);
  return {
    specificationVersion: 'muster-model-v1',
    provider,
    defaultModelName: 'gpt-test',
    generate: (request, options) => model.generate(request, options),
  };
}

const rateLimited = () => {
  throw new ModelError('MODEL_REQUEST_FAILED', 'Rate limited: try later.', {
    status: 429,
    isRetryable: true,
  });
};

describe('the provider on spans', () => {
  it("records the conventions' well-known provider name and the client's own provider string", async () => {
    const { exporter, tracer } = recorder();
    const agent = createAgent({
      model: asProvider('openai.responses', [{ text: 'hi' }]),
      observability: { tracer },
    });
    const { error } = await collect(agent.run({ input: 'hello' }));
    expect(error).toBeUndefined();
    const spans = exporter.getFinishedSpans();
    for (const span of [one(spans, 'invoke_agent'), one(spans, 'chat gpt-test')])
      expect(span.attributes).toMatchObject({
        'gen_ai.provider.name': 'openai',
        'muster.model.provider': 'openai.responses',
      });
    await agent.close();
  });
});

describe('agent names', () => {
  it("names a child's run after the child (never its root), and an unnamed child's not at all", async () => {
    const { exporter, tracer } = recorder();
    const root = createAgent({
      model: scriptedModel([{ text: 'root answer' }]),
      modelName: 'root-model',
      observability: { tracer, agentName: 'team' },
    });
    const named = root.child({ name: 'researcher', model: scriptedModel([{ text: 'found' }]) });
    const unnamed = root.child({ model: scriptedModel([{ text: 'plain' }]) });
    for (const agent of [root, named, unnamed])
      expect((await collect(agent.run({ input: 'go' }))).error).toBeUndefined();
    const runs = exporter
      .getFinishedSpans()
      .filter((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent');
    expect(runs.map((s) => [s.name, s.attributes['gen_ai.agent.name']])).toEqual([
      ['invoke_agent team', 'team'],
      ['invoke_agent researcher', 'researcher'],
      ['invoke_agent', undefined],
    ]);
    await root.close();
  });

  it('names a delegated run after its tool when the agent has no name, else after the agent', async () => {
    const { exporter, tracer } = recorder();
    const root = createAgent({
      model: scriptedModel([]),
      policy: { allow: ['lookup', 'review'] },
      observability: { tracer, agentName: 'team' },
    });
    const unnamed = root.child({ model: scriptedModel([{ text: 'looked up' }]) });
    const named = root.child({ name: 'reviewer', model: scriptedModel([{ text: 'reviewed' }]) });
    const lead = root.child({
      name: 'lead',
      model: scriptedModel([
        {
          toolCalls: [
            { name: 'lookup', arguments: { prompt: 'find' } },
            { name: 'review', arguments: { prompt: 'check' } },
          ],
        },
        { text: 'done' },
      ]),
      tools: [
        unnamed.asTool({ name: 'lookup', description: 'Looks up.' }),
        named.asTool({ name: 'review', description: 'Reviews.' }),
      ],
    });
    const { error } = await collect(lead.run({ input: 'go' }));
    expect(error).toBeUndefined();
    const spans = exporter.getFinishedSpans();
    const leadRun = one(spans, 'invoke_agent lead');
    const lookup = one(spans, 'invoke_agent lookup');
    const review = one(spans, 'invoke_agent reviewer');
    expect(lookup.attributes['gen_ai.agent.name']).toBe('lookup');
    expect(parentOf(lookup)).toBe(idOf(one(spans, 'execute_tool lookup')));
    expect(parentOf(review)).toBe(idOf(one(spans, 'execute_tool review')));
    expect(parentOf(one(spans, 'execute_tool lookup'))).toBe(idOf(leadRun));
    expect(byName(spans, 'invoke_agent team')).toEqual([]);
    await root.close();
  });

  it('refuses a child name of the wrong shape with INVALID_CONFIGURATION', async () => {
    const root = createAgent({ model: scriptedModel([]) });
    for (const name of ['', 7, 'x'.repeat(201)])
      expect(() => root.child({ name } as never), JSON.stringify(name)).toThrow(
        expect.objectContaining({ code: 'INVALID_CONFIGURATION' }),
      );
    await root.close();
  });
});

describe('model turns', () => {
  it('gives each attempt of a retried turn its own chat span, none covering the waits', async () => {
    const { exporter, tracer } = recorder();
    const agent = createAgent({
      model: scriptedModel([rateLimited, rateLimited, { text: 'at last' }]),
      modelName: 'scripted-1',
      modelRetry: { maxAttempts: 3, initialDelayMs: 20, maxDelayMs: 20 },
      observability: { tracer },
    });
    const { error } = await collect(agent.run({ input: 'hi' }));
    expect(error).toBeUndefined();
    const spans = exporter.getFinishedSpans();
    const run = one(spans, 'invoke_agent');
    const turns = byName(spans, 'chat scripted-1');
    expect(
      turns.map((t) => [
        t.attributes['muster.iteration'],
        t.attributes['muster.model.attempt'],
        t.attributes['error.type'],
        t.status.code,
      ]),
    ).toEqual([
      [1, 1, 'MODEL_REQUEST_FAILED', 2],
      [1, 2, 'MODEL_REQUEST_FAILED', 2],
      [1, 3, undefined, 0],
    ]);
    expect(turns[2]!.attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);
    for (const t of turns) expect(parentOf(t)).toBe(idOf(run));
    // each attempt starts after the previous one ended (a span's start is whole milliseconds)
    for (let i = 1; i < turns.length; i++)
      expect(hrMs(turns[i]!.startTime)).toBeGreaterThanOrEqual(
        Math.floor(hrMs(turns[i - 1]!.endTime)),
      );
    await agent.close();
  });

  it("marks a turn whose request could not be prepared with the run's error code", async () => {
    const { exporter, tracer } = recorder();
    const agent = createAgent({
      model: scriptedModel([{ text: 'never' }]),
      modelName: 'scripted-1',
      context: { maxBytes: 64 },
      observability: { tracer },
    });
    const { error } = await collect(agent.run({ input: 'a long question '.repeat(20) }));
    expect(error?.code).toBe('AGENT_LIMIT_EXCEEDED');
    const spans = exporter.getFinishedSpans();
    expect(one(spans, 'invoke_agent').attributes['error.type']).toBe('AGENT_LIMIT_EXCEEDED');
    const turn = one(spans, 'chat scripted-1');
    expect(turn.attributes['error.type']).toBe('AGENT_LIMIT_EXCEEDED');
    expect(turn.status).toEqual({ code: 2, message: 'AGENT_LIMIT_EXCEEDED' });
    await agent.close();
  });
});
