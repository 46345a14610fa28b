import { describe, expect, it } from 'vitest';
import { MusterError } from '../errors/index.js';
import { createSdkMcpServer } from '../mcp/index.js';
import { scriptedModel } from '../model/index.js';
import { resolveQueryOptions, toMusterServer } from './query-options.js';
import type { QueryOptions } from './query-options.js';

const model = scriptedModel([]);
const resolve = (o: Record<string, unknown>) =>
  resolveQueryOptions({ model, ...o } as QueryOptions, () => undefined);

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return MusterError.isInstance(err) ? `${err.code}: ${err.message}` : String(err);
  }
  return undefined;
}

describe('resolveQueryOptions', () => {
  it("maps outputFormat onto each run's output, and refuses a type other than json_schema", () => {
    const schema = { type: 'object', properties: { n: { type: 'number' } } };
    expect(resolve({ outputFormat: { type: 'json_schema', schema } }).output).toEqual({ schema });
    expect(resolve({}).output).toBeUndefined();
    expect(codeOf(() => resolve({ outputFormat: { type: 'text', schema } }))).toMatch(
      /^INVALID_CONFIGURATION: .*'outputFormat'.*json_schema/,
    );
  });

  it('maps the reference options onto policy, mcp and limits', () => {
    const { agent } = resolve({
      mcpServers: { fs: { command: 'fs-server' } },
      tools: ['mcp__fs__*'],
      allowedTools: ['mcp__fs__read'],
      disallowedTools: ['mcp__fs__write'],
      strictMcpConfig: true,
      allowedMcpServerNames: ['fs'],
      maxTurns: 3,
      systemPrompt: 'Be brief.',
      cwd: '/tmp',
      modelName: 'm',
    });
    expect(agent.policy).toMatchObject({
      visibleTools: ['mcp__fs__*'],
      deny: ['mcp__fs__write'],
      allow: ['mcp__fs__read', 'mcp_connect:fs'],
      default: 'ask',
    });
    expect(agent.policy?.approve).toBeUndefined();
    expect(agent.hooks).toBeUndefined();
    expect(agent.mcp).toMatchObject({
      strictConfig: true,
      allowedServers: ['fs'],
      handlerTimeoutMs: 60_000,
    });
    expect(agent.limits).toEqual({ maxIterations: 3 });
    expect(agent).toMatchObject({ system: 'Be brief.', workdir: '/tmp', modelName: 'm' });
  });

  it('connects exactly the declared servers without asking', () => {
    const { agent } = resolve({ mcpServers: { a: { command: 'a' }, b: { command: 'b' } } });
    expect(agent.policy?.allow).toEqual(['mcp_connect:a', 'mcp_connect:b']);
  });

  it('canUseTool becomes the approver and a beforeTool hook', () => {
    const { agent } = resolve({ canUseTool: async () => ({ behavior: 'allow' }) });
    expect(typeof agent.policy?.approve).toBe('function');
    expect(typeof agent.hooks?.beforeTool).toBe('function');
  });

  it('onElicitation becomes the elicitation handler, in the reference request shape', async () => {
    const seen: unknown[] = [];
    const { agent } = resolve({
      onElicitation: async (request: unknown) => {
        seen.push(request);
        return { action: 'decline' };
      },
      controlRequestTimeoutMs: 0,
    });
    const handler = agent.mcp?.handlers?.elicitation;
    const signal = new AbortController().signal;
    const answer = await handler?.(
      { server: 's', mode: 'url', message: 'Open it', url: 'https://x.test/a', elicitationId: 'e' },
      { server: 's', signal },
    );
    expect(answer).toEqual({ action: 'decline' });
    expect(seen).toEqual([
      {
        serverName: 's',
        mode: 'url',
        message: 'Open it',
        url: 'https://x.test/a',
        elicitationId: 'e',
      },
    ]);
    // 0 means no bound: the handler timeout is the largest timer
    expect(agent.mcp?.handlerTimeoutMs).toBe(2_147_483_647);
  });

  it('allows the sse transport when an sse server is declared', () => {
    const { agent } = resolve({ mcpServers: { old: { type: 'sse', url: 'https://x.test/sse' } } });
    expect(agent.mcp?.transports).toEqual(['stdio', 'http', 'sdk', 'sse']);
  });

  it('refuses unknown keys, naming them', () => {
    expect(codeOf(() => resolve({ permissionMode: 'plan' }))).toMatch(
      /^INVALID_CONFIGURATION: .*'permissionMode'/,
    );
  });

  it('refuses wrong shapes and a missing model', () => {
    expect(codeOf(() => resolve({ allowedTools: 'x' }))).toMatch(/'allowedTools' must be/);
    expect(codeOf(() => resolve({ canUseTool: true }))).toMatch(/'canUseTool' must be/);
    expect(codeOf(() => resolve({ controlRequestTimeoutMs: -1 }))).toMatch(
      /'controlRequestTimeoutMs'/,
    );
    expect(codeOf(() => resolve({ maxTurns: 0 }))).toMatch(/'maxTurns'/);
    expect(codeOf(() => resolve({ resume: 'a', sessionId: 'b' }))).toMatch(/different sessions/);
    expect(codeOf(() => resolveQueryOptions({}, () => undefined))).toMatch(/options\.model/);
  });
});

describe('toMusterServer', () => {
  const server = createSdkMcpServer({ name: 'crm' });

  it('takes a server as it is, the reference { type, name, instance } shape and Muster’s own', () => {
    expect(toMusterServer('crm', server)).toEqual({ type: 'sdk', server });
    expect(toMusterServer('crm', { type: 'sdk', name: 'crm', instance: server })).toEqual({
      type: 'sdk',
      server,
    });
    expect(toMusterServer('crm', { type: 'sdk', server })).toEqual({ type: 'sdk', server });
  });

  it('refuses an instance Muster did not make', () => {
    expect(
      codeOf(() =>
        toMusterServer('crm', { type: 'sdk', name: 'crm', instance: {} as typeof server }),
      ),
    ).toMatch(/createSdkMcpServer/);
  });
});
