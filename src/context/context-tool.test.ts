import { describe, expect, it } from 'vitest';
import { validateJsonSchema } from '../tools/index.js';
import type { ToolExecutionContext } from '../tools/index.js';
import {
  archiveToolResult,
  CONTEXT_TOOL_DEFINITION,
  ContextToolExecutor,
  MemoryArchiveStore,
} from './index.js';
import type { ArchivedItem, ArchiveStore, ContextPage } from './index.js';

function ctx(sessionId = 's1', maxResultBytes = 1_000_000): ToolExecutionContext {
  return {
    signal: new AbortController().signal,
    sessionId,
    runId: 'run_1',
    callId: 'call_ctx',
    iteration: 2,
    maxResultBytes,
    reportProgress: () => {},
  };
}

async function archiveText(store: ArchiveStore, content: string, sessionId = 's1') {
  const { refs } = await archiveToolResult(
    { content },
    { sessionId, toolName: 'dump', callId: 'call_1', thresholdBytes: 0, store },
  );
  return refs[0] ?? '';
}

async function call(
  tool: ContextToolExecutor,
  input: Record<string, unknown>,
  context = ctx(),
): Promise<ContextPage> {
  return JSON.parse(await tool.execute('context', input, context)) as ContextPage;
}

describe('the context tool definition', () => {
  const tool = new ContextToolExecutor({ store: new MemoryArchiveStore() });

  it('offers exactly one read-only builtin tool named context', () => {
    const tools = tool.listTools();
    expect(tools).toHaveLength(1);
    expect(tools[0]).toBe(CONTEXT_TOOL_DEFINITION);
    expect(tools[0]).toMatchObject({
      name: 'context',
      annotations: { readOnlyHint: true, title: 'Read archived tool output' },
    });
    expect(tools[0]?.description).toMatch(/ref/);
    expect(tool.getToolInfo('context')).toEqual({ source: 'builtin' });
    expect(tool.getToolInfo('other')).toBeUndefined();
  });

  it('declares the input schema of SPEC 7.5', () => {
    expect(CONTEXT_TOOL_DEFINITION.inputSchema).toMatchObject({
      type: 'object',
      properties: {
        ref: { type: 'string' },
        offset: { type: 'integer', minimum: 0, default: 0 },
        length: { type: 'integer', minimum: 1, maximum: 65536, default: 16384 },
      },
      required: ['ref'],
      additionalProperties: false,
    });
  });

  it.each([
    [{ ref: 'ref_a' }],
    [{ ref: 'ref_a', offset: 0, length: 1 }],
    [{ ref: 'ref_a', offset: 123456, length: 65536 }],
  ])('accepts %j', async (value) => {
    expect(await validateJsonSchema(CONTEXT_TOOL_DEFINITION.inputSchema, value)).toMatchObject({
      success: true,
    });
  });

  it.each([
    [{}],
    [{ ref: 1 }],
    [{ ref: 'r', offset: -1 }],
    [{ ref: 'r', offset: 1.5 }],
    [{ ref: 'r', length: 0 }],
    [{ ref: 'r', length: 65537 }],
    [{ ref: 'r', extra: true }],
  ])('rejects %j', async (value) => {
    expect(await validateJsonSchema(CONTEXT_TOOL_DEFINITION.inputSchema, value)).toMatchObject({
      success: false,
    });
  });
});

describe('scoping and errors', () => {
  it('does not know refs of another session', async () => {
    const store = new MemoryArchiveStore();
    const tool = new ContextToolExecutor({ store });
    const ref = await archiveText(store, 'secret of s1', 's1');
    expect((await call(tool, { ref }, ctx('s1'))).text).toBe('secret of s1');
    for (const [session, r] of [
      ['s2', ref],
      ['s1', 'ref_doesnotexist'],
    ] as const) {
      await expect(call(tool, { ref: r }, ctx(session))).rejects.toMatchObject({
        name: 'ToolError',
        code: 'TOOL_ARGUMENTS_INVALID',
        toolName: 'context',
        message: expect.stringContaining('belongs to no item of this session'),
      });
    }
  });

  it.each([
    [{}],
    [{ ref: '' }],
    [{ ref: 5 }],
    [{ ref: 'r', offset: -1 }],
    [{ ref: 'r', offset: '3' }],
    [{ ref: 'r', offset: 0.5 }],
    [{ ref: 'r', length: 0 }],
    [{ ref: 'r', length: 65537 }],
    [{ ref: 'r', more: 1 }],
  ])('rejects the arguments %j before reading', async (input) => {
    const tool = new ContextToolExecutor({ store: new MemoryArchiveStore() });
    await expect(call(tool, input)).rejects.toMatchObject({ code: 'TOOL_ARGUMENTS_INVALID' });
  });

  it('fails a call to another tool name with TOOL_NOT_FOUND', async () => {
    const tool = new ContextToolExecutor({ store: new MemoryArchiveStore() });
    await expect(tool.execute('contexts', { ref: 'r' }, ctx())).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
  });

  it('reports a damaged item from a store with TOOL_EXECUTION_FAILED', async () => {
    const damaged: ArchivedItem = {
      ref: 'ref_x',
      sessionId: 's1',
      kind: 'binary',
      mimeType: 'image/png',
      bytes: 3,
      toolName: 't',
      callId: 'c',
      createdAt: new Date(0).toISOString(),
    };
    const store: ArchiveStore = {
      put: () => Promise.reject(new Error('unused')),
      get: async () => damaged,
    };
    const tool = new ContextToolExecutor({ store });
    await expect(call(tool, { ref: 'ref_x' })).rejects.toMatchObject({
      code: 'TOOL_EXECUTION_FAILED',
    });
  });
});
