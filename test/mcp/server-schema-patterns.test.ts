/**
 * A server's tool schema runs its `pattern`s under RE2 (linear time), so a pattern such as
 * `^(a+)+$` cannot block the process; a pattern RE2 cannot compile fails the call closed.
 * Host tools keep JavaScript's own engine. Real agents over an in-process server, and a child
 * process for the pattern a backtracking engine would spend hours on.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createSdkMcpServer, scriptedModel, sdkTool, tool } from '../../src/index.js';
import type { Tool } from '../../src/index.js';
import { answerElicitation } from '../../src/mcp/handlers/elicitation-handler.js';
import { ToolPolicy } from '../../src/policy/index.js';
import { checkDirectToolCall } from '../../src/tools/index.js';
import { ROOT } from '../package/built-package.js';
import { collect, ofType } from '../support/run-helpers.js';
import { runnableScript } from '../support/ts-script.js';

const CHECK = resolve(import.meta.dirname, '../fixtures/server-pattern-check.ts');

/** Runs the fixture; a process still running after `timeoutMs` is killed (`timedOut`). */
function checkInChild(
  pattern: string,
  text: string,
  timeoutMs: number,
): Promise<{ stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [runnableScript(CHECK), pattern, text],
      { cwd: ROOT, timeout: timeoutMs, killSignal: 'SIGKILL', encoding: 'utf8' },
      (error, stdout, stderr) => done({ stdout, stderr, timedOut: error?.killed === true }),
    );
  });
}

/** One run calling `check` on a server whose `text` must match `pattern`, then a host tool. */
async function callWithPattern(pattern: RegExp, text: string, hostTools: readonly Tool[] = []) {
  const ran: string[] = [];
  const server = createSdkMcpServer({
    name: 'srv',
    tools: [
      sdkTool('check', 'Checks text.', { text: z.string().regex(pattern) }, ({ text: t }) => {
        ran.push(t);
        return { content: [{ type: 'text', text: `server saw ${t}` }] };
      }),
    ],
  });
  const agent = createAgent({
    model: scriptedModel([
      {
        toolCalls: [
          { name: 'mcp__srv__check', arguments: { text } },
          ...hostTools.map((t) => ({ name: t.name, arguments: { text } })),
        ],
      },
      { text: 'done' },
    ]),
    tools: hostTools,
    mcp: { strictConfig: true },
    mcpServers: { srv: { type: 'sdk', server } },
    policy: { allow: ['mcp_connect:*', '*'] },
    limits: { maxToolCallsPerTurn: 1 + hostTools.length },
  });
  try {
    const { events, error } = await collect(agent.run({ input: 'go' }));
    expect(error).toBeUndefined();
    const completed = new Map(ofType(events, 'tool.completed').map((e) => [e.toolName, e]));
    return { ran, completed, server: completed.get('mcp__srv__check')! };
  } finally {
    await agent.close();
  }
}

const echo = (pattern: RegExp) =>
  tool({
    name: 'echo',
    description: 'Echoes text.',
    input: z.object({ text: z.string().regex(pattern) }),
    execute: ({ text }) => `host saw ${text}`,
  });

describe('item-09: a server schema runs its patterns under RE2', () => {
  it('item-09: ^(a+)+$ finds 40 a followed by ! invalid in a child process, within 30 s', async () => {
    const { stdout, stderr, timedOut } = await checkInChild(
      '^(a+)+$',
      `${'a'.repeat(40)}!`,
      30_000,
    );
    expect(timedOut, 'the pattern backtracked: the process was killed after 30 s').toBe(false);
    expect(JSON.parse(stdout), stderr).toEqual({
      success: false,
      issues: [{ path: ['text'], message: 'must match pattern "^(a+)+$"' }],
    });
  }, 40_000);

  it('item-09: a lookahead in a server tool fails the call closed, naming the pattern; a host tool keeps it', async () => {
    const { ran, completed, server } = await callWithPattern(/^(?=a)a+$/, 'aaa', [
      echo(/^(?=a)a+$/),
    ]);
    expect(server).toMatchObject({ errorCode: 'TOOL_EXECUTION_FAILED', executed: false });
    expect(server.content).toContain(`The input schema of 'mcp__srv__check' could not be used`);
    expect(server.content).toContain('"^(?=a)a+$" cannot run under RE2');
    expect(ran).toEqual([]);
    // the host wrote its own schema: JavaScript's engine runs the lookahead
    expect(completed.get('echo')).toMatchObject({ content: 'host saw aaa', isError: false });
  });

  it('item-09: a direct call of a tool whose pattern RE2 cannot run fails closed, every time', async () => {
    const ran: string[] = [];
    const server = createSdkMcpServer({
      name: 'srv',
      tools: [
        sdkTool('check', 'Checks text.', { text: z.string().regex(/^(?=a)a+$/) }, ({ text }) => {
          ran.push(text);
          return { content: [{ type: 'text', text: `server saw ${text}` }] };
        }),
      ],
    });
    const agent = createAgent({
      model: scriptedModel([{ text: 'unused' }]),
      mcp: { strictConfig: true },
      mcpServers: { srv: { type: 'sdk', server } },
      policy: { allow: ['mcp_connect:*'] },
    });
    try {
      // the first call compiles the schema (and fails); the second finds no compiled check
      for (let i = 0; i < 2; i++) {
        const err = await agent.mcp.callTool('srv', 'check', { text: 'aaa' }).then(
          () => undefined,
          (e: unknown) => e as { code?: string; message?: string },
        );
        expect(err).toMatchObject({ code: 'TOOL_EXECUTION_FAILED' });
        expect(err?.message).toContain("The input schema of 'check' on 'srv' could not be used");
        expect(err?.message).toContain('"^(?=a)a+$" cannot run under RE2');
      }
      expect(ran).toEqual([]);
    } finally {
      await agent.close();
    }
  });

  it('item-09: a repeat count over 1,000 fails closed; 1,000 itself validates', async () => {
    const over = await callWithPattern(/^[a-z]{1,2048}$/, 'abc');
    expect(over.server).toMatchObject({ errorCode: 'TOOL_EXECUTION_FAILED', executed: false });
    expect(over.server.content).toContain('"^[a-z]{1,2048}$" cannot run under RE2');
    expect(over.server.content).toContain('invalid repeat count');
    expect(over.ran).toEqual([]);

    const at = await callWithPattern(/^[a-z]{1,1000}$/, 'abc');
    expect(at.server).toMatchObject({ content: 'server saw abc', isError: false });
    const invalid = await callWithPattern(/^[a-z]{1,1000}$/, 'ABC');
    expect(invalid.server).toMatchObject({ errorCode: 'TOOL_ARGUMENTS_INVALID' });
  });

  it('item-09: a 10 KB alternation compiles under RE2 and validates both ways', async () => {
    const words = Array.from({ length: 1300 }, (_, i) => `w${i.toString(36).padStart(6, 'x')}`);
    const alternation = new RegExp(`^(?:${words.join('|')})$`);
    expect(alternation.source.length).toBeGreaterThan(10_240);
    const hit = await callWithPattern(alternation, words.at(-1)!);
    expect(hit.server).toMatchObject({ content: `server saw ${words.at(-1)}`, isError: false });
    const miss = await callWithPattern(alternation, 'w-none');
    expect(miss.server).toMatchObject({ errorCode: 'TOOL_ARGUMENTS_INVALID', executed: false });
    expect(miss.ran).toEqual([]);
  });

  it('item-09: a direct call (muster mcp call, the studio) fails the same pattern closed', async () => {
    const call = checkDirectToolCall(
      new ToolPolicy({ default: 'allow' }),
      {
        server: 'srv',
        tool: {
          name: 'check',
          inputSchema: { type: 'object', properties: { text: { pattern: '(a)\\1' } } },
        },
        modelName: 'mcp__srv__check',
        arguments: { text: 'aa' },
        sessionId: 's',
        runId: 'r',
      },
      { signal: new AbortController().signal },
    );
    await expect(call).rejects.toMatchObject({
      code: 'TOOL_EXECUTION_FAILED',
      message: expect.stringContaining('"(a)\\\\1" cannot run under RE2'),
    });
  });

  it("item-09: a server's elicitation form runs its patterns under RE2 too", async () => {
    const ask = (pattern: string, name: string) =>
      answerElicitation(
        {
          server: 'srv',
          mode: 'form',
          message: 'Your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string', pattern } } },
        },
        { server: 'srv', signal: new AbortController().signal },
        {
          handler: async () => ({ action: 'accept', content: { name } }),
          hooks: {},
          timeoutMs: 30_000,
          emit: () => undefined,
        },
      );
    // (40 `a`s would block this process for hours if RE2 were not used: the child test has them)
    await expect(ask('^(a+)+$', 'aaaa!')).rejects.toMatchObject({
      code: 'MCP_OPERATION_FAILED',
      message: expect.stringContaining('must match pattern'),
    });
    await expect(ask('^(?=a)a$', 'a')).rejects.toMatchObject({
      code: 'MCP_OPERATION_FAILED',
      details: { reason: 'invalid-answer' },
      message: expect.stringContaining('"^(?=a)a$" cannot run under RE2'),
    });
    await expect(ask('^[a-z]+$', 'ada')).resolves.toEqual({
      action: 'accept',
      content: { name: 'ada' },
    });
  });
});
