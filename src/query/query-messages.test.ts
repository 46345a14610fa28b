import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../agent/index.js';
import { MusterError } from '../errors/index.js';
import { RunMessageMapper, toQueryUsage } from './query-messages.js';

const base = { timestamp: '2026-01-01T00:00:00.000Z', sessionId: 's', runId: 'r' };
const usage = { inputTokens: 5, outputTokens: 2, totalTokens: 7, cachedInputTokens: 1 };

describe('RunMessageMapper', () => {
  it("maps only its own run's events, not a delegated sub-run's forwarded ones", () => {
    const m = new RunMessageMapper('sess', 'fallback');
    const sub = { ...base, runId: 'sub-run', sessionId: 'sub-session' };
    const out = [
      { ...base, type: 'session.started', continued: false, modelName: 'm' },
      { ...sub, type: 'session.started', continued: false, modelName: 'm' },
      { ...sub, type: 'session.completed', content: 'child answer', iterations: 1, usage },
      { ...base, type: 'session.completed', content: 'parent answer', iterations: 2, usage },
    ].flatMap((e) => m.map(e as AgentEvent));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ type: 'result', result: 'parent answer' });
  });

  it('maps a model turn, its tool result and the final answer', () => {
    const m = new RunMessageMapper('sess', 'fallback');
    const events: AgentEvent[] = [
      { ...base, type: 'session.started', continued: false, modelName: 'model-x' },
      {
        ...base,
        type: 'model.completed',
        iteration: 1,
        text: 'Looking.',
        toolCalls: [{ callId: 'c1', name: 'mcp__a__b', arguments: { q: 1 } }],
        stopReason: 'tool-calls',
        usage,
      },
      {
        ...base,
        type: 'tool.decision',
        callId: 'c1',
        toolName: 'mcp__a__b',
        decision: 'deny',
        stage: 'deny',
        dryRun: false,
      },
      {
        ...base,
        type: 'tool.completed',
        callId: 'c1',
        toolName: 'mcp__a__b',
        isError: true,
        content: 'Error [TOOL_DENIED]: no',
        executed: false,
        durationMs: 1,
      },
      { ...base, type: 'session.completed', content: 'Done.', iterations: 2, usage },
    ];
    const out = events.flatMap((e) => m.map(e));
    expect(out.map((x) => x.type)).toEqual(['assistant', 'user', 'result']);
    expect(out[0]).toMatchObject({
      session_id: 'sess',
      message: {
        model: 'model-x',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'c1', name: 'mcp__a__b', input: { q: 1 } },
        ],
        stop_reason: 'tool-calls',
        usage: { input_tokens: 5, output_tokens: 2, cache_read_input_tokens: 1 },
      },
    });
    expect(out[1]).toMatchObject({
      message: { content: [{ type: 'tool_result', tool_use_id: 'c1', is_error: true }] },
    });
    expect(out[2]).toMatchObject({
      subtype: 'success',
      result: 'Done.',
      is_error: false,
      num_turns: 1,
      permission_denials: [{ tool_name: 'mcp__a__b', tool_use_id: 'c1', tool_input: { q: 1 } }],
    });
  });

  it('maps an elicitation completion notification, not an answer', () => {
    const m = new RunMessageMapper('sess', 'x');
    const done = (via: 'answer' | 'notification') =>
      m.map({ ...base, type: 'elicitation.completed', server: 'gh', via, elicitationId: 'e-1' });
    expect(done('answer')).toEqual([]);
    expect(done('notification')).toMatchObject([
      {
        type: 'system',
        subtype: 'elicitation_complete',
        mcp_server_name: 'gh',
        elicitation_id: 'e-1',
      },
    ]);
  });

  it('gives error_max_turns for the iteration limit and error_during_execution otherwise', () => {
    const m = new RunMessageMapper('sess', 'x');
    const limit = new MusterError('AGENT_LIMIT_EXCEEDED', 'too many', {
      details: { limit: 'maxIterations' },
    });
    expect(m.failure(limit)).toMatchObject({ subtype: 'error_max_turns', is_error: true });
    expect(
      m.map({ ...base, type: 'session.failed', error: new MusterError('ABORTED', 'stop') }),
    ).toMatchObject([
      { subtype: 'error_during_execution', errors: ['stop'], error_code: 'ABORTED' },
    ]);
  });

  it('gives error_max_structured_output_retries for OUTPUT_INVALID, and structured_output on success', () => {
    const m = new RunMessageMapper('sess', 'x');
    const invalid = new MusterError('OUTPUT_INVALID', 'still not JSON', {
      details: { reason: 'output-not-json', issues: [], repairs: 1 },
    });
    expect(m.failure(invalid)).toMatchObject({
      subtype: 'error_max_structured_output_retries',
      is_error: true,
      error_code: 'OUTPUT_INVALID',
    });
    const done = m.map({
      ...base,
      type: 'session.completed',
      content: '{"n":1}',
      output: { n: 1 },
      iterations: 1,
      usage,
    });
    expect(done).toMatchObject([
      { subtype: 'success', result: '{"n":1}', structured_output: { n: 1 } },
    ]);
  });

  it('leaves other events out', () => {
    const m = new RunMessageMapper('sess', 'x');
    expect(m.map({ ...base, type: 'model.delta', kind: 'text', content: 'hi' })).toEqual([]);
  });
});

describe('toQueryUsage', () => {
  it('renames the fields and fills zeros', () => {
    expect(toQueryUsage(undefined)).toEqual({
      input_tokens: 0,
      output_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
  });
});
