/**
 * The studio's server and tool routes on a bare Hono app, against real servers over stdio:
 * server-everything, the counting fixture (to prove a denied call never reaches the server)
 * and a fixture whose tools carry MCP Apps metadata.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CallToolResponse,
  ServerDiagnosticsResponse,
  ServersResponse,
  StudioErrorBody,
  ToolView,
} from '../../src/studio/api-types.js';
import type { AuthorizationRequest } from '../../src/index.js';
import { everythingStdioConfig, stdioConfig } from '../support/mcp-fixtures.js';
import { json, mcpStudio } from './mcp-studio-support.js';
import type { McpStudio } from './mcp-studio-support.js';

const log = join(mkdtempSync(join(tmpdir(), 'studio-mcp-')), 'counting.log');
let studio: McpStudio;

beforeAll(() => {
  studio = mcpStudio({
    servers: {
      everything: everythingStdioConfig(),
      counting: stdioConfig('counting-server.mjs', [`--log=${log}`, '--log-requests']),
      apps: stdioConfig('apps-tools-server.mjs'),
    },
    policy: { deny: ['mcp__counting__add'], default: 'allow' },
  });
});
afterAll(() => studio?.close());

const toolCalls = () =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l.endsWith(' tools/call')).length;

describe('servers and tools', () => {
  it('lists the servers, and a server’s tools with their schemas and model names', async () => {
    const servers = await json<ServersResponse>(studio.call('GET', '/api/servers'));
    expect(servers.map((s) => s.name).sort()).toEqual(['apps', 'counting', 'everything']);
    const tools = await json<ToolView[]>(studio.call('GET', '/api/servers/everything/tools'));
    const echo = tools.find((t) => t.name === 'echo');
    expect(echo?.modelName).toBe('mcp__everything__echo');
    expect(echo?.inputSchema).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
    });
  }, 30_000);

  it('reads MCP Apps metadata: the view URI (nested or legacy key) and the visibility', async () => {
    const tools = await json<ToolView[]>(studio.call('GET', '/api/servers/apps/tools'));
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('view')?.uiResourceUri).toBe('ui://apps/view');
    expect(byName.get('view')?.visibility).toBeUndefined();
    expect(byName.get('legacy-view')?.uiResourceUri).toBe('ui://apps/legacy');
    expect(byName.get('app-only')?.visibility).toEqual(['app']);
    expect(byName.get('model-only')?.visibility).toEqual(['model']);
  }, 30_000);

  it('calls an allowed tool and answers the decision, the result and the duration', async () => {
    const body = await json<CallToolResponse>(
      studio.call('POST', '/api/servers/everything/tools/echo/call', {
        arguments: { message: 'hi studio' },
      }),
    );
    expect(body.decision).toMatchObject({ decision: 'allow' });
    expect(body.result?.isError).toBe(false);
    expect(body.result?.content[0]).toEqual({ type: 'text', text: 'Echo: hi studio' });
    expect(body.result?.raw['content']).toEqual(body.result?.content);
    expect(typeof body.durationMs).toBe('number');
  }, 30_000);

  it('a call the policy denies is a 403 with the decision and never reaches the server', async () => {
    await json(studio.call('GET', '/api/servers/counting/tools'));
    const before = toolCalls();
    const denied = await json<StudioErrorBody>(
      studio.call('POST', '/api/servers/counting/tools/add/call', { arguments: { a: 1, b: 2 } }),
      403,
    );
    expect(denied.error.code).toBe('TOOL_DENIED');
    expect(denied.error.decision).toMatchObject({ decision: 'deny', stage: 'deny' });
    expect(toolCalls()).toBe(before);
    // the counter does count: an allowed call on the same server is one tools/call
    await json(
      studio.call('POST', '/api/servers/counting/tools/echo/call', { arguments: { text: 'x' } }),
    );
    expect(toolCalls()).toBe(before + 1);
  }, 30_000);

  it('invalid arguments are a 400 TOOL_ARGUMENTS_INVALID with issues, before the policy', async () => {
    const before = toolCalls();
    const body = await json<StudioErrorBody>(
      studio.call('POST', '/api/servers/counting/tools/add/call', { arguments: { a: 'one' } }),
      400,
    );
    expect(body.error.code).toBe('TOOL_ARGUMENTS_INVALID');
    expect(body.error.issues?.map((i) => i.path)).toEqual(expect.arrayContaining(['a']));
    expect(toolCalls()).toBe(before);
  }, 30_000);

  it('app-only tools need fromApp, model-only tools refuse it', async () => {
    const hidden = await json<StudioErrorBody>(
      studio.call('POST', '/api/servers/apps/tools/app-only/call', { arguments: {} }),
      403,
    );
    expect(hidden.error.code).toBe('TOOL_DENIED');
    const fromApp = await json<CallToolResponse>(
      studio.call('POST', '/api/servers/apps/tools/app-only/call', {
        arguments: {},
        fromApp: true,
      }),
    );
    expect(fromApp.result?.content[0]).toEqual({ type: 'text', text: 'app-only ran' });
    await json(
      studio.call('POST', '/api/servers/apps/tools/model-only/call', {
        arguments: {},
        fromApp: true,
      }),
      403,
    );
  }, 30_000);

  it('an unknown server or tool is a 404', async () => {
    const server = await json<StudioErrorBody>(studio.call('GET', '/api/servers/nope/tools'), 404);
    expect(server.error.code).toBe('INVALID_CONFIGURATION');
    const tool = await json<StudioErrorBody>(
      studio.call('POST', '/api/servers/everything/tools/nope/call', { arguments: {} }),
      404,
    );
    expect(tool.error.code).toBe('TOOL_NOT_FOUND');
  }, 30_000);
});

describe('approval', () => {
  it('asks the approver with the exact request, and a request that goes away aborts it', async () => {
    const asked: AuthorizationRequest[] = [];
    let approverSignal: AbortSignal | undefined;
    let entered!: () => void;
    const waiting = new Promise<void>((resolve) => (entered = resolve));
    const askLog = join(mkdtempSync(join(tmpdir(), 'studio-ask-')), 'counting.log');
    const asking = mcpStudio({
      servers: {
        counting: stdioConfig('counting-server.mjs', [`--log=${askLog}`, '--log-requests']),
      },
      policy: {
        default: 'ask',
        approve: (request, signal) => {
          asked.push(request);
          if (request.arguments?.['text'] === 'yes') return true;
          approverSignal = signal;
          entered();
          return new Promise<boolean>((resolve) =>
            signal.addEventListener('abort', () => resolve(false), { once: true }),
          );
        },
      },
    });
    const calls = () =>
      readFileSync(askLog, 'utf8')
        .split('\n')
        .filter((l) => l.endsWith(' tools/call')).length;
    try {
      const allowed = await json<CallToolResponse>(
        asking.call('POST', '/api/servers/counting/tools/echo/call', {
          arguments: { text: 'yes' },
        }),
      );
      expect(allowed.decision).toMatchObject({ decision: 'allow', stage: 'approval' });
      expect(asked[0]).toMatchObject({
        kind: 'tool',
        toolName: 'mcp__counting__echo',
        server: 'counting',
        originalName: 'echo',
        arguments: { text: 'yes' },
      });
      expect(calls()).toBe(1);

      const page = new AbortController();
      const pending = asking.app.request(
        new Request('http://127.0.0.1:4321/api/servers/counting/tools/echo/call', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ arguments: { text: 'wait' } }),
          signal: page.signal,
        }),
      );
      await waiting;
      expect(approverSignal?.aborted).toBe(false);
      page.abort();
      const answered = await Promise.resolve(pending);
      expect(approverSignal?.aborted).toBe(true);
      expect(answered.status).toBeGreaterThanOrEqual(400);
      expect(calls()).toBe(1);
    } finally {
      await asking.close();
    }
  }, 30_000);
});

describe('item-03: a stdio server that crashes at start', () => {
  const canary = 'studio-stderr-canary-90d2f1';
  it('shows its redacted stderr tail through GET /api/servers/:name/diagnostics', async () => {
    const crashing = mcpStudio({
      servers: {
        dies: {
          ...stdioConfig('scripted-stdio-server.mjs', [
            '--stderr-env=UPSTREAM_TOKEN',
            '--exit-at-start=1',
          ]),
          env: { UPSTREAM_TOKEN: canary },
        },
        everything: everythingStdioConfig(),
      },
    });
    try {
      // the page's Reconnect: the connect fails, the status says so
      const failed = await crashing.call('POST', '/api/servers/dies/reconnect');
      expect(failed.status).toBeGreaterThanOrEqual(400);
      const [dies] = await json<ServersResponse>(crashing.call('GET', '/api/servers'));
      expect(dies).toMatchObject({ name: 'dies', status: 'failed' });

      const diagnostics = await json<ServerDiagnosticsResponse>(
        crashing.call('GET', '/api/servers/dies/diagnostics'),
      );
      expect(diagnostics).toMatchObject({ name: 'dies', exit: { code: 1, signal: null } });
      expect(diagnostics.stderrTail).toContain('scripted: fatal at start');
      expect(diagnostics.stderrTail).toContain('env UPSTREAM_TOKEN=[redacted]');
      expect(crashing.bodies.join('\n')).not.toContain(canary);

      // a server that did not crash has nothing to show; an unknown one is a 404
      const everything = await json<ServerDiagnosticsResponse>(
        crashing.call('GET', '/api/servers/everything/diagnostics'),
      );
      expect(everything.exit).toBeUndefined();
      const unknown = await json<StudioErrorBody>(
        crashing.call('GET', '/api/servers/nope/diagnostics'),
        404,
      );
      expect(unknown.error.code).toBe('INVALID_CONFIGURATION');
    } finally {
      await crashing.close();
    }
  }, 30_000);
});
