/**
 * `outputFormat` (the reference SDKs' typed answers) through `query()`: the run asks the model
 * for the schema, the success `result` carries the validated value as `structured_output`, and
 * an answer that stays invalid ends the turn with `error_max_structured_output_retries`. A
 * scripted model stands in for the vendor, with a real in-process server for a tool call.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MusterError, createSdkMcpServer, scriptedModel, sdkTool } from '../../src/index.js';
import type { ScriptedTurn } from '../../src/index.js';
import { query } from '../../src/query/index.js';
import type { QueryMessage, QueryOptions, QueryResultMessage } from '../../src/query/index.js';

const city = {
  type: 'object',
  properties: { name: { type: 'string' }, population: { type: 'integer', minimum: 0 } },
  required: ['name', 'population'],
  additionalProperties: false,
} as const;

const lookup = sdkTool('lookup', 'Finds a city.', { q: z.string() }, async ({ q }) => ({
  content: [{ type: 'text', text: `${q}: 2102650 people` }],
}));
const atlas = createSdkMcpServer({ name: 'atlas', tools: [lookup] });

async function run(turns: ScriptedTurn[], options: Omit<QueryOptions, 'model'> = {}) {
  const model = scriptedModel(turns);
  const q = query({
    prompt: 'How many people live in Paris?',
    options: {
      model,
      strictMcpConfig: true,
      outputFormat: { type: 'json_schema', schema: city },
      ...options,
    },
  });
  const messages: QueryMessage[] = [];
  for await (const m of q) messages.push(m);
  const results = messages.filter((m): m is QueryResultMessage => m.type === 'result');
  expect(results).toHaveLength(1);
  return { result: results[0]!, model, messages };
}

function thrown(fn: () => unknown): MusterError {
  try {
    fn();
  } catch (err) {
    if (MusterError.isInstance(err)) return err;
    throw err;
  }
  throw new Error('expected a MusterError');
}

describe('query() with outputFormat', () => {
  it('puts the validated answer in structured_output of the success result, after a tool call', async () => {
    const answer = { name: 'Paris', population: 2102650 };
    const { result, model, messages } = await run(
      [
        { toolCalls: [{ name: 'mcp__atlas__lookup', arguments: { q: 'Paris' } }] },
        { output: answer },
      ],
      { mcpServers: { atlas }, allowedTools: ['mcp__atlas__lookup'] },
    );
    expect(result).toMatchObject({ subtype: 'success', is_error: false, num_turns: 2 });
    expect(result.structured_output).toEqual(answer);
    expect(JSON.parse(result.result!)).toEqual(answer);
    // the tool ran before the answer, and every model request asked for the schema
    expect(messages.some((m) => m.type === 'user')).toBe(true);
    expect(model.requests).toHaveLength(2);
    for (const request of model.requests)
      expect(request.output?.schema).toMatchObject({ properties: { name: { type: 'string' } } });
  });

  it('leaves structured_output out when the query has no outputFormat', async () => {
    const model = scriptedModel([{ text: '{"name":"Paris","population":1}' }]);
    const q = query({ prompt: 'go', options: { model, strictMcpConfig: true } });
    const messages: QueryMessage[] = [];
    for await (const m of q) messages.push(m);
    const result = messages.find((m): m is QueryResultMessage => m.type === 'result');
    expect(result?.subtype).toBe('success');
    expect(result).not.toHaveProperty('structured_output');
    expect(model.requests[0]?.output).toBeUndefined();
  });

  it('repairs one invalid answer: the second, valid one is structured_output', async () => {
    const { result, model } = await run([
      { output: { name: 'Paris', population: -1 } },
      { output: { name: 'Paris', population: 3 } },
    ]);
    expect(result.subtype).toBe('success');
    expect(result.structured_output).toEqual({ name: 'Paris', population: 3 });
    expect(model.remainingTurns).toBe(0);
  });

  it('ends the turn with error_max_structured_output_retries when the answer is invalid twice', async () => {
    const { result, model } = await run([
      { text: 'About two million.' },
      { output: { name: 'Paris', population: 'many' } },
    ]);
    expect(result).toMatchObject({
      subtype: 'error_max_structured_output_retries',
      is_error: true,
      error_code: 'OUTPUT_INVALID',
    });
    expect(result).not.toHaveProperty('structured_output');
    expect(result).not.toHaveProperty('result');
    // one answer and one repair turn (the default outputRepairs), no third request
    expect(model.requests).toHaveLength(2);
  });

  it('refuses an outputFormat of another type, without a schema or with unknown keys as INVALID_CONFIGURATION', () => {
    const model = scriptedModel([]);
    const bad = [
      { type: 'json_object', schema: city },
      { type: 'json_schema' },
      { type: 'json_schema', schema: [] },
      { type: 'json_schema', schema: city, strict: true },
      'json_schema',
    ];
    for (const outputFormat of bad) {
      const error = thrown(() =>
        query({ prompt: 'go', options: { model, outputFormat } as unknown as QueryOptions }),
      );
      expect(error.code, JSON.stringify(outputFormat)).toBe('INVALID_CONFIGURATION');
      expect(error.message).toContain("'outputFormat");
    }
  });

  it('fails the turn with INVALID_CONFIGURATION for a schema that does not compile, asking nothing', async () => {
    const { result, model } = await run([{ output: {} }], {
      outputFormat: { type: 'json_schema', schema: { type: 'no-such-type' } },
    });
    expect(result).toMatchObject({
      subtype: 'error_during_execution',
      error_code: 'INVALID_CONFIGURATION',
    });
    expect(model.requests).toHaveLength(0);
  });
});
