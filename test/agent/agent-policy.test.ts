import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../../src/index.js';
import type {
  AuthorizationEvent,
  AuthorizationRequest,
  ToolResultMessage,
} from '../../src/index.js';
import { collect, ofType } from '../support/run-helpers.js';

function writeTool(runs: unknown[]) {
  return tool({
    name: 'write_file',
    description: 'Writes a file.',
    input: z.object({ path: z.string().startsWith('/tmp/'), text: z.string() }),
    execute: (args) => {
      runs.push(args);
      return 'written';
    },
  });
}

const call = (args: object = { path: '/tmp/a', text: 'TOP-SECRET-ARG' }) => ({
  toolCalls: [{ name: 'write_file', arguments: args }],
});
const lastTool = (req: { messages: readonly { role: string }[] }) =>
  [...req.messages].reverse().find((m) => m.role === 'tool') as ToolResultMessage;

describe('policy through the agent', () => {
  it('ask without an approver denies with TOOL_APPROVAL_REQUIRED, as a result the model reads', async () => {
    const runs: unknown[] = [];
    const model = scriptedModel([call(), (req) => ({ text: lastTool(req).content })]);
    const agent = createAgent({ model, tools: [writeTool(runs)] });
    const { events, error } = await collect(agent.run({ input: 'write' }));
    expect(error).toBeUndefined();
    expect(runs).toHaveLength(0);
    expect(ofType(events, 'tool.completed')[0]).toMatchObject({
      isError: true,
      errorCode: 'TOOL_APPROVAL_REQUIRED',
      executed: false,
    });
    expect(ofType(events, 'session.completed')[0]?.content).toMatch(
      /^Error \[TOOL_APPROVAL_REQUIRED\]/,
    );
  });

  it('deny beats allow through the agent and the tool never runs', async () => {
    const runs: unknown[] = [];
    const approve = vi.fn(() => true);
    const agent = createAgent({
      model: scriptedModel([call(), { text: 'ok' }]),
      tools: [writeTool(runs)],
      policy: { deny: ['write_*'], allow: ['write_file'], approve },
    });
    const { events } = await collect(agent.run({ input: 'x' }));
    expect(runs).toHaveLength(0);
    expect(approve).not.toHaveBeenCalled();
    expect(ofType(events, 'tool.decision')[0]).toMatchObject({ decision: 'deny', stage: 'deny' });
    expect(ofType(events, 'tool.completed')[0]).toMatchObject({ errorCode: 'TOOL_DENIED' });
  });

  it('the approver sees the exact arguments and emits tool.approval.requested first', async () => {
    const runs: unknown[] = [];
    const seen: AuthorizationRequest[] = [];
    const agent = createAgent({
      model: scriptedModel([call(), { text: 'ok' }]),
      tools: [writeTool(runs)],
      policy: { approve: (r) => (seen.push(r), true) },
    });
    const { events } = await collect(agent.run({ input: 'x' }));
    expect(seen[0]).toMatchObject({
      toolName: 'write_file',
      source: 'host',
      arguments: { path: '/tmp/a', text: 'TOP-SECRET-ARG' },
      callId: 'call_1_1',
      iteration: 1,
    });
    const order = events.map((e) => e.type).filter((t) => t.startsWith('tool.'));
    expect(order).toEqual([
      'tool.approval.requested',
      'tool.decision',
      'tool.called',
      'tool.completed',
    ]);
    expect(runs).toEqual([{ path: '/tmp/a', text: 'TOP-SECRET-ARG' }]);
  });

  it('redirect skips the tool, records a safe result and continues the same run with the new instruction', async () => {
    const runs: unknown[] = [];
    const model = scriptedModel([call(), { text: 'Listing first, as asked.' }]);
    const agent = createAgent({
      model,
      tools: [writeTool(runs)],
      policy: {
        approve: () => ({ decision: 'redirect', message: 'List the directory before writing.' }),
      },
    });
    const { events, error } = await collect(agent.run({ input: 'write it' }));
    expect(error).toBeUndefined();
    expect(runs).toHaveLength(0);
    expect(ofType(events, 'tool.decision')[0]).toMatchObject({
      decision: 'redirect',
      stage: 'approval',
    });
    const second = model.requests[1]!.messages;
    expect(second.at(-2)).toMatchObject({ role: 'tool', isError: false });
    expect(second.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'List the directory before writing.' }],
    });
    expect(ofType(events, 'session.completed')[0]?.runId).toBe(events[0]!.runId);
  });

  it('dry-run evaluates and reports decisions without executing anything', async () => {
    const runs: unknown[] = [];
    const agent = createAgent({
      model: scriptedModel([
        call(),
        { toolCalls: [{ name: 'write_file', arguments: { path: '/tmp/b', text: 'x' } }] },
        { text: 'done' },
      ]),
      tools: [writeTool(runs)],
      policy: {
        dryRun: true,
        allow: ['write_file'],
        rules: [
          { id: 'only-a', authorize: (r) => (r.arguments?.path === '/tmp/b' ? 'deny' : undefined) },
        ],
      },
    });
    const { events } = await collect(agent.run({ input: 'x' }));
    expect(runs).toHaveLength(0);
    expect(ofType(events, 'tool.called')).toHaveLength(0);
    expect(ofType(events, 'tool.decision').map((d) => [d.decision, d.stage, d.dryRun])).toEqual([
      ['allow', 'allow', true],
      ['deny', 'rule', true],
    ]);
    expect(ofType(events, 'tool.completed').map((c) => c.content)).toEqual([
      expect.stringMatching(/^Dry run: this call would be allowed/),
      expect.stringMatching(/^Dry run: this call would be denied/),
    ]);
  });

  it('the policy observer sees every decision but never the arguments, and its failures change nothing', async () => {
    const seen: AuthorizationEvent[] = [];
    const errors: unknown[] = [];
    const agent = createAgent({
      model: scriptedModel([
        call(),
        call({ path: '/tmp/c', text: 'TOP-SECRET-ARG' }),
        { text: 'done' },
      ]),
      tools: [writeTool([])],
      policy: {
        allow: ['write_file'],
        observer: (e) => {
          seen.push(e);
          throw new Error('observer exploded');
        },
      },
      observability: { onError: (e) => void errors.push(e) },
    });
    const { events, error } = await collect(agent.run({ input: 'x' }));
    expect(error).toBeUndefined();
    expect(ofType(events, 'tool.completed').every((c) => c.executed && !c.isError)).toBe(true);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({
      kind: 'tool',
      toolName: 'write_file',
      stage: 'allow',
      decision: 'allow',
      dryRun: false,
      source: 'host',
    });
    expect(JSON.stringify(seen)).not.toContain('TOP-SECRET-ARG');
    expect(errors.map(String)).toEqual(['Error: observer exploded', 'Error: observer exploded']);
  });

  it('an event observer that throws or rejects never changes the run', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const agent = createAgent({
      model: scriptedModel([{ text: 'fine' }]),
      observability: {
        onEvent: () => {
          calls++;
          if (calls % 2 === 0) return Promise.reject(new Error('async observer failed'));
          throw new Error('sync observer failed');
        },
        onError: (e) => {
          errors.push(e);
          throw new Error('even the error reporter fails');
        },
      },
    });
    const reply = await agent.send('x');
    expect(reply.text).toBe('fine');
    expect(calls).toBe(reply.events.length);
    await vi.waitFor(() => expect(errors.length).toBe(reply.events.length));
  });

  it('invisible tools are not offered to the model and calling one is TOOL_NOT_FOUND', async () => {
    const runs: unknown[] = [];
    const read = tool({
      name: 'read_file',
      description: 'r',
      input: z.object({}),
      execute: () => 'content',
    });
    const model = scriptedModel([
      call(),
      { toolCalls: [{ name: 'nonexistent', arguments: {} }] },
      { text: 'ok' },
    ]);
    const agent = createAgent({
      model,
      tools: [read, writeTool(runs)],
      policy: { visibleTools: ['read_*'], default: 'allow' },
    });
    const { events } = await collect(agent.run({ input: 'x' }));
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(['read_file']);
    expect(runs).toHaveLength(0);
    expect(ofType(events, 'tool.completed').map((c) => c.errorCode)).toEqual([
      'TOOL_NOT_FOUND',
      'TOOL_NOT_FOUND',
    ]);
    expect(ofType(events, 'tool.decision')).toHaveLength(0);
  });
});

describe('hooks through the agent', () => {
  it('beforeTool rewrites arguments, which are re-validated, approved as rewritten, and run', async () => {
    const runs: unknown[] = [];
    const approved: unknown[] = [];
    const agent = createAgent({
      model: scriptedModel([call({ path: '/tmp/a', text: 'secret=hunter2' }), { text: 'ok' }]),
      tools: [writeTool(runs)],
      hooks: {
        beforeTool: (c) => ({
          arguments: { ...c.arguments, text: String(c.arguments.text).replace(/hunter2/, '***') },
        }),
      },
      policy: { approve: (r) => (approved.push(r.arguments), true) },
    });
    const { events } = await collect(agent.run({ input: 'x' }));
    expect(approved).toEqual([{ path: '/tmp/a', text: 'secret=***' }]);
    expect(runs).toEqual([{ path: '/tmp/a', text: 'secret=***' }]);
    expect(ofType(events, 'tool.called')[0]?.arguments).toEqual({
      path: '/tmp/a',
      text: 'secret=***',
    });
    expect(ofType(events, 'tool.approval.requested')[0]?.arguments).toEqual({
      path: '/tmp/a',
      text: 'secret=***',
    });
  });

  it('a rewrite that breaks the schema is refused as TOOL_ARGUMENTS_INVALID before policy', async () => {
    const runs: unknown[] = [];
    const approve = vi.fn(() => true);
    const agent = createAgent({
      model: scriptedModel([call(), { text: 'ok' }]),
      tools: [writeTool(runs)],
      hooks: {
        beforeTool: [
          () => undefined,
          (c) => ({ arguments: { ...c.arguments, path: '/etc/passwd' } }),
        ],
      },
      policy: { approve },
    });
    const { events } = await collect(agent.run({ input: 'x' }));
    expect(runs).toHaveLength(0);
    expect(approve).not.toHaveBeenCalled();
    expect(ofType(events, 'tool.completed')[0]).toMatchObject({
      errorCode: 'TOOL_ARGUMENTS_INVALID',
    });
    expect(ofType(events, 'tool.completed')[0]?.content).toContain('path');
  });

  it('beforeTool can deny, and a throwing beforeTool denies (fail closed)', async () => {
    const runs: unknown[] = [];
    const observed: AuthorizationEvent[] = [];
    const agent = createAgent({
      model: scriptedModel([call(), call(), { text: 'ok' }]),
      tools: [writeTool(runs)],
      hooks: {
        beforeTool: (c) => {
          if (c.iteration === 1) return { decision: 'deny', reason: 'writes are frozen' };
          throw new Error('hook crashed');
        },
      },
      policy: { default: 'allow', observer: (e) => void observed.push(e) },
    });
    const { events } = await collect(agent.run({ input: 'x' }));
    expect(runs).toHaveLength(0);
    expect(ofType(events, 'tool.decision').map((d) => [d.stage, d.decision])).toEqual([
      ['hook', 'deny'],
      ['hook', 'deny'],
    ]);
    expect(ofType(events, 'tool.completed')[0]?.content).toContain('writes are frozen');
    expect(ofType(events, 'tool.completed')[1]?.content).toContain('hook crashed');
    expect(observed.map((o) => o.stage)).toEqual(['hook', 'hook']);
  });

  it('afterTool replaces the result; a throwing afterTool withholds it as TOOL_EXECUTION_FAILED', async () => {
    const leaky = tool({
      name: 'leaky',
      description: 'l',
      input: z.object({}),
      execute: () => 'token=abc123',
    });
    const agent = createAgent({
      model: scriptedModel([
        { toolCalls: [{ name: 'leaky', arguments: {} }] },
        { toolCalls: [{ name: 'leaky', arguments: {} }] },
        { text: 'ok' },
      ]),
      tools: [leaky],
      policy: { allow: ['leaky'] },
      hooks: {
        afterTool: (c) => {
          if (c.iteration === 2) throw new Error('redactor down');
          return { result: c.result.content.replace(/abc123/, '[redacted]') };
        },
      },
    });
    const { events } = await collect(agent.run({ input: 'x' }));
    const done = ofType(events, 'tool.completed');
    expect(done[0]).toMatchObject({ content: 'token=[redacted]', isError: false });
    expect(done[1]).toMatchObject({ errorCode: 'TOOL_EXECUTION_FAILED', executed: true });
    expect(JSON.stringify(events)).not.toContain('abc123');
  });
});
