// The in-process fast path and the transport path (`fastPath: false`), run side by side on the
// same scenarios: results, errors, progress and events must be the same.
import { describe, expect, it } from 'vitest';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/server';
import { z } from 'zod';
import {
  createAgent,
  createSdkMcpServer,
  MemoryArchiveStore,
  scriptedModel,
  sdkTool,
} from '../../src/index.js';
import type {
  Agent,
  ArchivedItem,
  ArchiveItemInput,
  ArchiveStore,
  AgentEvent,
  AgentOptions,
  ScriptedTurn,
  ScriptedTurnSpec,
} from '../../src/index.js';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import { collect, deferred } from '../support/run-helpers.js';

/** Where each handler ran: over the transport (the official server's stack) or directly. */
const paths: string[] = [];
const notePath = () =>
  paths.push(new Error().stack?.includes('sdk-direct-client') ? 'direct' : 'transport');

let started = deferred();

function server() {
  return createSdkMcpServer({
    name: 'crm',
    version: '2.1.0',
    tools: [
      sdkTool(
        'greet',
        'Greets someone.',
        { name: z.string().describe('Who'), times: z.number().int().min(1).optional() },
        async ({ name, times }) => {
          notePath();
          return { content: [{ type: 'text', text: `Hello, ${name}!`.repeat(times ?? 1) }] };
        },
        { annotations: { readOnlyHint: true, title: 'Greeter' } },
      ),
      sdkTool(
        'order.lookup',
        'Looks up an order.',
        z.object({ id: z.number(), tags: z.array(z.enum(['a', 'b'])).default([]) }),
        async ({ id, tags }) => ({
          content: [{ type: 'text', text: `order ${id}` }],
          structuredContent: { id, tags, status: 'paid' },
        }),
      ),
      sdkTool('refuse', 'Refuses.', {}, async () => ({
        content: [{ type: 'text', text: 'no such customer' }],
        isError: true,
      })),
      sdkTool('boom', 'Throws.', {}, async () => {
        throw new Error('the database is down');
      }),
      sdkTool('link', 'Needs the user to sign in first.', {}, async () => {
        throw new UrlElicitationRequiredError(
          [
            {
              mode: 'url',
              url: 'https://crm.example/connect',
              elicitationId: 'connect-1',
              message: 'Connect your CRM account.',
            },
          ],
          'Sign in first.',
        );
      }),
      sdkTool('count', 'Counts with progress.', { to: z.number() }, async ({ to }, ctx) => {
        for (let i = 1; i <= to; i++)
          await ctx.reportProgress({ progress: i, total: to, message: `step ${i}` });
        await ctx.reportProgress(to + 1);
        return { content: [{ type: 'text', text: `counted to ${to}` }] };
      }),
      sdkTool('hang', 'Waits until cancelled.', {}, async (_args, ctx) => {
        started.resolve();
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        return { content: [{ type: 'text', text: `cancelled: ${ctx.signal.aborted}` }] };
      }),
      sdkTool('dump', 'Returns a lot of text.', { size: z.number() }, async ({ size }) => ({
        content: [{ type: 'text', text: 'x'.repeat(size) }],
      })),
      sdkTool('malformed', 'Returns what no schema accepts.', {}, async () => ({
        content: [{ type: 'text' } as never],
      })),
      sdkTool('extra', 'Returns unknown fields.', {}, async () => ({
        content: [{ type: 'text', text: 'x', note: 1 } as never],
        extra: true,
      })),
      sdkTool('scalar', 'Structured scalar.', {}, async () => ({
        content: [],
        structuredContent: 42 as never,
      })),
    ],
  });
}

const definition = server();
/** The models of the agents made, so what each was shown can be compared. */
const models: ReturnType<typeof scriptedModel>[] = [];

/**
 * A real memory archive whose refs are numbered (`ref_1`, `ref_2`…), so both paths see refs
 * of the same length (random refs vary in length, and so would every preview cut after one).
 */
class NumberedArchive implements ArchiveStore {
  readonly #inner = new MemoryArchiveStore();
  readonly #real = new Map<string, string>();

  async put(item: ArchiveItemInput): Promise<ArchivedItem> {
    const stored = await this.#inner.put(item);
    const ref = `ref_${this.#real.size + 1}`;
    this.#real.set(ref, stored.ref);
    return { ...stored, ref };
  }

  async get(sessionId: string, ref: string): Promise<ArchivedItem | undefined> {
    const stored = await this.#inner.get(sessionId, this.#real.get(ref) ?? ref);
    return stored && { ...stored, ref };
  }
}

function agentWith(fastPath: boolean, turns: ScriptedTurn[], extra: Partial<AgentOptions> = {}) {
  const model = scriptedModel(turns);
  models.push(model);
  return createAgent({
    model,
    modelName: 'm',
    mcpServers: { crm: { type: 'sdk', server: definition, ...(fastPath ? {} : { fastPath }) } },
    policy: { allow: ['mcp_connect:*', 'mcp__crm__*'] },
    context: { archiveStore: new NumberedArchive() },
    ...extra,
    mcp: { strictConfig: true, ...extra.mcp },
  });
}

const VOLATILE = /(^|[a-z])(id|Id|At|at|timestamp|durationMs|elapsedMs|startedAt)$/;

/** Ids, timestamps and durations out; everything else kept. */
function normalize(value: unknown, key = ''): unknown {
  if (key !== '' && VOLATILE.test(key) && (typeof value === 'string' || typeof value === 'number'))
    return '<volatile>';
  if (value instanceof Error) {
    const e = value as Error & { code?: unknown; details?: unknown };
    return { name: e.name, code: e.code, message: e.message, details: normalize(e.details) };
  }
  if (Array.isArray(value)) return value.map((v) => normalize(v));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== 'cause')
        .map(([k, v]) => [k, normalize(v, k)]),
    );
  return value;
}

async function runOnce(agent: Agent, request: Parameters<Agent['run']>[0]) {
  const { events, error } = await collect(agent.run(request));
  return normalize({ events: events as AgentEvent[], error, status: agent.mcp.list() });
}

/** Runs the same agent turns both ways; returns the normalized fast-path outcome. */
async function bothWays(
  turns: () => ScriptedTurn[],
  input: string,
  extra: Partial<AgentOptions> = {},
  during?: (controller: AbortController) => Promise<void>,
) {
  const outcomes: unknown[] = [];
  for (const fastPath of [true, false]) {
    const agent = agentWith(fastPath, turns(), extra);
    const controller = new AbortController();
    started = deferred();
    const run = runOnce(agent, { input, signal: controller.signal });
    await during?.(controller);
    const outcome = (await run) as Record<string, unknown>;
    // the catalog the model was shown: names, descriptions, JSON schemas, annotations
    outcomes.push({ ...outcome, shown: models.at(-1)!.requests.map((r) => r.tools) });
    await agent.close();
  }
  expect(outcomes[0]).toEqual(outcomes[1]);
  return outcomes[0] as { events: { type: string }[]; error?: unknown };
}

const call = (name: string, args: Record<string, unknown>): ScriptedTurnSpec => ({
  toolCalls: [{ name, arguments: args }],
});
const echoLast: ScriptedTurn = (req) => ({
  text: JSON.stringify(req.messages.at(-1)),
});

describe('the sdk fast path and the transport path', () => {
  it('take the fast path by default, and the transport path with fastPath: false', async () => {
    paths.length = 0;
    await bothWays(() => [call('mcp__crm__greet', { name: 'Ada' }), echoLast], 'greet');
    expect(paths).toEqual(['direct', 'transport']);
  });

  it.each(['auto', 'legacy'] as const)(
    'list the same catalog, JSON input schemas byte for byte, and the same statuses (%s)',
    async (mode) => {
      const listed: string[] = [];
      for (const fastPath of [true, false]) {
        const manager = new McpClientManager(
          { crm: { type: 'sdk', server: definition, fastPath } },
          { protocol: { mode } },
        );
        await manager.connectAll();
        listed.push(
          JSON.stringify({ listed: await manager.listTools('crm'), ...manager.list()[0] }),
        );
        await manager.close();
      }
      expect(listed[0]).toBe(listed[1]);
      expect(listed[0]).toContain(mode === 'auto' ? '"era":"modern"' : '"era":"legacy"');
    },
  );

  it.each([
    ['success', 'mcp__crm__greet', { name: 'Ada', times: 2 }],
    ['structured content', 'mcp__crm__order_lookup', { id: 7 }],
    ['an isError result', 'mcp__crm__refuse', {}],
    ['a handler that throws', 'mcp__crm__boom', {}],
    ['a URL elicitation the handler needs (modern era)', 'mcp__crm__link', {}],
    ['invalid arguments', 'mcp__crm__greet', { name: 3 }],
    ['progress with total and message', 'mcp__crm__count', { to: 3 }],
    ['non-object structured content', 'mcp__crm__scalar', {}],
  ])('give the same run for %s', async (_what, tool, args) => {
    const outcome = await bothWays(
      () => [(req) => call(req.tools.find((t) => t.name.startsWith(tool))!.name, args), echoLast],
      'go',
    );
    expect(outcome.events.some((e) => e.type === 'tool.completed')).toBe(true);
  });

  it('give the same run for a URL elicitation the handler needs (legacy era)', async () => {
    const outcome = await bothWays(() => [call('mcp__crm__link', {}), echoLast], 'go', {
      mcp: { protocol: { mode: 'legacy' } },
    });
    const done = outcome.events.find((e) => e.type === 'tool.completed') as
      | { content?: string }
      | undefined;
    // the -32042 error itself reached Muster (the modern era refuses it with another text)
    expect(done?.content).toContain('Sign in first.');
    expect(done?.content).not.toContain('not available on this revision');
  });

  it('give the same run for an abort during a call', async () => {
    const outcome = await bothWays(
      () => [call('mcp__crm__hang', {}), echoLast],
      'hang',
      {},
      async (controller) => {
        await started.promise;
        controller.abort();
      },
    );
    expect(outcome.error).toMatchObject({ code: 'ABORTED' });
  });

  it('give the same run for a slow call that hits timeoutMs', async () => {
    const outcome = await bothWays(() => [call('mcp__crm__hang', {}), echoLast], 'hang', {
      mcp: { operation: { timeoutMs: 30 } },
    });
    expect(JSON.stringify(outcome)).toContain('timeoutMs');
  });

  it('give the same run for a result over the archive threshold', async () => {
    const outcome = await bothWays(
      () => [call('mcp__crm__dump', { size: 60_000 }), echoLast],
      'dump',
    );
    expect(JSON.stringify(outcome)).toContain('archive');
  });

  it('give the same run for a result over maxToolResultBytes', async () => {
    const outcome = await bothWays(
      () => [call('mcp__crm__dump', { size: 5_000 }), echoLast],
      'dump',
      { limits: { maxToolResultBytes: 1_000 } },
    );
    expect(JSON.stringify(outcome)).toContain('TOOL_RESULT_TOO_LARGE');
  });

  it('give the same run through approval, hooks and a denial', async () => {
    const outcome = await bothWays(
      () => [
        {
          toolCalls: [
            { name: 'mcp__crm__greet', arguments: { name: 'Ada' } },
            { name: 'mcp__crm__count', arguments: { to: 1 } },
            { name: 'mcp__crm__refuse', arguments: {} },
          ],
        },
        echoLast,
      ],
      'governed',
      {
        policy: {
          allow: ['mcp_connect:*', 'mcp__crm__greet'],
          deny: ['mcp__crm__refuse'],
          approve: (request) => request.kind === 'tool',
        },
        hooks: {
          beforeTool: (c) =>
            c.toolName === 'mcp__crm__greet' ? { arguments: { name: 'Grace' } } : undefined,
          afterTool: (c) =>
            c.toolName === 'mcp__crm__count' ? { result: 'rewritten' } : undefined,
        },
      },
    );
    const text = JSON.stringify(outcome);
    expect(text).toContain('Hello, Grace!');
    expect(text).toContain('rewritten');
  });

  it('end a call in flight the same way when the connection closes', async () => {
    const failures: unknown[] = [];
    for (const fastPath of [true, false]) {
      const manager = new McpClientManager({ crm: { type: 'sdk', server: definition, fastPath } });
      await manager.connectAll();
      started = deferred();
      const call = manager.callTool('crm', 'hang', {}).then(
        () => 'resolved',
        (err: { code?: string; details?: { reason?: string } }) => ({
          code: err.code,
          reason: err.details?.reason,
        }),
      );
      await started.promise;
      await manager.close();
      failures.push(await call);
    }
    expect(failures[0]).toEqual(failures[1]);
    expect(failures[0]).toMatchObject({ code: 'TOOL_OUTCOME_UNKNOWN' });
  });

  it('give the same run for concurrent calls', async () => {
    await bothWays(
      () => [
        {
          toolCalls: [
            { name: 'mcp__crm__greet', arguments: { name: 'A' } },
            { name: 'mcp__crm__count', arguments: { to: 2 } },
            { name: 'mcp__crm__boom', arguments: {} },
            { name: 'mcp__crm__greet', arguments: { name: 'B' } },
          ],
        },
        echoLast,
      ],
      'many',
    );
  });

  it.each(['auto', 'legacy'] as const)(
    'give the same results through agent.mcp.callTool and McpClientManager (%s)',
    async (mode) => {
      const outcomes: unknown[] = [];
      for (const fastPath of [true, false]) {
        const agent = agentWith(fastPath, [], { mcp: { protocol: { mode } } });
        const manager = new McpClientManager(
          { crm: { type: 'sdk', server: definition, fastPath } },
          { protocol: { mode } },
        );
        const progress: unknown[] = [];
        const results: unknown[] = [];
        for (const target of [agent.mcp, manager]) {
          for (const [tool, args] of [
            ['greet', { name: 'Ada' }],
            ['greet', { name: 3 }],
            ['order.lookup', { id: 1, tags: ['a'] }],
            ['refuse', {}],
            ['boom', {}],
            ['missing', {}],
            ['scalar', {}],
            ['malformed', {}],
            ['extra', {}],
          ] as const) {
            results.push(await target.callTool('crm', tool, args).catch((e: unknown) => e));
          }
          results.push(
            await target
              .callTool('crm', 'count', { to: 2 }, {
                onProgress: (p: unknown) => progress.push(p),
              } as never)
              .catch((e: unknown) => e),
          );
          started = deferred();
          const controller = new AbortController();
          const hanging = target
            .callTool('crm', 'hang', {}, { signal: controller.signal })
            .catch((e: unknown) => e);
          await started.promise;
          controller.abort();
          results.push(await hanging);
          results.push(
            await target.callTool('crm', 'hang', {}, { timeoutMs: 20 }).catch((e: unknown) => e),
          );
        }
        outcomes.push(normalize({ results, progress, status: [agent.mcp.list(), manager.list()] }));
        await agent.close();
        await manager.close();
      }
      expect(outcomes[0]).toEqual(outcomes[1]);
    },
  );

  it.each(['auto', 'legacy'] as const)(
    'give the same answers to requests beyond tools (%s)',
    async (mode) => {
      const outcomes: unknown[] = [];
      for (const fastPath of [true, false]) {
        const manager = new McpClientManager(
          { crm: { type: 'sdk', server: definition, fastPath } },
          { protocol: { mode } },
        );
        await manager.connectAll();
        const settle = <T>(p: Promise<T>) =>
          p.then(
            (value) => ({ value }),
            (error: unknown) => ({ error }),
          );
        const answers = [
          await settle(manager.ping('crm')),
          await settle(manager.listResources('crm')),
          await settle(manager.listPrompts('crm')),
          await settle(manager.setLoggingLevel('crm', 'info')),
          await settle(
            manager.listen('crm', { toolsListChanged: true }).then(async (sub) => {
              await sub.close();
              return 'listened';
            }),
          ),
          await settle(manager.callTool('crm', 'greet', { name: 'after' })),
        ];
        outcomes.push(normalize({ answers, status: manager.list() }));
        await manager.close();
      }
      expect(outcomes[0]).toEqual(outcomes[1]);
    },
  );
});
