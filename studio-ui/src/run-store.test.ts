import { describe, expect, it } from 'vitest';
import type { SessionView, StudioEvent } from '../../src/studio/api-types.js';
import {
  DISCOVERY,
  emptyRun,
  reduceRun,
  resultPreview,
  RunStore,
  summarizeDiscovery,
  type RunRecord,
} from './run-store.js';

const base = { sessionId: 's1', runId: 'r1', timestamp: '2026-01-01T00:00:00.000Z' };
type Event = Parameters<typeof reduceRun>[1];

function fold(events: readonly Event[]): RunRecord {
  return events.reduce((run, event, i) => reduceRun(run, event, i), emptyRun('s1'));
}

describe('reduceRun', () => {
  it('marks a run that parks as parked, and a resumed one running again', () => {
    const parked = fold([
      { ...base, type: 'session.started', continued: false, modelName: 'm' },
      { ...base, type: 'session.parked', waits: [] },
    ]);
    expect(parked.status).toBe('parked');
    expect(parked.entries.map((e) => e.type)).toEqual(['session.started', 'session.parked']);
    const resumed = reduceRun(
      parked,
      { ...base, type: 'session.started', continued: true, modelName: 'm' },
      9,
    );
    expect(resumed.status).toBe('running');
  });

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

describe('item-05: the run timeline', () => {
  const status = (server: string, value: string, error?: { code: string; message: string }) =>
    ({
      ...base,
      type: 'mcp.server.status',
      server,
      status: value,
      ...(error ? { error } : {}),
    }) as Event;
  const discovered = (server: string, tool: string): Event => ({
    ...base,
    type: 'mcp.tool.discovered',
    server,
    toolName: `mcp__${server}__${tool}`,
    originalName: tool,
  });
  const completed = (text: string): Event => ({
    ...base,
    type: 'model.completed',
    iteration: 1,
    text,
    toolCalls: [],
    stopReason: 'stop' as never,
  });

  it('folds the discovery before the first model turn into one line', () => {
    const run = fold([
      { ...base, type: 'session.started', continued: false, modelName: 'm' },
      status('basic', 'connecting'),
      status('basic', 'connected'),
      discovered('basic', 'echo'),
      discovered('basic', 'add'),
      { ...base, type: 'mcp.catalog.updated', server: 'basic', reason: 'discovered', toolCount: 2 },
      // a server that failed is no discovery detail: it keeps its own line
      status('docs', 'failed', { code: 'MCP_CONNECTION_FAILED', message: 'gone' }),
      { ...base, type: 'model.delta', kind: 'text', content: 'Hi' },
      completed('Hi'),
      // after the first turn, a catalog change is news: its own line
      { ...base, type: 'mcp.catalog.updated', server: 'basic', reason: 'refreshed', toolCount: 3 },
    ]);
    expect(run.entries.map((e) => e.type)).toEqual([
      'session.started',
      DISCOVERY,
      'mcp.server.status',
      'model.completed',
      'mcp.catalog.updated',
    ]);
    const line = run.entries[1]!;
    expect(line.folded?.map((e) => e.type)).toEqual([
      'mcp.server.status',
      'mcp.server.status',
      'mcp.tool.discovered',
      'mcp.tool.discovered',
      'mcp.catalog.updated',
    ]);
    expect(summarizeDiscovery(line.folded!)).toEqual({ servers: ['basic'], tools: 2 });
    // a new run of the session starts with no discovery line
    const next = reduceRun(
      run,
      { ...base, type: 'session.started', continued: true, modelName: 'm' },
      99,
    );
    expect(next.entries.map((e) => e.type)).toEqual(['session.started']);
  });

  it("previews each tool's result on one short line", () => {
    expect(resultPreview('line one\n  line two\t end ')).toBe('line one line two end');
    const long = 'x'.repeat(500);
    const preview = resultPreview(long);
    expect(preview).toHaveLength(160);
    expect(preview.endsWith('…')).toBe(true);
    expect(resultPreview('abcdef', 4)).toBe('abc…');
  });

  it("separates successive turns' streamed text with one blank line", () => {
    const delta = (content: string): Event => ({
      ...base,
      type: 'model.delta',
      kind: 'text',
      content,
    });
    const streamed = fold([
      delta('Let me '),
      delta('look.'),
      completed('Let me look.'),
      delta('Found '),
      delta('it.'),
      completed('Found it.'),
    ]);
    expect(streamed.text).toBe('Let me look.\n\nFound it.');
    // a turn that ended its text with a line break gets no more than one blank line
    const ended = fold([delta('First.\n'), completed('First.\n'), delta('Second.'), completed('')]);
    expect(ended.text).toBe('First.\n\nSecond.');
  });
});

/** A RunStore fed by hand: the events the stream would bring, and the stored sessions. */
function storeWith(sessions: Record<string, SessionView>) {
  const listeners: ((event: StudioEvent) => void)[] = [];
  const reads: string[] = [];
  const store = new RunStore(
    {
      onEvent: (listener) => {
        listeners.push(listener);
        return () => undefined;
      },
    },
    async (id) => {
      reads.push(id);
      const session = sessions[id];
      if (session === undefined) throw new Error('no such session');
      return session;
    },
  );
  const send = (event: StudioEvent) => listeners.forEach((l) => l(event));
  const settled = () =>
    new Promise<void>((resolve) => {
      const unsubscribe = store.subscribe(() => {
        unsubscribe();
        resolve();
      });
    });
  return { store, send, reads, settled };
}

const hello = (runs: string[]): StudioEvent => ({
  kind: 'hello',
  approvals: [],
  elicitations: [],
  runs,
});

describe('RunStore', () => {
  it('on hello, ends a run the studio no longer runs and reads its stored session', async () => {
    const stored: SessionView = {
      id: 's1',
      status: 'completed',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:01.000Z',
      messages: [],
      finalContent: 'All done.',
    };
    const { store, send, reads, settled } = storeWith({ s1: stored });
    store.begin('s1');
    store.begin('s2');
    // the stream reconnected: s2 still runs, s1 ended while the page was away
    const changed = settled();
    send(hello(['s2']));
    await changed;
    expect(reads).toEqual(['s1']);
    expect(store.get('s1')).toMatchObject({ status: 'completed', text: 'All done.' });
    expect(store.get('s2')?.status).toBe('running');
  });

  it('marks a run ended even when its session cannot be read', async () => {
    const { store, send, settled } = storeWith({});
    store.begin('gone');
    const changed = settled();
    send(hello([]));
    await changed;
    expect(store.get('gone')?.status).toBe('ended');
  });

  it('keeps the error run.ended carries', () => {
    const { store, send } = storeWith({});
    store.begin('s3');
    send({
      kind: 'run.ended',
      sessionId: 's3',
      status: 'failed',
      error: { code: 'MODEL_REQUEST_FAILED', message: 'down' },
    });
    expect(store.get('s3')).toMatchObject({
      status: 'failed',
      error: { code: 'MODEL_REQUEST_FAILED', message: 'down' },
    });
  });
});
