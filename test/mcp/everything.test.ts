import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { McpServerConfig, ModelRequest, ToolResultMessage } from '../../src/index.js';
import { everythingStdioConfig, startEverythingHttp } from '../support/mcp-fixtures.js';
import type { EverythingHttp } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';

// One agent run against the reference server-everything, over a real stdio pipe and over
// real loopback Streamable HTTP, through the official client.

let http: EverythingHttp;
beforeAll(async () => {
  http = await startEverythingHttp();
});
afterAll(() => http?.close());

const tool = (name: string) => `mcp__everything__${name}`;
const lastTool = (req: ModelRequest) =>
  [...req.messages].reverse().find((m) => m.role === 'tool') as ToolResultMessage;

const transports: [string, () => McpServerConfig][] = [
  ['stdio', () => everythingStdioConfig()],
  ['streamable http', () => ({ type: 'http', url: http.url })],
];

describe.each(transports)('server-everything over %s', (_label, config) => {
  it('runs echo, get-sum, structured content, progress, an image and resource links in one run', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { name: tool('echo'), arguments: { message: 'hello muster' } },
          { name: tool('get-sum'), arguments: { a: 2, b: 40 } },
          { name: tool('get-structured-content'), arguments: { location: 'Chicago' } },
        ],
      },
      {
        toolCalls: [
          { name: tool('trigger-long-running-operation'), arguments: { duration: 0.4, steps: 4 } },
        ],
      },
      { toolCalls: [{ name: tool('get-tiny-image'), arguments: {} }] },
      { toolCalls: [{ name: tool('get-resource-links'), arguments: { count: 2 } }] },
      (req) => ({ text: `last: ${lastTool(req).content.length} chars` }),
    ]);
    const agent = createAgent({
      model,
      mcp: { strictConfig: true },
      mcpServers: { everything: config() },
      policy: { allow: ['mcp_connect:everything', 'mcp__everything'] },
      limits: { maxIterations: 6 },
    });
    try {
      const { events, error } = await collect(agent.run({ input: 'exercise everything' }));
      expect(error).toBeUndefined();
      const done = new Map(ofType(events, 'tool.completed').map((c) => [c.toolName, c]));
      for (const c of done.values())
        expect(c, c.toolName).toMatchObject({ isError: false, executed: true });

      expect(done.get(tool('echo'))?.content).toBe('Echo: hello muster');
      expect(done.get(tool('get-sum'))?.content).toContain('42');
      // the server's text is the JSON of its structuredContent: the model reads it once
      expect(JSON.parse(done.get(tool('get-structured-content'))!.content)).toEqual({
        temperature: 36,
        conditions: 'Light rain / drizzle',
        humidity: 82,
      });

      const progress = ofType(events, 'tool.progress').filter(
        (p) => p.toolName === tool('trigger-long-running-operation'),
      );
      // Every notification arrives, in order, before the result (the official client alone
      // drops the last one over stdio when it arrives together with the result).
      expect(progress.map((p) => p.progress)).toEqual([1, 2, 3, 4]);
      expect(progress.every((p) => p.total === 4)).toBe(true);
      const types = events.map((e) => `${e.type}:${'toolName' in e ? e.toolName : ''}`);
      expect(
        types.lastIndexOf(`tool.progress:${tool('trigger-long-running-operation')}`),
      ).toBeLessThan(types.indexOf(`tool.completed:${tool('trigger-long-running-operation')}`));

      const image = done.get(tool('get-tiny-image'))!.content;
      expect(image).toMatch(/\[archived image\/png, \d+ bytes: ref=ref_[a-z0-9]+\]/);
      expect(image).not.toMatch(/iVBOR/);
      const imageTurn = model.requests[3]!.messages.find(
        (m) => m.role === 'tool' && m.toolName === tool('get-tiny-image'),
      ) as ToolResultMessage;
      expect(imageTurn.media?.[0]?.mimeType).toBe('image/png');

      const links = JSON.parse(done.get(tool('get-resource-links'))!.content) as {
        content: { type: string; uri?: string }[];
      };
      const uris = links.content.filter((c) => c.type === 'resource_link').map((c) => c.uri);
      expect(uris).toEqual(['demo://resource/dynamic/blob/1', 'demo://resource/dynamic/text/2']);

      const status = agent.mcp.list()[0]!;
      expect(status.status).toBe('connected');
      expect(status.tools.map((t) => t.originalName)).toEqual(
        expect.arrayContaining(['echo', 'get-sum', 'get-tiny-image']),
      );
      expect(ofType(events, 'session.completed')).toHaveLength(1);
    } finally {
      await agent.close();
    }
  });
});
