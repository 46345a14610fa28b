import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HostToolExecutor, OWN_EXECUTOR_FACTS, ToolCatalog, tool } from './index.js';
import type { OwnExecutor, ToolDefinition, ToolExecutor, ToolInfo, ToolReturn } from './index.js';

const OBJECT_SCHEMA = { type: 'object', properties: {} } as const;

function definition(name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return { name, description: `The ${name} tool.`, inputSchema: OBJECT_SCHEMA, ...extra };
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

describe('ToolCatalog.build', () => {
  it('orders a source with several servers by server name, each server in its own order', async () => {
    const servers: Record<string, string> = { b_x: 'b', a_y: 'a', a_w: 'a' };
    const mcp = new RecordingExecutor(
      'mcp',
      [definition('b_x'), definition('a_y'), definition('z_local'), definition('a_w')],
      (name) => (servers[name] ? { source: 'mcp', server: servers[name] } : undefined),
    );
    const host = new RecordingExecutor('host', [definition('zz'), definition('aa')]);
    const catalog = await ToolCatalog.build([host, mcp]);
    expect(catalog.modelTools().map((t) => t.name)).toEqual([
      'zz',
      'aa',
      'z_local',
      'a_y',
      'a_w',
      'b_x',
    ]);
  });

  it('fixes the tools of several executors in listing order', async () => {
    const a = new RecordingExecutor('a', [definition('one'), definition('two')]);
    const b = bareExecutor([
      definition('three', {
        outputSchema: { type: 'object' },
        annotations: { readOnlyHint: true },
      }),
    ]);
    const catalog = await ToolCatalog.build([a, b]);
    expect(catalog.entries().map((e) => e.name)).toEqual(['one', 'two', 'three']);
    expect(catalog.get('one')!.executor).toBe(a);
    expect(catalog.get('three')).toMatchObject({
      description: 'The three tool.',
      inputSchema: OBJECT_SCHEMA,
      outputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
      executor: b,
    });
    expect(catalog.get('missing')).toBeUndefined();
  });

  it('uses the executor`s tool info, defaulting to source executor', async () => {
    const host = new HostToolExecutor([
      tool({ name: 'host_tool', description: 'd', input: z.object({}), execute: () => 'x' }),
    ]);
    const mcp = new RecordingExecutor('m', [definition('mcp__srv__t'), definition('other')], (n) =>
      n === 'mcp__srv__t' ? { source: 'mcp', server: 'srv', originalName: 't' } : undefined,
    );
    const bare = bareExecutor([definition('bare')]);
    const catalog = await ToolCatalog.build([host, mcp, bare]);
    expect(catalog.get('host_tool')!.info).toEqual({ source: 'host' });
    expect(catalog.get('mcp__srv__t')!.info).toEqual({
      source: 'mcp',
      server: 'srv',
      originalName: 't',
    });
    expect(catalog.get('other')!.info).toEqual({ source: 'executor' });
    expect(catalog.get('bare')!.info).toEqual({ source: 'executor' });
  });

  it('rejects a name offered by two executors with TOOL_NAME_CONFLICT', async () => {
    const a = new RecordingExecutor('a', [definition('same')]);
    const b = new RecordingExecutor('b', [definition('other'), definition('same')]);
    await expect(ToolCatalog.build([a, b])).rejects.toMatchObject({
      code: 'TOOL_NAME_CONFLICT',
      details: { tool: 'same' },
    });
  });

  it('rejects a name listed twice by one executor with TOOL_NAME_CONFLICT', async () => {
    await expect(
      ToolCatalog.build([bareExecutor([definition('dup'), definition('dup')])]),
    ).rejects.toMatchObject({ code: 'TOOL_NAME_CONFLICT' });
  });

  it.each(['', 'a.b', 'has space', 'x'.repeat(65), 'héllo'])(
    'rejects the invalid name %j with INVALID_CONFIGURATION',
    async (name) => {
      await expect(ToolCatalog.build([bareExecutor([definition(name)])])).rejects.toMatchObject({
        code: 'INVALID_CONFIGURATION',
      });
    },
  );

  it.each([
    ['a string schema', { type: 'string' }],
    ['a schema without type', { properties: {} }],
    ['an array schema', { type: 'array' }],
    ['no schema', undefined],
    ['null', null],
  ])('rejects %s as input schema with INVALID_CONFIGURATION', async (_label, inputSchema) => {
    const def = { name: 'bad', description: 'd', inputSchema } as unknown as ToolDefinition;
    await expect(ToolCatalog.build([bareExecutor([def])])).rejects.toMatchObject({
      code: 'INVALID_CONFIGURATION',
      details: { tool: 'bad' },
    });
  });

  it('shows the model only the visible tools, and keeps the rest in the catalog', async () => {
    const executor = new RecordingExecutor('a', [
      definition('public_tool', { outputSchema: { type: 'object' } }),
      definition('hidden_tool'),
      definition('other_public'),
    ]);
    const catalog = await ToolCatalog.build([executor], (e) => !e.name.startsWith('hidden'));
    expect(catalog.visibleEntries().map((e) => e.name)).toEqual(['public_tool', 'other_public']);
    expect(catalog.isVisible('public_tool')).toBe(true);
    expect(catalog.isVisible('hidden_tool')).toBe(false);
    expect(catalog.isVisible('missing')).toBe(false);
    expect(catalog.get('hidden_tool')!.name).toBe('hidden_tool');
    expect(catalog.entries()).toHaveLength(3);
    expect(catalog.modelTools()).toEqual([
      { name: 'public_tool', description: 'The public_tool tool.', inputSchema: OBJECT_SCHEMA },
      { name: 'other_public', description: 'The other_public tool.', inputSchema: OBJECT_SCHEMA },
    ]);
  });

  it('shows every tool by default', async () => {
    const catalog = await ToolCatalog.build([bareExecutor([definition('a'), definition('b')])]);
    expect(catalog.visibleEntries().map((e) => e.name)).toEqual(['a', 'b']);
    expect(catalog.modelTools()).toHaveLength(2);
  });

  it('builds an empty catalog from no executors', async () => {
    const catalog = await ToolCatalog.build([]);
    expect(catalog.entries()).toEqual([]);
    expect(catalog.modelTools()).toEqual([]);
  });
});

describe('ToolCatalog.build: entries of an unchanged stable listing', () => {
  /** One of Muster's own executors stating a stable listing; `list` is what it hands out. */
  function stableExecutor(list: () => readonly ToolDefinition[]): ToolExecutor & OwnExecutor {
    return {
      [OWN_EXECUTOR_FACTS]: { stableListing: true },
      listTools: list,
      execute: async (name) => `stable:${name}`,
    };
  }

  it('reuses the entries built from the same frozen listing, and builds anew for a new one', async () => {
    let listing = Object.freeze([definition('a'), definition('b')]);
    const executor = stableExecutor(() => listing);
    const first = await ToolCatalog.build([executor]);
    const second = await ToolCatalog.build([executor]);
    expect(second.get('a')).toBe(first.get('a'));
    expect(second.entries().map((e) => e.name)).toEqual(['a', 'b']);

    listing = Object.freeze([definition('a', { description: 'Changed.' }), definition('c')]);
    const third = await ToolCatalog.build([executor]);
    expect(third.get('a')).not.toBe(first.get('a'));
    expect(third.get('a')?.description).toBe('Changed.');
    expect(third.get('b')).toBeUndefined();
    expect(third.visibleEntries().map((e) => e.name)).toEqual(['a', 'c']);
  });

  it('still decides visibility per build, and still refuses a name another source has', async () => {
    const listing = Object.freeze([definition('a'), definition('b')]);
    const executor = stableExecutor(() => listing);
    await ToolCatalog.build([executor]);
    const hidden = await ToolCatalog.build([executor], (e) => e.name !== 'a');
    expect(hidden.visibleEntries().map((e) => e.name)).toEqual(['b']);
    const clash = new RecordingExecutor('host', [definition('b')]);
    await expect(ToolCatalog.build([clash, executor])).rejects.toMatchObject({
      code: 'TOOL_NAME_CONFLICT',
    });
  });

  it('asks the visibility rule every time, and follows it when its answer changes', async () => {
    const listing = Object.freeze([definition('a'), definition('b'), definition('c')]);
    const executor = stableExecutor(() => listing);
    let hidden = new Set<string>();
    const rule = (e: { name: string }) => !hidden.has(e.name);
    const shown = async () =>
      (await ToolCatalog.build([executor], rule)).visibleEntries().map((e) => e.name);
    const first = await ToolCatalog.build([executor], rule);
    const again = await ToolCatalog.build([executor], rule);
    // the same answers: the same frozen list
    expect(again.visibleEntries()).toBe(first.visibleEntries());
    hidden = new Set(['b']);
    expect(await shown()).toEqual(['a', 'c']);
    hidden = new Set(['c']);
    expect(await shown()).toEqual(['a', 'b']);
    hidden = new Set();
    expect(await shown()).toEqual(['a', 'b', 'c']);
    const last = await ToolCatalog.build([executor], rule);
    expect(last.isVisible('b')).toBe(true);
    hidden = new Set(['a', 'b', 'c']);
    const none = await ToolCatalog.build([executor], rule);
    expect(none.visibleEntries()).toEqual([]);
    expect(none.isVisible('a')).toBe(false);
  });

  it('an extension keeps the base first, sees its entries, and refuses their names', async () => {
    const listing = Object.freeze([definition('a'), definition('b')]);
    const base = await ToolCatalog.build([stableExecutor(() => listing)], (e) => e.name !== 'b');
    const extended = await base.extend([new RecordingExecutor('builtin', [definition('z')])]);
    expect(extended.entries().map((e) => e.name)).toEqual(['a', 'b', 'z']);
    expect(extended.visibleEntries().map((e) => e.name)).toEqual(['a', 'z']);
    expect(extended.get('b')?.name).toBe('b');
    expect([extended.isVisible('a'), extended.isVisible('b'), extended.isVisible('z')]).toEqual([
      true,
      false,
      true,
    ]);
    expect(extended.modelTools().map((t) => t.name)).toEqual(['a', 'z']);
    await expect(
      base.extend([new RecordingExecutor('builtin', [definition('b')])]),
    ).rejects.toMatchObject({ code: 'TOOL_NAME_CONFLICT' });
    // two built-ins of one extension offering the same name
    await expect(
      base.extend([
        new RecordingExecutor('one', [definition('y')]),
        new RecordingExecutor('two', [definition('y')]),
      ]),
    ).rejects.toMatchObject({ code: 'TOOL_NAME_CONFLICT', details: { tool: 'y' } });
  });

  it('builds anew for a host executor, even from the same frozen listing', async () => {
    const listing = Object.freeze([definition('a')]);
    let description = 'First.';
    const host: ToolExecutor = {
      listTools: () => listing,
      execute: async () => 'ok',
      getToolInfo: () => ({ source: 'executor', originalName: description }),
    };
    const first = await ToolCatalog.build([host]);
    description = 'Second.';
    const second = await ToolCatalog.build([host]);
    expect(second.get('a')).not.toBe(first.get('a'));
    expect(second.get('a')?.info.originalName).toBe('Second.');
  });

  it("reuses a host tools' entries, but not those of a subclass that answers for itself", async () => {
    const echo = tool({
      name: 'echo',
      description: 'Echoes.',
      input: z.object({ text: z.string() }),
      execute: ({ text }) => text,
    });
    const own = new HostToolExecutor([echo]);
    const first = await ToolCatalog.build([own]);
    expect((await ToolCatalog.build([own])).get('echo')).toBe(first.get('echo'));
    expect(Object.isFrozen(first.modelTools()[0])).toBe(true);

    let server = 'one';
    class Relabelled extends HostToolExecutor {
      override getToolInfo(): ToolInfo {
        return { source: 'host', server };
      }
    }
    const sub = new Relabelled([echo]);
    expect((await ToolCatalog.build([sub])).get('echo')?.info.server).toBe('one');
    server = 'two';
    expect((await ToolCatalog.build([sub])).get('echo')?.info.server).toBe('two');
  });

  it('builds anew for a stable executor whose listing is not frozen', async () => {
    const listing = [definition('a')];
    const executor = stableExecutor(() => listing);
    const first = await ToolCatalog.build([executor]);
    listing.push(definition('b'));
    const second = await ToolCatalog.build([executor]);
    expect(second.entries().map((e) => e.name)).toEqual(['a', 'b']);
    expect(second.get('a')).not.toBe(first.get('a'));
  });
});
