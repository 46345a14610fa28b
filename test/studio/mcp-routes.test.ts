/**
 * The studio's MCP routes on a bare Hono app, against real servers over stdio:
 * server-everything, the counting fixture (to prove a denied call never reaches the server)
 * and a fixture whose tools carry MCP Apps metadata.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CallToolResponse,
  CompleteResponse,
  ReadResourceResponse,
  ResourcesResponse,
  ServersResponse,
  StudioErrorBody,
  ToolView,
} from '../../src/studio/api-types.js';
import { everythingStdioConfig, stdioConfig } from '../support/mcp-fixtures.js';
import { mcpStudio } from './mcp-studio-support.js';
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

async function json<T>(response: Response | Promise<Response>, status = 200): Promise<T> {
  const r = await response;
  const body = (await r.json()) as T;
  expect(r.status, JSON.stringify(body)).toBe(status);
  return body;
}

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

describe('resources, prompts and completion', () => {
  it('lists resources and templates, and reads one', async () => {
    const listed = await json<ResourcesResponse>(
      studio.call('GET', '/api/servers/everything/resources'),
    );
    expect(listed.resources.map((r) => r['uri'])).toContain(
      'demo://resource/static/document/features.md',
    );
    expect(listed.templates.map((t) => t['uriTemplate'])).toContain(
      'demo://resource/dynamic/text/{resourceId}',
    );
    const read = await json<ReadResourceResponse>(
      studio.call(
        'GET',
        `/api/servers/everything/resource?uri=${encodeURIComponent('demo://resource/dynamic/text/7')}`,
      ),
    );
    expect(read.contents[0]).toMatchObject({ uri: 'demo://resource/dynamic/text/7' });
    expect(String(read.contents[0]?.['text'])).not.toBe('');
  }, 30_000);

  it('a server without resources or prompts lists none', async () => {
    expect(await json(studio.call('GET', '/api/servers/apps/resources'))).toEqual({
      resources: [],
      templates: [],
    });
    expect(await json(studio.call('GET', '/api/servers/apps/prompts'))).toEqual({ prompts: [] });
  }, 30_000);

  it('a subscription publishes resource.updated events until it is deleted', async () => {
    const uri = 'demo://resource/dynamic/text/1';
    expect(
      await json(studio.call('POST', '/api/servers/everything/subscriptions', { uri })),
    ).toEqual({ uri, subscribed: true });
    const toggle = () =>
      json(
        studio.call('POST', '/api/servers/everything/tools/toggle-subscriber-updates/call', {
          arguments: {},
        }),
      );
    await toggle();
    try {
      const event = await studio.events.next((e) => e.kind === 'resource.updated');
      expect(event).toEqual({ kind: 'resource.updated', server: 'everything', uri });
    } finally {
      await toggle();
    }
    expect(
      await json(
        studio.call(
          'DELETE',
          `/api/servers/everything/subscriptions?uri=${encodeURIComponent(uri)}`,
        ),
      ),
    ).toEqual({ uri, subscribed: false });
  }, 30_000);

  it('gets a prompt with its arguments', async () => {
    const prompts = await json<{ prompts: { name: string }[] }>(
      studio.call('GET', '/api/servers/everything/prompts'),
    );
    expect(prompts.prompts.map((p) => p.name)).toContain('args-prompt');
    const got = await json<{ messages: { content: { text?: string } }[] }>(
      studio.call('POST', '/api/servers/everything/prompts/args-prompt', {
        arguments: { city: 'Lisbon' },
      }),
    );
    expect(JSON.stringify(got.messages)).toContain('Lisbon');
  }, 30_000);

  it('completes a prompt argument', async () => {
    const body = await json<CompleteResponse>(
      studio.call('POST', '/api/servers/everything/complete', {
        ref: { type: 'ref/prompt', name: 'completable-prompt' },
        argument: { name: 'department', value: 'E' },
      }),
    );
    expect(body.values.length).toBeGreaterThan(0);
    for (const v of body.values) expect(v.toLowerCase().startsWith('e')).toBe(true);
  }, 30_000);

  it('a malformed completion request is a 400', async () => {
    const body = await json<StudioErrorBody>(
      studio.call('POST', '/api/servers/everything/complete', { ref: { type: 'ref/x' } }),
      400,
    );
    expect(body.error.code).toBe('INVALID_CONFIGURATION');
  });
});

describe('register, unregister, reconnect', () => {
  it('refuses a bad declaration with 400 INVALID_CONFIGURATION, registers a good one', async () => {
    const bad = await json<StudioErrorBody>(
      studio.call('POST', '/api/servers', {
        name: 'extra',
        config: { command: process.execPath, bogus: true },
      }),
      400,
    );
    expect(bad.error.code).toBe('INVALID_CONFIGURATION');
    const badName = await json<StudioErrorBody>(
      studio.call('POST', '/api/servers', {
        name: 'a__b',
        config: stdioConfig('basic-server.mjs'),
      }),
      400,
    );
    expect(badName.error.code).toBe('INVALID_CONFIGURATION');
    const added = await json<{ name: string; status: string }>(
      studio.call('POST', '/api/servers', {
        name: 'extra',
        config: stdioConfig('basic-server.mjs'),
      }),
      201,
    );
    expect(added).toMatchObject({ name: 'extra', status: 'connected' });
    expect(
      studio.events.events.some(
        (e) => e.kind === 'servers' && e.servers.some((s) => s.name === 'extra'),
      ),
    ).toBe(true);
    const tools = await json<ToolView[]>(studio.call('GET', '/api/servers/extra/tools'));
    expect(tools.map((t) => t.name).sort()).toEqual(['add', 'echo']);
    const after = await json<ServersResponse>(studio.call('DELETE', '/api/servers/extra'));
    expect(after.map((s) => s.name)).not.toContain('extra');
  }, 30_000);

  it('reconnect tries a failed server again: 502 while it fails, connected once it works', async () => {
    const gate = join(mkdtempSync(join(tmpdir(), 'studio-gate-')), 'open');
    const gated = mcpStudio({
      servers: { gated: stdioConfig('gated-server.mjs', [`--gate=${gate}`]) },
    });
    try {
      const failed = await json<StudioErrorBody>(
        gated.call('GET', '/api/servers/gated/tools'),
        502,
      );
      expect(failed.error.code).toMatch(/^MCP_/);
      expect((await json<ServersResponse>(gated.call('GET', '/api/servers')))[0]?.status).toBe(
        'failed',
      );
      const again = await json<StudioErrorBody>(
        gated.call('POST', '/api/servers/gated/reconnect'),
        502,
      );
      expect(again.error.code).toMatch(/^MCP_/);
      writeFileSync(gate, '');
      const ok = await json<{ name: string; status: string }>(
        gated.call('POST', '/api/servers/gated/reconnect'),
      );
      expect(ok).toMatchObject({ name: 'gated', status: 'connected' });
      expect(gated.events.events.at(-1)).toMatchObject({ kind: 'servers' });
    } finally {
      await gated.close();
    }
  }, 30_000);
});
