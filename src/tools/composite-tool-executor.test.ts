import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CompositeToolExecutor, HostToolExecutor, ToolCatalog, tool } from './index.js';
import type {
  ToolDefinition,
  ToolExecutionContext,
  ToolExecutor,
  ToolInfo,
  ToolReturn,
} from './index.js';

const OBJECT_SCHEMA = { type: 'object', properties: {} } as const;

function definition(name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return { name, description: `The ${name} tool.`, inputSchema: OBJECT_SCHEMA, ...extra };
}

function context(): ToolExecutionContext {
  return {
    signal: new AbortController().signal,
    sessionId: 'session-1',
    runId: 'run-1',
    callId: 'call-1',
    iteration: 1,
    maxResultBytes: 1_000_000,
    reportProgress: () => {},
  };
}

/** A fake executor that serves fixed definitions and records what it is asked to do. */
class RecordingExecutor implements ToolExecutor {
  readonly calls: Array<{ name: string; input: Record<string, unknown> }> = [];
  closed = 0;
  initialized = 0;

  constructor(
    readonly id: string,
    private readonly definitions: readonly ToolDefinition[],
    private readonly info?: (name: string) => ToolInfo | undefined,
  ) {}

  listTools(): readonly ToolDefinition[] {
    return this.definitions;
  }

  async execute(name: string, input: Record<string, unknown>): Promise<ToolReturn> {
    this.calls.push({ name, input });
    return `${this.id}:${name}`;
  }

  getToolInfo(name: string): ToolInfo | undefined {
    return this.info?.(name);
  }

  async initialize(): Promise<void> {
    this.initialized += 1;
  }

  async close(): Promise<void> {
    this.closed += 1;
  }
}

/** A minimal executor: only the required members, no validateInput or getToolInfo. */
function bareExecutor(definitions: readonly ToolDefinition[]): ToolExecutor {
  return { listTools: async () => definitions, execute: async (name) => `bare:${name}` };
}

describe('CompositeToolExecutor', () => {
  it('lists every executor`s tools and routes calls to the executor that offers them', async () => {
    const a = new RecordingExecutor('a', [definition('one')], () => ({ source: 'builtin' }));
    const b = new RecordingExecutor('b', [definition('two')]);
    const composite = new CompositeToolExecutor([a, b]);
    expect((await composite.listTools()).map((d) => d.name)).toEqual(['one', 'two']);
    await expect(composite.execute('two', { x: 1 }, context())).resolves.toBe('b:two');
    await expect(composite.execute('one', {}, context())).resolves.toBe('a:one');
    expect(a.calls).toEqual([{ name: 'one', input: {} }]);
    expect(b.calls).toEqual([{ name: 'two', input: { x: 1 } }]);
    expect(composite.getToolInfo('one')).toEqual({ source: 'builtin' });
    expect(composite.getToolInfo('missing')).toBeUndefined();
  });

  it('rejects unknown tools with TOOL_NOT_FOUND', async () => {
    const composite = new CompositeToolExecutor([bareExecutor([definition('one')])]);
    await composite.listTools();
    // Wrapped so a synchronous throw and a rejection are both accepted.
    await expect((async () => composite.execute('nope', {}, context()))()).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
      toolName: 'nope',
    });
    await expect(composite.validateInput('nope', {})).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
  });

  it('rejects a duplicate name with TOOL_NAME_CONFLICT', async () => {
    const composite = new CompositeToolExecutor([
      bareExecutor([definition('same')]),
      bareExecutor([definition('same')]),
    ]);
    await expect(composite.listTools()).rejects.toMatchObject({
      code: 'TOOL_NAME_CONFLICT',
      details: { tool: 'same' },
    });
  });

  it('uses an executor`s own validateInput when it has one', async () => {
    const host = new HostToolExecutor([
      tool({
        name: 'shout',
        description: 'd',
        input: z.object({ text: z.string().transform((s) => s.toUpperCase()) }),
        execute: ({ text }) => text,
      }),
    ]);
    const composite = new CompositeToolExecutor([host]);
    await composite.listTools();
    await expect(composite.validateInput('shout', { text: 'hi' })).resolves.toEqual({
      success: true,
      value: { text: 'HI' },
    });
  });

  it('falls back to JSON Schema validation for executors without validateInput', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
      required: ['city'],
      additionalProperties: false,
    };
    const composite = new CompositeToolExecutor([
      bareExecutor([definition('forecast', { inputSchema: schema })]),
    ]);
    await composite.listTools();
    await expect(composite.validateInput('forecast', { city: 'Oslo', days: 3 })).resolves.toEqual({
      success: true,
      value: { city: 'Oslo', days: 3 },
    });
    const bad = await composite.validateInput('forecast', { days: 0, extra: true });
    expect(bad.success).toBe(false);
    if (bad.success) return;
    expect(bad.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: ['days'] }),
        expect.objectContaining({ path: [], message: expect.stringContaining('city') }),
        expect.objectContaining({ path: [], message: expect.stringContaining('extra') }),
      ]),
    );
  });

  it('can be one executor of a catalog', async () => {
    const composite = new CompositeToolExecutor([
      new RecordingExecutor('a', [definition('one')], () => ({ source: 'mcp', server: 's' })),
    ]);
    const catalog = await ToolCatalog.build([composite]);
    expect(catalog.get('one')).toMatchObject({
      executor: composite,
      info: { source: 'mcp', server: 's' },
    });
  });

  it('initializes every executor', async () => {
    const a = new RecordingExecutor('a', []);
    const b = new RecordingExecutor('b', []);
    await new CompositeToolExecutor([a, bareExecutor([]), b]).initialize();
    expect([a.initialized, b.initialized]).toEqual([1, 1]);
  });

  it('closes every executor even when one close rejects', async () => {
    const a = new RecordingExecutor('a', []);
    const b = new RecordingExecutor('b', []);
    const failing: ToolExecutor = {
      listTools: () => [],
      execute: async () => '',
      close: async () => {
        throw new Error('close failed');
      },
    };
    await expect(
      new CompositeToolExecutor([a, failing, bareExecutor([]), b]).close(),
    ).resolves.toBeUndefined();
    expect([a.closed, b.closed]).toEqual([1, 1]);
  });

  it('closes every executor even when one close throws synchronously', async () => {
    const a = new RecordingExecutor('a', []);
    const b = new RecordingExecutor('b', []);
    const failing: ToolExecutor = {
      listTools: () => [],
      execute: async () => '',
      close: () => {
        throw new Error('close failed');
      },
    };
    const closing = (async () => new CompositeToolExecutor([a, failing, b]).close())();
    await closing.catch(() => undefined);
    expect([a.closed, b.closed]).toEqual([1, 1]);
    await expect(closing).resolves.toBeUndefined();
  });
});

describe('item-09: a server tool inside a composite', () => {
  it('item-09: keeps RE2 for its patterns; another executor`s tool keeps the native engine', async () => {
    const lookahead = {
      type: 'object',
      properties: { text: { type: 'string', pattern: '^(?=a)a$' } },
    } as const;
    const server = new RecordingExecutor(
      'srv',
      [definition('srv_tool', { inputSchema: lookahead })],
      () => ({
        source: 'mcp',
        server: 'srv',
      }),
    );
    const own = bareExecutor([definition('own_tool', { inputSchema: lookahead })]);
    const composite = new CompositeToolExecutor([server, own]);
    await composite.listTools();
    await expect(composite.validateInput('srv_tool', { text: 'a' })).rejects.toThrow(
      '"^(?=a)a$" cannot run under RE2',
    );
    await expect(composite.validateInput('own_tool', { text: 'a' })).resolves.toMatchObject({
      success: true,
    });
  });
});
