import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type } from 'arktype';
import * as v from 'valibot';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { ToolError } from '../errors/index.js';
import { HostToolExecutor, isTool, tool } from './index.js';
import type { ToolExecutionContext, ToolSpec, StandardSchemaV1Like } from './index.js';

function context(overrides: Partial<ToolExecutionContext> = {}): ToolExecutionContext {
  return {
    signal: new AbortController().signal,
    sessionId: 'session-1',
    runId: 'run-1',
    callId: 'call-1',
    iteration: 1,
    maxResultBytes: 1_000_000,
    reportProgress: () => {},
    ...overrides,
  };
}

/** Returns what `fn` throws; fails the test when it does not throw. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to throw');
}

/** `tool()` with a spec the type checker would refuse, to test the runtime checks. */
function untypedTool(spec: Record<string, unknown>): unknown {
  return tool(spec as unknown as ToolSpec<StandardSchemaV1Like, undefined>);
}

describe('tool() with Zod 4', () => {
  const greet = tool({
    name: 'greet',
    description: 'Greets someone.',
    input: z.object({
      name: z.string().transform((s) => s.toUpperCase()),
      times: z.number().int().default(2),
    }),
    annotations: { readOnlyHint: true },
    execute: ({ name, times }) => `hello ${name} x${times}`,
  });

  it('exports an object JSON Schema once', () => {
    expect(isTool(greet)).toBe(true);
    expect(Object.isFrozen(greet)).toBe(true);
    expect(greet.inputJsonSchema).toMatchObject({
      type: 'object',
      properties: { name: { type: 'string' }, times: { type: 'integer', default: 2 } },
      required: ['name'],
    });
    expect(greet.outputJsonSchema).toBeUndefined();
  });

  it('is listed by HostToolExecutor with its schema and annotations', () => {
    const executor = new HostToolExecutor([greet]);
    expect(executor.listTools()).toEqual([
      {
        name: 'greet',
        description: 'Greets someone.',
        inputSchema: greet.inputJsonSchema,
        annotations: { readOnlyHint: true },
      },
    ]);
    expect(executor.getToolInfo()).toEqual({ source: 'host' });
  });

  it('validates with transforms and defaults applied', async () => {
    const executor = new HostToolExecutor([greet]);
    await expect(executor.validateInput('greet', { name: 'ada' })).resolves.toEqual({
      success: true,
      value: { name: 'ADA', times: 2 },
    });
  });

  it('reports issues with paths for invalid input', async () => {
    const executor = new HostToolExecutor([greet]);
    const outcome = await executor.validateInput('greet', { name: 5, times: 1.5 });
    expect(outcome.success).toBe(false);
    if (outcome.success) return;
    expect(outcome.issues.map((i) => i.path)).toEqual(
      expect.arrayContaining([['name'], ['times']]),
    );
    for (const issue of outcome.issues) expect(issue.message).toEqual(expect.any(String));
  });

  it('executes with the arguments and context it is given', async () => {
    const seen: unknown[] = [];
    const echo = tool({
      name: 'echo',
      description: 'Echoes.',
      input: z.object({ text: z.string() }),
      execute: (args, ctx) => {
        seen.push(args, ctx.callId);
        return args.text;
      },
    });
    const executor = new HostToolExecutor([echo]);
    await expect(executor.execute('echo', { text: 'hi' }, context())).resolves.toBe('hi');
    expect(seen).toEqual([{ text: 'hi' }, 'call-1']);
  });

  it('rejects unknown tools with TOOL_NOT_FOUND', async () => {
    const executor = new HostToolExecutor([greet]);
    // Wrapped so a synchronous throw and a rejection are both accepted.
    await expect((async () => executor.validateInput('nope', {}))()).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
      toolName: 'nope',
    });
    await expect(executor.execute('nope', {}, context())).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
  });
});

describe('tool() with ArkType', () => {
  const count = tool({
    name: 'count',
    description: 'Counts.',
    input: type({ n: 'string.numeric.parse', 'step?': 'number', limit: 'number = 10' }),
    execute: ({ n }) => String(n),
  });

  it('exports an object JSON Schema', () => {
    expect(count.inputJsonSchema).toMatchObject({
      type: 'object',
      properties: { n: { type: 'string' }, step: { type: 'number' }, limit: { type: 'number' } },
      required: ['n'],
    });
  });

  it('validates with morphs and defaults applied', async () => {
    const executor = new HostToolExecutor([count]);
    await expect(executor.validateInput('count', { n: '12' })).resolves.toEqual({
      success: true,
      value: { n: 12, limit: 10 },
    });
    const bad = await executor.validateInput('count', { n: 'twelve', step: 'x' });
    expect(bad.success).toBe(false);
    if (bad.success) return;
    expect(bad.issues.map((i) => [...i.path])).toEqual(expect.arrayContaining([['n'], ['step']]));
  });

  it('maps issue paths to plain arrays, not ArkType path objects', async () => {
    const executor = new HostToolExecutor([count]);
    const bad = await executor.validateInput('count', { n: 'twelve' });
    expect(bad.success).toBe(false);
    if (bad.success) return;
    const path = bad.issues[0]!.path;
    // ValidationIssue is Muster's plain data: ArkType's ReadonlyPath (an Array subclass with
    // a `cache` field) must not leak through `.map`, which keeps the subclass.
    expect(Object.getPrototypeOf(path)).toBe(Array.prototype);
    expect(path).toEqual(['n']);
  });
});

describe('tool() with Valibot', () => {
  const schema = v.object({
    text: v.pipe(
      v.string(),
      v.transform((s) => s.length),
    ),
    unit: v.optional(v.string(), 'chars'),
  });

  it('exports JSON Schema when wrapped with toStandardJsonSchema and validates', async () => {
    const measure = tool({
      name: 'measure',
      description: 'Measures text.',
      input: toStandardJsonSchema(schema),
      execute: ({ text, unit }) => `${text} ${unit}`,
    });
    expect(measure.inputJsonSchema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' }, unit: { type: 'string', default: 'chars' } },
      required: ['text'],
    });
    const executor = new HostToolExecutor([measure]);
    await expect(executor.validateInput('measure', { text: 'abcd' })).resolves.toEqual({
      success: true,
      value: { text: 4, unit: 'chars' },
    });
    const bad = await executor.validateInput('measure', { text: 3 });
    expect(bad).toMatchObject({ success: false, issues: [{ path: ['text'] }] });
  });

  it('rejects a plain Valibot schema and says how to fix it', () => {
    const err = thrown(() =>
      tool({ name: 'plain', description: 'd', input: schema, execute: () => 'x' }),
    );
    expect(err).toMatchObject({ code: 'INVALID_CONFIGURATION', details: { vendor: 'valibot' } });
    expect((err as Error).message).toContain('toStandardJsonSchema');
  });
});

describe('tool() configuration errors', () => {
  it('rejects a root schema that is not an object', () => {
    for (const input of [z.string(), z.array(z.number()), type('string')]) {
      const err = thrown(() => tool({ name: 'root', description: 'd', input, execute: () => 'x' }));
      expect(err).toMatchObject({ code: 'INVALID_CONFIGURATION' });
      expect((err as Error).message).toContain('must describe an object');
    }
  });

  it('rejects a schema its library cannot export, keeping the cause', () => {
    const err = thrown(() =>
      tool({
        name: 'dated',
        description: 'd',
        input: z.object({ when: z.date() }),
        execute: () => 'x',
      }),
    );
    expect(err).toMatchObject({ code: 'INVALID_CONFIGURATION' });
    expect((err as Error).cause).toBeInstanceOf(Error);
  });

  it.each(['', 'a.b', 'has space', 'x'.repeat(65), 'mcp__srv__t', 'héllo'])(
    'rejects the name %j',
    (name) => {
      expect(
        thrown(() => tool({ name, description: 'd', input: z.object({}), execute: () => 'x' })),
      ).toMatchObject({ code: 'INVALID_CONFIGURATION', details: { tool: name } });
    },
  );

  it('rejects specs without a Standard Schema, description or execute', () => {
    const input = z.object({});
    for (const spec of [
      { name: 't', description: 'd', input: {}, execute: () => 'x' },
      { name: 't', description: 'd', input: { type: 'object' }, execute: () => 'x' },
      { name: 't', description: 3, input, execute: () => 'x' },
      { name: 't', description: 'd', input },
      { name: 't', description: 'd', input, output: {}, execute: () => 'x' },
    ]) {
      expect(thrown(() => untypedTool(spec))).toMatchObject({ code: 'INVALID_CONFIGURATION' });
    }
    expect(thrown(() => untypedTool(null as never))).toMatchObject({
      code: 'INVALID_CONFIGURATION',
    });
  });

  it('rejects a non-object output schema', () => {
    expect(
      thrown(() =>
        tool({
          name: 't',
          description: 'd',
          input: z.object({}),
          output: z.number(),
          execute: () => ({ content: '1', structured: 1 }),
        }),
      ),
    ).toMatchObject({ code: 'INVALID_CONFIGURATION' });
  });

  it('HostToolExecutor rejects duplicate names and values not made by tool()', () => {
    const a = tool({ name: 'a', description: 'd', input: z.object({}), execute: () => 'x' });
    expect(thrown(() => new HostToolExecutor([a, a]))).toMatchObject({
      code: 'TOOL_NAME_CONFLICT',
      details: { tool: 'a' },
    });
    expect(
      thrown(() => new HostToolExecutor([{ name: 'b' } as unknown as typeof a])),
    ).toMatchObject({ code: 'INVALID_CONFIGURATION' });
  });
});

describe('tool() output schemas', () => {
  const output = z.object({ sum: z.number() });
  function adder(returned: unknown) {
    return tool({
      name: 'add',
      description: 'Adds.',
      input: z.object({ a: z.number(), b: z.number() }),
      output,
      execute: () => returned as never,
    });
  }

  it('exports the output JSON Schema and lists it', () => {
    const t = adder({ content: '3', structured: { sum: 3 } });
    expect(t.outputJsonSchema).toMatchObject({
      type: 'object',
      properties: { sum: { type: 'number' } },
    });
    expect(new HostToolExecutor([t]).listTools()[0]!.outputSchema).toBe(t.outputJsonSchema);
  });

  it('accepts valid structured output, as the schema parses it', async () => {
    const executor = new HostToolExecutor([adder({ content: '3', structured: { sum: 3, x: 1 } })]);
    await expect(executor.execute('add', { a: 1, b: 2 }, context())).resolves.toEqual({
      content: '3',
      structured: { sum: 3 },
    });
  });

  it('accepts structuredContent of an MCP CallToolResult', async () => {
    const returned = { content: [{ type: 'text', text: '3' }], structuredContent: { sum: 3 } };
    const executor = new HostToolExecutor([adder(returned)]);
    await expect(executor.execute('add', { a: 1, b: 2 }, context())).resolves.toMatchObject({
      structured: { sum: 3 },
    });
  });

  it('fails with TOOL_EXECUTION_FAILED on structured output the schema rejects', async () => {
    const executor = new HostToolExecutor([adder({ content: '3', structured: { sum: 'three' } })]);
    const err = await executor.execute('add', { a: 1, b: 2 }, context()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect(err).toMatchObject({ code: 'TOOL_EXECUTION_FAILED', toolName: 'add' });
    expect((err as Error).message).toContain('sum');
  });

  it('fails with TOOL_EXECUTION_FAILED when structured output is missing', async () => {
    for (const returned of ['3', { content: '3' }]) {
      const executor = new HostToolExecutor([adder(returned)]);
      const err = await executor.execute('add', { a: 1, b: 2 }, context()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ToolError);
      expect(err).toMatchObject({ code: 'TOOL_EXECUTION_FAILED', toolName: 'add' });
    }
  });

  it('passes error results through without checking them', async () => {
    const executor = new HostToolExecutor([adder({ content: 'boom', isError: true })]);
    await expect(executor.execute('add', { a: 1, b: 2 }, context())).resolves.toEqual({
      content: 'boom',
      isError: true,
    });
  });
});
