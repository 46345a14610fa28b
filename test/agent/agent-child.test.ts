import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../../src/index.js';
import type { Agent, AuthorizationRequest, ModelRequest } from '../../src/index.js';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { collect, deferred, ofType } from '../support/run-helpers.js';

// A root agent and its children over three real stdio servers (counting-server.mjs, which
// logs each process start and each request it reads): the children borrow the root's
// connections and can only narrow what the root allows.

const SERVERS = ['a', 'b', 'c'] as const;

function countingServers(log: string) {
  return Object.fromEntries(
    SERVERS.map((name) => [
      name,
      stdioConfig('counting-server.mjs', [`--name=${name}`, `--log=${log}`, '--log-requests']),
    ]),
  );
}

/** `<name> <pid> <what>` lines of the servers' log. */
function logLines(log: string): string[][] {
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split(' '));
}

function count(log: string, what: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [name, , kind] of logLines(log))
    if (kind === what) counts[name!] = (counts[name!] ?? 0) + 1;
  return counts;
}

/** Every process ever started, by pid. */
function pids(log: string): Set<string> {
  return new Set(logLines(log).map(([, pid]) => pid!));
}

function toolNames(request: ModelRequest): string[] {
  return request.tools.map((t) => t.name);
}

function rootAgent(log: string, approvals: AuthorizationRequest[]): Agent {
  return createAgent({
    model: scriptedModel([
      { toolCalls: [{ name: 'mcp__a__echo', arguments: { text: 'root' } }] },
      { text: 'root done' },
      { toolCalls: [{ name: 'mcp__b__echo', arguments: { text: 'after' } }] },
      { text: 'root still works' },
    ]),
    mcp: { strictConfig: true },
    mcpServers: countingServers(log),
    policy: {
      // the root hides mcp__c__add and denies mcp__b__add
      visibleTools: ['mcp__a', 'mcp__b', 'mcp__c__echo', 'wait'],
      allow: ['mcp_connect:*', 'mcp__a', 'mcp__b'],
      deny: ['mcp__b__add'],
      approve: (req) => {
        approvals.push(req);
        return req.capability === 'wait';
      },
    },
  });
}

describe('child agents over shared stdio servers', () => {
  it('borrow the root connections, pass the root policy and cannot widen visibility', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'muster-child-')), 'servers.log');
    const rootApprovals: AuthorizationRequest[] = [];
    const childApprovals: AuthorizationRequest[] = [];
    const root = rootAgent(log, rootApprovals);
    const readerModel = scriptedModel([
      {
        toolCalls: [
          { name: 'mcp__a__echo', arguments: { text: 'from reader' } },
          { name: 'mcp__b__add', arguments: { a: 1, b: 2 } },
          { name: 'mcp__c__add', arguments: { a: 1, b: 2 } },
          { name: 'mcp__c__echo', arguments: { text: 'needs both approvals' } },
        ],
      },
      { text: 'reader done' },
    ]);
    const reader = root.child({
      model: readerModel,
      system: 'You read.',
      // asks for everything of c, add included: the root hides it, so the reader cannot see it
      policy: {
        visibleTools: ['mcp__a__*', 'mcp__b__*', 'mcp__c__*'],
        default: 'ask',
        approve: (req) => {
          childApprovals.push(req);
          return true;
        },
      },
    });
    const writerModel = scriptedModel([
      { toolCalls: [{ name: 'mcp__a__add', arguments: { a: 2, b: 3 } }] },
      { text: 'writer done' },
    ]);
    const writer = root.child({ model: writerModel, policy: { visibleTools: ['mcp__a__add'] } });
    try {
      expect((await root.send('go')).text).toBe('root done');
      const started = count(log, 'start');
      expect(started).toEqual({ a: 1, b: 1, c: 1 });

      const { events, error } = await collect(reader.run({ input: 'read' }));
      expect(error).toBeUndefined();
      const done = ofType(events, 'tool.completed');
      const byName = Object.fromEntries(done.map((e) => [e.toolName, e]));
      expect(byName['mcp__a__echo']).toMatchObject({ isError: false, content: 'a: from reader' });
      // denied by the root's policy, whatever the child allows
      expect(byName['mcp__b__add']).toMatchObject({ isError: true, errorCode: 'TOOL_DENIED' });
      // hidden by the root: the child's visibleTools cannot bring it back
      expect(byName['mcp__c__add']).toMatchObject({ isError: true, errorCode: 'TOOL_NOT_FOUND' });
      expect(toolNames(readerModel.requests[0]!)).not.toContain('mcp__c__add');
      expect(toolNames(readerModel.requests[0]!)).toEqual(
        expect.arrayContaining(['mcp__a__echo', 'mcp__c__echo']),
      );
      // the child's approver said yes; the root's still decided (and said no)
      expect(byName['mcp__c__echo']).toMatchObject({ isError: true, errorCode: 'TOOL_DENIED' });
      expect(childApprovals.map((r) => r.capability)).toContain('mcp__c__echo');
      expect(rootApprovals.map((r) => r.capability)).toEqual(['mcp__c__echo']);
      expect(readerModel.requests[0]!.system).toBe('You read.');

      expect((await writer.send('write')).text).toBe('writer done');
      expect(toolNames(writerModel.requests[0]!)).toEqual(['mcp__a__add']);

      // one process and one tools/list per server, for the root and both children
      expect(count(log, 'start')).toEqual({ a: 1, b: 1, c: 1 });
      expect(pids(log).size).toBe(3);
      expect(count(log, 'tools/list')).toEqual({ a: 1, b: 1, c: 1 });

      // closing a child leaves the root's connections and runs working
      await reader.close();
      await expect(collect(reader.run({ input: 'again' }))).resolves.toMatchObject({
        error: { code: 'ABORTED' },
      });
      const after = await root.send('again');
      expect(after.text).toBe('root still works');
      expect(ofType(after.events, 'tool.completed')[0]).toMatchObject({
        toolName: 'mcp__b__echo',
        isError: false,
      });
      expect(pids(log).size).toBe(3);
      expect(root.mcp.list().map((s) => s.status)).toEqual(['connected', 'connected', 'connected']);
    } finally {
      await root.close();
    }
  }, 60_000);

  it('refuses registry mutations from a child, and from the root while a child runs; closing the root aborts the child', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'muster-child-')), 'servers.log');
    const root = rootAgent(log, []);
    const started = deferred();
    const wait = tool({
      name: 'wait',
      description: 'Waits until the run is aborted.',
      input: z.object({}),
      execute: (_args, ctx) =>
        new Promise<string>((_resolve, reject) => {
          started.resolve();
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
        }),
    });
    const slow = root.child({
      model: scriptedModel([{ toolCalls: [{ name: 'wait', arguments: {} }] }, { text: 'never' }]),
      tools: [wait],
    });
    try {
      await expect(slow.mcp.register('d', stdioConfig('basic-server.mjs'))).rejects.toMatchObject({
        code: 'REGISTRY_BUSY',
        message: expect.stringContaining('root.mcp.register()'),
      });
      await expect(slow.mcp.unregister('a')).rejects.toMatchObject({ code: 'REGISTRY_BUSY' });
      await expect(slow.mcp.update('a', stdioConfig('basic-server.mjs'))).rejects.toMatchObject({
        code: 'REGISTRY_BUSY',
      });
      // what changes shared connections, or opens subscriptions that would outlive the child
      for (const refused of [
        () => slow.mcp.disconnectAll(),
        () => slow.mcp.logout('a'),
        () => slow.mcp.authenticate('a'),
        () => slow.mcp.submitOAuthCallback('a', 'http://127.0.0.1:1/cb?code=x&state=y'),
        () => slow.mcp.notifyRootsChanged(),
        () => slow.mcp.subscribeResource('a', 'demo://x'),
        () => slow.mcp.listen('a', {}),
      ])
        await expect(refused()).rejects.toMatchObject({ code: 'REGISTRY_BUSY' });
      // reads go to the root's registry
      expect(slow.mcp.list().map((s) => s.name)).toEqual(['a', 'b', 'c']);

      const run = collect(slow.run({ input: 'wait' }));
      await started.promise;
      await expect(root.mcp.register('d', stdioConfig('basic-server.mjs'))).rejects.toMatchObject({
        code: 'REGISTRY_BUSY',
      });
      let idle = false;
      const rootIdle = root.awaitIdle().then(() => (idle = true));
      await Promise.resolve();
      expect(idle).toBe(false);

      await root.close();
      const { events, error } = await run;
      expect(error).toMatchObject({ code: 'ABORTED' });
      expect(ofType(events, 'session.failed')[0]!.error.code).toBe('ABORTED');
      await rootIdle;
      await expect(collect(slow.run({ input: 'again' }))).resolves.toMatchObject({
        error: { code: 'ABORTED' },
      });
      expect(() => slow.child()).toThrow(expect.objectContaining({ code: 'ABORTED' }));
    } finally {
      await root.close();
    }
  }, 60_000);

  it('a grandchild sees the intersection of every ancestor; closing a child closes its children', async () => {
    const make = (name: string) =>
      tool({ name, description: name, input: z.object({}), execute: () => name });
    const root = createAgent({
      model: scriptedModel([]),
      tools: [make('t1'), make('t2'), make('t3')],
      policy: { visibleTools: ['t1', 't2'], default: 'allow' },
    });
    const grandModel = scriptedModel([
      {
        toolCalls: [
          { name: 't1', arguments: {} },
          { name: 't2', arguments: {} },
        ],
      },
      { text: 'grand done' },
    ]);
    const child = root.child({ policy: { visibleTools: ['t1', 't2', 't3'] } });
    const grand = child.child({ model: grandModel, policy: { visibleTools: ['t2', 't3'] } });
    try {
      const reply = await grand.send('go');
      expect(toolNames(grandModel.requests[0]!)).toEqual(['t2']);
      expect(ofType(reply.events, 'tool.completed').map((e) => e.errorCode ?? 'ok')).toEqual([
        'TOOL_NOT_FOUND',
        'ok',
      ]);
      await child.close();
      await expect(collect(grand.run({ input: 'again' }))).resolves.toMatchObject({
        error: { code: 'ABORTED' },
      });
    } finally {
      await root.close();
    }
  });

  it('one run per session across the root and its children; name conflicts and bad options fail', async () => {
    const shared = tool({
      name: 'shared',
      description: 'A root tool.',
      input: z.object({}),
      execute: () => 'root',
    });
    const root = createAgent({ model: scriptedModel([]), tools: [shared] });
    try {
      expect(() => root.child({ tools: [shared] })).toThrow(
        expect.objectContaining({ code: 'TOOL_NAME_CONFLICT' }),
      );
      expect(() => root.child({ mcpServers: {} } as never)).toThrow(
        expect.objectContaining({ code: 'INVALID_CONFIGURATION' }),
      );
      const gate = deferred();
      const child = root.child({
        model: scriptedModel([
          async () => {
            await gate.promise;
            return { text: 'child done' };
          },
        ]),
      });
      const first = collect(child.run({ input: 'x', sessionId: 'one-session' }));
      // the claim is taken when the run starts (collect starts it at once)
      const second = await collect(root.run({ input: 'y', sessionId: 'one-session' }));
      expect(second.error).toMatchObject({ code: 'SESSION_ALREADY_RUNNING' });
      gate.resolve();
      expect((await first).error).toBeUndefined();
    } finally {
      await root.close();
    }
  });
});
