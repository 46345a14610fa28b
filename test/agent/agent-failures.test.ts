import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createSdkMcpServer,
  MemorySessionStore,
  scriptedModel,
  sdkTool,
  tool,
} from '../../src/index.js';
import type {
  SessionPatch,
  SessionState,
  SessionUpdateResult,
  SessionWriteOptions,
  ToolExecutor,
} from '../../src/index.js';
import { collect, ofType } from '../support/run-helpers.js';

/** A real memory store whose writes start failing on demand, like a database that went away. */
class FlakyStore extends MemorySessionStore {
  failUpdates: ((patch: SessionPatch) => boolean) | undefined;
  override async update(
    id: string,
    patch: SessionPatch,
    options?: SessionWriteOptions,
  ): Promise<void | SessionUpdateResult> {
    if (this.failUpdates?.(patch)) throw new Error('connection to the store was lost');
    return super.update(id, patch, options);
  }
}

const echo = tool({
  name: 'echo',
  description: 'Echoes.',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

describe('run failures outside the model', () => {
  it('a store that fails mid-run ends the run with SESSION_STORE_FAILED, cause kept', async () => {
    const store = new FlakyStore();
    store.failUpdates = (patch) => patch.iteration === 1; // the first assistant message
    const agent = createAgent({
      model: scriptedModel([{ text: 'hi' }]),
      modelName: 'm',
      sessionStore: store,
    });
    const { events, error } = await collect(agent.run({ input: 'hello' }));
    expect(error?.code).toBe('SESSION_STORE_FAILED');
    expect((error?.cause as Error).message).toBe('connection to the store was lost');
    expect(error?.message).toMatch(/session store could not save the session/);
    expect(ofType(events, 'session.failed')[0]?.error.code).toBe('SESSION_STORE_FAILED');
  });

  it('a store that fails when the session is created ends the run with SESSION_STORE_FAILED', async () => {
    const store = new MemorySessionStore();
    store.create = async (_state: SessionState) => {
      throw new TypeError('disk full');
    };
    const agent = createAgent({
      model: scriptedModel([{ text: 'hi' }]),
      modelName: 'm',
      sessionStore: store,
    });
    const { error } = await collect(agent.run({ input: 'hello' }));
    expect(error?.code).toBe('SESSION_STORE_FAILED');
    expect(error?.cause).toBeInstanceOf(TypeError);
  });

  it('an unexpected failure of a tool source is INTERNAL_ERROR with its cause, not a model failure', async () => {
    const broken: ToolExecutor = {
      listTools: () => {
        throw new RangeError('index out of range in a host executor');
      },
      execute: async () => 'never',
    };
    const agent = createAgent({
      model: scriptedModel([{ text: 'hi' }]),
      modelName: 'm',
      toolExecutor: broken,
    });
    const { error } = await collect(agent.run({ input: 'hello' }));
    expect(error?.code).toBe('INTERNAL_ERROR');
    expect(error?.cause).toBeInstanceOf(RangeError);
  });

  it('a failure that cannot be recorded in the store is reported to onError, not swallowed', async () => {
    const store = new FlakyStore();
    const reported: unknown[] = [];
    store.failUpdates = (patch) => patch.status === 'failed';
    const agent = createAgent({
      model: scriptedModel([]), // fails at once: no turns scripted
      modelName: 'm',
      sessionStore: store,
      observability: { onError: (err) => reported.push(err) },
    });
    const { error } = await collect(agent.run({ input: 'hello' }));
    expect(error?.code).toBe('MODEL_RESPONSE_INVALID');
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ code: 'SESSION_STORE_FAILED' });
  });
});

describe('awaitIdle', () => {
  it('waits for a registry change and its connect in flight', async () => {
    const server = createSdkMcpServer({
      name: 'crm',
      tools: [
        sdkTool('ping', 'Pings.', {}, async () => ({ content: [{ type: 'text', text: 'pong' }] })),
      ],
    });
    const agent = createAgent({
      model: scriptedModel([{ text: 'hi' }]),
      modelName: 'm',
      mcp: { strictConfig: true },
      policy: { allow: ['mcp_connect:*'] },
    });
    const registering = agent.mcp.register('crm', { type: 'sdk', server });
    await agent.awaitIdle();
    // the connect ran to its end before awaitIdle resolved
    expect(agent.mcp.list().map((s) => [s.name, s.status])).toEqual([['crm', 'connected']]);
    await registering;
    await agent.close();
  });

  it('waits for initialize() in flight', async () => {
    const server = createSdkMcpServer({
      name: 'crm',
      tools: [
        sdkTool('ping', 'Pings.', {}, async () => ({ content: [{ type: 'text', text: 'pong' }] })),
      ],
    });
    const agent = createAgent({
      model: scriptedModel([{ text: 'hi' }]),
      modelName: 'm',
      tools: [echo],
      mcpServers: { crm: { type: 'sdk', server } },
      mcp: { strictConfig: true },
      policy: { allow: ['mcp_connect:*'] },
    });
    const init = agent.initialize();
    await agent.awaitIdle();
    expect(agent.mcp.list().map((s) => [s.name, s.status])).toEqual([['crm', 'connected']]);
    await init;
    await agent.close();
  });
});

describe('model retry options', () => {
  it('refuses more than 10 attempts when the agent is created', () => {
    expect(() =>
      createAgent({ model: scriptedModel([]), modelRetry: { maxAttempts: 11 } }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
    expect(() =>
      createAgent({ model: scriptedModel([]), modelRetry: { maxAttempts: 10 } }),
    ).not.toThrow();
  });
});
