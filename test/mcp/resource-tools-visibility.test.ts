import { describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import { everythingStdioConfig } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';

describe('exposed resource tools and visibility', () => {
  it('cannot reach a server whose tools visibleTools hides', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          {
            name: 'mcp_resources_read',
            arguments: {
              server: 'everything',
              uri: 'demo://resource/static/document/architecture.md',
            },
          },
          { id: 'list', name: 'mcp_resources_list', arguments: {} },
        ],
      },
      { text: 'end' },
    ]);
    const agent = createAgent({
      model,
      modelName: 'scripted',
      mcp: { strictConfig: true, exposeResources: true },
      mcpServers: { everything: everythingStdioConfig() },
      policy: {
        // the model sees only the resource tools; the server itself is hidden from it
        visibleTools: ['mcp_resources_read', 'mcp_resources_list'],
        allow: ['mcp_connect:everything', 'mcp_resources_read', 'mcp_resources_list'],
      },
    });
    try {
      const { events, error } = await collect(agent.run({ input: 'read' }));
      expect(error).toBeUndefined();
      const offered = model.requests[0]!.tools.map((t) => t.name);
      expect(offered).toContain('mcp_resources_read');
      expect(offered.filter((n) => n.startsWith('mcp__everything__'))).toEqual([]);
      const [read, list] = ofType(events, 'tool.completed');
      expect(read).toMatchObject({ isError: true });
      expect(read!.content).not.toContain('architecture');
      expect(list).toMatchObject({ isError: false, content: '[]' });
    } finally {
      await agent.close();
    }
  }, 30_000);
});
