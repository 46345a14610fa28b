/**
 * What `query()` maps onto the agent: permissions (allowedTools, canUseTool with
 * updatedInput, disallowedTools), the MCP options (strictMcpConfig, allowedMcpServerNames),
 * and the control methods (interrupt, streamInput, close), with a scripted model and real
 * servers (in-process and stdio).
 */
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { getEventListeners } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  MemorySessionStore,
  MusterError,
  createSdkMcpServer,
  scriptedModel,
  sdkTool,
} from '../../src/index.js';
import type { ScriptedTurn } from '../../src/index.js';
import { query } from '../../src/query/index.js';
import type { QueryMessage, QueryOptions, QueryResultMessage } from '../../src/query/index.js';
import { stdioConfig } from '../support/mcp-fixtures.js';

const seen: { text: string }[] = [];
const shout = sdkTool('shout', 'Upper-cases the text.', { text: z.string() }, async ({ text }) => {
  seen.push({ text });
  return { content: [{ type: 'text', text: text.toUpperCase() }] };
});
const wait = sdkTool('wait', 'Waits until cancelled.', {}, async (_args, ctx) => {
  await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
  return { content: [{ type: 'text', text: 'stopped' }] };
});
const kit = createSdkMcpServer({ name: 'kit', tools: [shout, wait] });

const callShout = (text: string): ScriptedTurn => ({
  toolCalls: [{ name: 'mcp__kit__shout', arguments: { text } }],
});

async function collect(options: Omit<QueryOptions, 'model'>, turns: ScriptedTurn[]) {
  const q = query({
    prompt: 'go',
    options: {
      model: scriptedModel(turns),
      mcpServers: { kit },
      strictMcpConfig: true,
      ...options,
    },
  });
  const messages: QueryMessage[] = [];
  for await (const m of q) messages.push(m);
  return messages;
}

const toolResults = (messages: QueryMessage[]) =>
  messages.flatMap((m) =>
    m.type === 'user' && typeof m.message.content !== 'string'
      ? m.message.content.filter((b) => b.type === 'tool_result')
      : [],
  );
const resultOf = (messages: QueryMessage[]) =>
  messages.find((m): m is QueryResultMessage => m.type === 'result');

describe('permissions', () => {
  it('canUseTool is asked about a call allowedTools does not cover, and updatedInput is what runs', async () => {
    seen.length = 0;
    const asked: unknown[] = [];
    const messages = await collect(
      {
        canUseTool: async (name, input, { signal, toolUseID }) => {
          asked.push({ name, input, aborted: signal.aborted, toolUseID });
          return { behavior: 'allow', updatedInput: { text: 'rewritten' } };
        },
      },
      [callShout('hello'), { text: 'done' }],
    );
    expect(asked).toEqual([
      { name: 'mcp__kit__shout', input: { text: 'hello' }, aborted: false, toolUseID: 'call_1_1' },
    ]);
    expect(seen).toEqual([{ text: 'rewritten' }]);
    expect(toolResults(messages)).toMatchObject([{ content: 'REWRITTEN', is_error: false }]);
    expect(resultOf(messages)?.subtype).toBe('success');
  });

  it('a canUseTool deny reaches the model with its message and is listed in permission_denials', async () => {
    seen.length = 0;
    const messages = await collect(
      { canUseTool: async () => ({ behavior: 'deny', message: 'not on weekends' }) },
      [callShout('hello'), { text: 'done' }],
    );
    expect(seen).toEqual([]);
    const [denied] = toolResults(messages);
    expect(denied).toMatchObject({ is_error: true });
    expect(JSON.stringify(denied)).toContain('not on weekends');
    expect(resultOf(messages)?.permission_denials).toEqual([
      { tool_name: 'mcp__kit__shout', tool_use_id: 'call_1_1', tool_input: { text: 'hello' } },
    ]);
  });

  it('without canUseTool a call outside allowedTools is denied; inside it runs without asking', async () => {
    seen.length = 0;
    const denied = await collect({}, [callShout('a'), { text: 'done' }]);
    expect(seen).toEqual([]);
    expect(JSON.stringify(toolResults(denied))).toContain('TOOL_APPROVAL_REQUIRED');
    const allowed = await collect({ allowedTools: ['mcp__kit__shout'] }, [
      callShout('b'),
      { text: 'done' },
    ]);
    expect(seen).toEqual([{ text: 'b' }]);
    expect(toolResults(allowed)).toMatchObject([{ content: 'B', is_error: false }]);
  });

  it('disallowedTools wins over allowedTools and canUseTool (which is not asked)', async () => {
    seen.length = 0;
    let asked = 0;
    const messages = await collect(
      {
        allowedTools: ['mcp__kit__shout'],
        disallowedTools: ['mcp__kit__shout'],
        canUseTool: async () => {
          asked++;
          return { behavior: 'allow' };
        },
      },
      [callShout('a'), { text: 'done' }],
    );
    expect(asked).toBe(0);
    expect(seen).toEqual([]);
    expect(JSON.stringify(toolResults(messages))).toContain('TOOL_DENIED');
  });

  it('a canUseTool that does not answer within controlRequestTimeoutMs denies the call', async () => {
    const messages = await collect(
      {
        controlRequestTimeoutMs: 50,
        canUseTool: (_n, _i, { signal }) =>
          new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
      },
      [callShout('a'), { text: 'done' }],
    );
    expect(JSON.stringify(toolResults(messages))).toContain('controlRequestTimeoutMs');
  });

  it('tools limits what the model sees (and the init message lists)', async () => {
    const model = scriptedModel([{ text: 'done' }]);
    const q = query({
      prompt: 'go',
      options: { model, mcpServers: { kit }, strictMcpConfig: true, tools: ['mcp__kit__wait'] },
    });
    const messages: QueryMessage[] = [];
    for await (const m of q) messages.push(m);
    expect(messages[0]).toMatchObject({ subtype: 'init', tools: ['mcp__kit__wait'] });
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual(['mcp__kit__wait']);
  });
});

describe('MCP options', () => {
  function projectWithServer(): string {
    const dir = mkdtempSync(join(tmpdir(), 'muster-query-'));
    mkdirSync(join(dir, '.muster'));
    writeFileSync(
      join(dir, '.muster', 'mcp.json'),
      JSON.stringify({ mcpServers: { fromfile: stdioConfig('basic-server.mjs') } }),
    );
    return dir;
  }

  it('strictMcpConfig ignores the project file; a file server connects only when allowed', async () => {
    const cwd = projectWithServer();
    const loose = query({ prompt: 'go', options: { model: scriptedModel([]), cwd } });
    const strict = query({
      prompt: 'go',
      options: { model: scriptedModel([]), cwd, strictMcpConfig: true },
    });
    const allowed = query({
      prompt: 'go',
      options: { model: scriptedModel([]), cwd, allowedTools: ['mcp_connect:fromfile'] },
    });
    try {
      expect((await loose.mcpServerStatus()).map((s) => s.name)).toEqual(['fromfile']);
      expect(await strict.mcpServerStatus()).toEqual([]);
      // only servers declared in options.mcpServers connect without asking
      const [refused] = (await loose.initializationResult()).mcp_servers;
      expect(refused).toMatchObject({ name: 'fromfile', status: 'disabled' });
      const [connected] = (await allowed.initializationResult()).mcp_servers;
      expect(connected).toMatchObject({ name: 'fromfile', status: 'connected' });
    } finally {
      await loose.close();
      await strict.close();
      await allowed.close();
    }
  });

  it('never asks canUseTool about built-in tools, and forgets an abort listener on close', async () => {
    const asked: string[] = [];
    const controller = new AbortController();
    const messages = await collect(
      {
        abortController: controller,
        canUseTool: async (name) => {
          asked.push(name);
          return { behavior: 'deny', message: 'no' };
        },
      },
      [
        {
          toolCalls: [
            { name: 'context', arguments: { ref: 'nope' } },
            { name: 'mcp__kit__shout', arguments: { text: 'hi' } },
          ],
        },
        { text: 'done' },
      ],
    );
    expect(resultOf(messages)).toMatchObject({ subtype: 'success' });
    expect(asked).toEqual(['mcp__kit__shout']);
    expect(resultOf(messages)!.permission_denials.map((d) => d.tool_name)).toEqual([
      'mcp__kit__shout',
    ]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('allowedMcpServerNames disables the other process servers (in-process ones stay)', async () => {
    const q = query({
      prompt: 'go',
      options: {
        model: scriptedModel([]),
        strictMcpConfig: true,
        mcpServers: {
          keep: stdioConfig('basic-server.mjs', ['--name=keep']),
          drop: stdioConfig('basic-server.mjs', ['--name=drop']),
          kit,
        },
        allowedMcpServerNames: ['keep'],
      },
    });
    try {
      const init = await q.initializationResult();
      const byName = Object.fromEntries(init.mcp_servers.map((s) => [s.name, s.status]));
      expect(byName).toEqual({ keep: 'connected', drop: 'disabled', kit: 'connected' });
      expect(init.tools).toContain('mcp__keep__echo');
      expect(init.tools.some((t) => t.startsWith('mcp__drop__'))).toBe(false);
    } finally {
      await q.close();
    }
  }, 30_000);

  it('an unknown option fails with INVALID_CONFIGURATION naming it', () => {
    let error: unknown;
    try {
      query({
        prompt: 'go',
        options: { model: scriptedModel([]), permissionMode: 'bypass' } as QueryOptions,
      });
    } catch (err) {
      error = err;
    }
    expect(MusterError.isInstance(error)).toBe(true);
    expect((error as MusterError).code).toBe('INVALID_CONFIGURATION');
    expect((error as MusterError).message).toContain("'permissionMode'");
  });
});

describe('control methods', () => {
  it('interrupt() ends the current turn with an error result', async () => {
    const q = query({
      prompt: 'go',
      options: {
        model: scriptedModel([{ toolCalls: [{ name: 'mcp__kit__wait', arguments: {} }] }]),
        mcpServers: { kit },
        strictMcpConfig: true,
        allowedTools: ['mcp__kit__wait'],
      },
    });
    const messages: QueryMessage[] = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'assistant') await q.interrupt();
    }
    const result = resultOf(messages);
    expect(result).toMatchObject({
      subtype: 'error_during_execution',
      is_error: true,
      error_code: 'ABORTED',
    });
    expect(messages.at(-1)).toBe(result);
  });

  it('maxTurns ends a turn that keeps calling tools with error_max_turns', async () => {
    const messages = await collect({ allowedTools: ['mcp__kit__shout'], maxTurns: 1 }, [
      callShout('a'),
      callShout('b'),
    ]);
    expect(resultOf(messages)).toMatchObject({ subtype: 'error_max_turns', is_error: true });
  });

  it('streamInput() adds user turns to the same session, one result each', async () => {
    const model = scriptedModel([{ text: 'first answer' }, { text: 'second answer' }]);
    const q = query({ prompt: 'first', options: { model, strictMcpConfig: true } });
    await q.streamInput(
      (async function* () {
        yield { type: 'user' as const, message: { role: 'user' as const, content: 'second' } };
      })(),
    );
    const messages: QueryMessage[] = [];
    for await (const m of q) messages.push(m);
    const results = messages.filter((m) => m.type === 'result');
    expect(results.map((r) => r.type === 'result' && r.result)).toEqual([
      'first answer',
      'second answer',
    ]);
    expect(new Set(messages.map((m) => m.session_id)).size).toBe(1);
    // one init for the whole query, before the first turn's messages
    expect(messages.map((m) => m.type)).toEqual([
      'system',
      'assistant',
      'result',
      'assistant',
      'result',
    ]);
    // the second turn continued the conversation
    const texts = JSON.stringify(model.requests[1]?.messages);
    expect(texts).toContain('first');
    expect(texts).toContain('second');
  });

  it('resume continues a stored session in a new query', async () => {
    const sessionStore = new MemorySessionStore();
    const first = query({
      prompt: 'remember the word kiwi',
      options: { model: scriptedModel([{ text: 'noted' }]), sessionStore, strictMcpConfig: true },
    });
    let sessionId = '';
    for await (const m of first) sessionId = m.session_id ?? sessionId;
    const model = scriptedModel([{ text: 'kiwi' }]);
    const second = query({
      prompt: 'which word?',
      options: { model, sessionStore, resume: sessionId, strictMcpConfig: true },
    });
    const messages: QueryMessage[] = [];
    for await (const m of second) messages.push(m);
    expect(messages.every((m) => m.session_id === sessionId)).toBe(true);
    expect(JSON.stringify(model.requests[0]?.messages)).toContain('remember the word kiwi');
  });

  it('aborting options.abortController ends the turn with an error result and the query', async () => {
    const abortController = new AbortController();
    const q = query({
      prompt: (async function* () {
        yield { type: 'user' as const, message: { role: 'user' as const, content: 'wait' } };
        yield { type: 'user' as const, message: { role: 'user' as const, content: 'never' } };
      })(),
      options: {
        model: scriptedModel([{ toolCalls: [{ name: 'mcp__kit__wait', arguments: {} }] }]),
        mcpServers: { kit },
        strictMcpConfig: true,
        allowedTools: ['mcp__kit__wait'],
        abortController,
      },
    });
    const messages: QueryMessage[] = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'assistant') abortController.abort();
    }
    expect(messages.filter((m) => m.type === 'result')).toMatchObject([
      { subtype: 'error_during_execution', error_code: 'ABORTED' },
    ]);
  });

  it('close() ends a query that waits for more input and stops its server processes', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'muster-query-close-')), 'starts.log');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const q = query({
      prompt: (async function* () {
        yield { type: 'user' as const, message: { role: 'user' as const, content: 'one' } };
        await held;
      })(),
      options: {
        model: scriptedModel([{ text: 'ok' }]),
        mcpServers: { keep: stdioConfig('counting-server.mjs', [`--log=${log}`, '--log-exit']) },
        strictMcpConfig: true,
      },
    });
    const messages: QueryMessage[] = [];
    let closing: Promise<void> | undefined;
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'result') closing = q.close();
    }
    await closing;
    release();
    expect(messages.map((m) => m.type)).toEqual(['system', 'assistant', 'result']);
    expect(await q.next()).toEqual({ done: true, value: undefined });
    await expect(q.streamInput((async function* () {})())).rejects.toThrow(/closed/);
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    const started = lines.filter((l) => l.endsWith(' start')).map((l) => l.split(' ')[1]);
    const exited = lines.filter((l) => !l.endsWith(' start')).map((l) => l.split(' ')[1]);
    expect(started.length).toBeGreaterThan(0);
    expect(new Set(exited)).toEqual(new Set(started));
  }, 30_000);
});
