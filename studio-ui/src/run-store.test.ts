import { describe, expect, it } from 'vitest';
import { emptyRun, reduceRun, type RunRecord } from './run-store.js';

const base = { sessionId: 's1', runId: 'r1', timestamp: '2026-01-01T00:00:00.000Z' };
type Event = Parameters<typeof reduceRun>[1];

function fold(events: readonly Event[]): RunRecord {
  return events.reduce((run, event, i) => reduceRun(run, event, i), emptyRun('s1'));
}

describe('reduceRun', () => {
  it('streams text, gathers a call and keeps one progress line per call', () => {
    const run = fold([
      { ...base, type: 'session.started', continued: false, modelName: 'm' },
      { ...base, type: 'model.delta', kind: 'text', content: 'Hel' },
      { ...base, type: 'model.delta', kind: 'text', content: 'lo' },
      {
        ...base,
        type: 'tool.decision',
        callId: 'c1',
        toolName: 't',
        decision: 'allow',
        stage: 'rule',
        dryRun: false,
      },
      { ...base, type: 'tool.called', callId: 'c1', toolName: 't', source: 'mcp', arguments: {} },
      { ...base, type: 'tool.progress', callId: 'c1', toolName: 't', progress: 1, total: 4 },
      { ...base, type: 'tool.progress', callId: 'c1', toolName: 't', progress: 3, total: 4 },
      {
        ...base,
        type: 'tool.completed',
        callId: 'c1',
        toolName: 't',
        isError: false,
        content: 'ok',
        executed: true,
        durationMs: 12,
      },
      { ...base, type: 'session.completed', content: 'Hello', iterations: 1, usage: {} as never },
    ]);
    expect(run.text).toBe('Hello');
    expect(run.status).toBe('completed');
    expect(run.entries.map((e) => e.type)).toEqual([
      'session.started',
      'tool.decision',
      'tool.called',
      'tool.progress',
      'tool.completed',
      'session.completed',
    ]);
    expect(run.calls.c1).toEqual({
      name: 't',
      decision: 'allow',
      stage: 'rule',
      progress: 3,
      total: 4,
      durationMs: 12,
      isError: false,
    });
  });

  it("takes a turn's text from model.completed when nothing was streamed", () => {
    const turn = (text: string): Event => ({
      ...base,
      type: 'model.completed',
      iteration: 1,
      text,
      toolCalls: [],
      stopReason: 'stop' as never,
    });
    expect(fold([turn('First.'), turn('Second.')]).text).toBe('First.\n\nSecond.');
    const streamed = fold([
      { ...base, type: 'model.delta', kind: 'text', content: 'A' },
      turn('A'),
    ]);
    expect(streamed.text).toBe('A');
  });

  it('marks a failed run with its error code', () => {
    const run = fold([
      {
        ...base,
        type: 'session.failed',
        error: { code: 'MODEL_REQUEST_FAILED', message: 'down' } as never,
      },
    ]);
    expect(run.status).toBe('failed');
    expect(run.error).toEqual({ code: 'MODEL_REQUEST_FAILED', message: 'down' });
  });
});
