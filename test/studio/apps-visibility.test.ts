/**
 * MCP Apps visibility (SEP-1865) against a real stdio server: a tool its server shows to its
 * view only (`_meta.ui.visibility: ["app"]`) never reaches a run's model (not listed, not
 * callable: TOOL_NOT_FOUND), while the studio's Tools page still lists it and its view can
 * still call it (fromApp).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { ModelRequest } from '../../src/index.js';
import type { CallToolResponse, ToolView } from '../../src/studio/api-types.js';
import { collect, ofType } from '../support/run-helpers.js';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { mcpStudio } from './mcp-studio-support.js';
import type { McpStudio } from './mcp-studio-support.js';

let studio: McpStudio;
beforeAll(() => {
  studio = mcpStudio({ servers: { apps: stdioConfig('apps-tools-server.mjs') } });
});
afterAll(() => studio?.close());

describe('an app-only tool', () => {
  it('is neither listed to the model nor callable by it in a run', async () => {
    const requests: ModelRequest[] = [];
    const agent = createAgent({
      model: scriptedModel([
        (req) => {
          requests.push(req);
          return { toolCalls: [{ name: 'mcp__apps__app-only', arguments: {} }] };
        },
        (req) => {
          requests.push(req);
          return { text: 'Done.' };
        },
      ]),
      mcpServers: { apps: stdioConfig('apps-tools-server.mjs') },
      mcp: { strictConfig: true },
      policy: { allow: ['mcp_connect:*'], default: 'allow' },
    });
    try {
      const { events, error } = await collect(agent.run({ input: 'call the app-only tool' }));
      expect(error).toBeUndefined();
      const listed = requests.map((r) => r.tools.map((t) => t.name));
      expect(listed).toHaveLength(2);
      for (const names of listed) {
        expect(names).toContain('mcp__apps__view');
        expect(names).toContain('mcp__apps__model-only');
        expect(names).not.toContain('mcp__apps__app-only');
      }
      const [completed] = ofType(events, 'tool.completed');
      expect(completed).toMatchObject({
        toolName: 'mcp__apps__app-only',
        isError: true,
        errorCode: 'TOOL_NOT_FOUND',
        executed: false,
      });
      expect(ofType(events, 'tool.called')).toHaveLength(0);
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('is still listed on the Tools page, with its visibility, and callable from its view', async () => {
    const list = await studio.call('GET', '/api/servers/apps/tools');
    expect(list.status).toBe(200);
    const tools = (await list.json()) as ToolView[];
    expect(tools.find((t) => t.name === 'app-only')).toMatchObject({
      modelName: 'mcp__apps__app-only',
      visibility: ['app'],
    });
    const call = await studio.call('POST', '/api/servers/apps/tools/app-only/call', {
      arguments: {},
      fromApp: true,
    });
    const body = (await call.json()) as CallToolResponse;
    expect(call.status, JSON.stringify(body)).toBe(200);
    expect(body.result?.content).toEqual([{ type: 'text', text: 'app-only ran' }]);
    // the page itself (not the view) is refused, as before
    const direct = await studio.call('POST', '/api/servers/apps/tools/app-only/call', {
      arguments: {},
    });
    expect(direct.status).toBe(403);
  }, 30_000);
});
