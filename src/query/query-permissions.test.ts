import { describe, expect, it } from 'vitest';
import type { AuthorizationRequest } from '../policy/index.js';
import type { ToolHookContext } from '../tools/index.js';
import { permissionBridge } from './query-permissions.js';
import type { QueryCanUseTool } from './query-types.js';

const call = (toolName: string, callId = 'c1') =>
  ({
    toolName,
    callId,
    sessionId: 's',
    runId: 'r',
    iteration: 1,
    info: { source: 'mcp', server: 'kit', originalName: toolName.split('__')[2] },
    signal: new AbortController().signal,
    arguments: { text: 'hi' },
  }) as ToolHookContext & { arguments: Record<string, unknown> };

const request = (callId: string): AuthorizationRequest => ({
  kind: 'tool',
  capability: 'mcp__kit__shout',
  toolName: 'mcp__kit__shout',
  callId,
  sessionId: 's',
  runId: 'r',
});

function bridge(canUseTool: QueryCanUseTool, extra: Record<string, unknown> = {}) {
  const interrupts: number[] = [];
  const b = permissionBridge({
    canUseTool,
    timeoutMs: 1000,
    interrupt: () => interrupts.push(1),
    ...extra,
  });
  return { ...b, interrupts };
}

describe('permissionBridge', () => {
  it('an allow with updatedInput rewrites the arguments and approves that call once', async () => {
    const b = bridge(async () => ({ behavior: 'allow', updatedInput: { text: 'new' } }));
    expect(await b.beforeTool(call('mcp__kit__shout'))).toEqual({ arguments: { text: 'new' } });
    const signal = new AbortController().signal;
    expect(await b.approve(request('c1'), signal)).toMatchObject({ decision: 'allow' });
    expect(await b.approve(request('c1'), signal)).toBe(false);
  });

  it('a deny carries its message; interrupt: true interrupts the turn', async () => {
    const b = bridge(async () => ({ behavior: 'deny', message: 'no', interrupt: true }));
    expect(await b.beforeTool(call('mcp__kit__shout'))).toBeUndefined();
    expect(await b.approve(request('c1'), new AbortController().signal)).toEqual({
      decision: 'deny',
      reason: 'no',
    });
    expect(b.interrupts).toEqual([1]);
  });

  it('is not asked about denied or pre-approved tools', async () => {
    let asked = 0;
    const b = bridge(
      async () => {
        asked++;
        return { behavior: 'allow' };
      },
      { allowedTools: ['mcp__kit__ok'], disallowedTools: ['mcp__kit'] },
    );
    await b.beforeTool(call('mcp__kit__ok'));
    await b.beforeTool(call('mcp__kit__shout'));
    expect(asked).toBe(0);
  });

  it('a malformed answer, a throw or a timeout denies', async () => {
    const signal = new AbortController().signal;
    for (const fn of [
      async () => ({ behavior: 'maybe' }),
      async () => {
        throw new Error('ui crashed');
      },
      () => new Promise<never>(() => undefined),
    ]) {
      const b = bridge(fn as QueryCanUseTool, { timeoutMs: 20 });
      await b.beforeTool(call('mcp__kit__shout'));
      expect(await b.approve(request('c1'), signal)).toMatchObject({ decision: 'deny' });
    }
  });

  it('never approves connections or calls it was not asked about', async () => {
    const b = bridge(async () => ({ behavior: 'allow' }));
    const signal = new AbortController().signal;
    expect(
      await b.approve(
        {
          kind: 'connection',
          capability: 'mcp_connect:x',
          server: 'x',
          sessionId: 's',
          runId: 'r',
        },
        signal,
      ),
    ).toBe(false);
    expect(await b.approve(request('unknown'), signal)).toBe(false);
  });
});
