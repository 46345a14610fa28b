/**
 * The studio's resource, prompt, completion and registry routes on a bare Hono app, against
 * server-everything and fixtures over stdio.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CompleteResponse,
  ReadResourceResponse,
  ResourcesResponse,
  ServersResponse,
  StudioErrorBody,
  SubscriptionsResponse,
  ToolView,
} from '../../src/studio/api-types.js';
import { everythingStdioConfig, fixturePath, stdioConfig } from '../support/mcp-fixtures.js';
import { json, mcpStudio } from './mcp-studio-support.js';
import type { McpStudio } from './mcp-studio-support.js';

let studio: McpStudio;

beforeAll(() => {
  studio = mcpStudio({
    servers: {
      everything: everythingStdioConfig(),
      apps: stdioConfig('apps-tools-server.mjs'),
    },
  });
});
afterAll(() => studio?.close());

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
    expect(await json<SubscriptionsResponse>(studio.call('GET', '/api/subscriptions'))).toEqual({
      subscriptions: [{ server: 'everything', uri }],
    });
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
    expect(await json<SubscriptionsResponse>(studio.call('GET', '/api/subscriptions'))).toEqual({
      subscriptions: [],
    });
    expect(studio.events.events.some((e) => e.kind === 'resource.subscription.ended')).toBe(false);
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

describe('subscriptions on the server', () => {
  it('DELETE and the studio shutting down both unsubscribe at the server', async () => {
    const features = mcpStudio({
      servers: { features: stdioConfig('features-server.mjs') },
      mcp: { protocol: { mode: 'legacy' } },
    });
    // asked of the agent directly: after stop() the routes abort what they start
    const subscribed = async () => {
      const r = await features.ctx.agent.mcp.callTool('features', 'get-counts', {});
      const text = (r.content[0] as { text: string }).text;
      return (JSON.parse(text) as { subscribed: string[] }).subscribed;
    };
    try {
      const uri = 'flaky://doc';
      await json(features.call('POST', '/api/servers/features/subscriptions', { uri }));
      expect(await subscribed()).toEqual([uri]);
      await json(
        features.call(
          'DELETE',
          `/api/servers/features/subscriptions?uri=${encodeURIComponent(uri)}`,
        ),
      );
      expect(await subscribed()).toEqual([]);
      await json(features.call('POST', '/api/servers/features/subscriptions', { uri }));
      expect(await subscribed()).toEqual([uri]);
      features.stop();
      const deadline = Date.now() + 10_000;
      let left = await subscribed();
      while (left.length > 0 && Date.now() < deadline) left = await subscribed();
      expect(left).toEqual([]);
    } finally {
      await features.close();
    }
  }, 30_000);
});

describe('a subscription the server side ends', () => {
  for (const mode of ['legacy', 'auto'] as const) {
    it(`is dropped from the list and announced when the server exits (${mode})`, async () => {
      const live = mcpStudio({
        servers: {
          live: { command: process.execPath, args: [fixturePath('live-resource-server.mjs')] },
        },
        mcp: { protocol: { mode } },
      });
      const uri = 'live://revision';
      const read = async () => {
        const path = `/api/servers/live/resource?uri=${encodeURIComponent(uri)}`;
        const body = await json<ReadResourceResponse>(live.call('GET', path));
        return body.contents[0]?.['text'];
      };
      const callTool = (tool: string) =>
        live.call('POST', `/api/servers/live/tools/${tool}/call`, { arguments: {} });
      try {
        expect(await read()).toBe('revision 1');
        await json(live.call('POST', '/api/servers/live/subscriptions', { uri }));
        expect(await json<SubscriptionsResponse>(live.call('GET', '/api/subscriptions'))).toEqual({
          subscriptions: [{ server: 'live', uri }],
        });
        await json(callTool('bump'));
        expect(await live.events.next((e) => e.kind === 'resource.updated')).toEqual({
          kind: 'resource.updated',
          server: 'live',
          uri,
        });
        expect(await read()).toBe('revision 2');

        // the server process exits: its stream ends, and nobody here ended it
        void callTool('crash').catch(() => undefined);
        const ended = await live.events.next((e) => e.kind === 'resource.subscription.ended');
        expect(ended).toMatchObject({ kind: 'resource.subscription.ended', server: 'live', uri });
        if (ended.kind === 'resource.subscription.ended') expect(ended.reason).toMatch(/^MCP_/);
        expect(await json<SubscriptionsResponse>(live.call('GET', '/api/subscriptions'))).toEqual({
          subscriptions: [],
        });
      } finally {
        await live.close();
      }
    }, 30_000);
  }
});
