import { describe, expect, it } from 'vitest';
import { createAgent, createSdkMcpServer, scriptedModel, sdkTool, tool } from '../../src/index.js';
import type {
  ArchiveItemInput,
  ArchivedItem,
  ArchiveStore,
  ToolResultMessage,
} from '../../src/index.js';
import { MemoryArchiveStore } from '../../src/index.js';
import { z } from 'zod';
import { collect, ofType } from '../support/run-helpers.js';

/** A real in-memory archive that records what the agent put into it. */
class RecordingArchive extends MemoryArchiveStore implements ArchiveStore {
  readonly puts: ArchiveItemInput[] = [];
  override async put(item: ArchiveItemInput): Promise<ArchivedItem> {
    this.puts.push(item);
    return super.put(item);
  }
}

const big = (n: number) => 'x'.repeat(n);

function bigServer() {
  return createSdkMcpServer({
    name: 'docs',
    tools: [
      sdkTool(
        'dump',
        'Returns a lot of text.',
        { size: z.number() },
        async ({ size }: { size: number }) => ({
          content: [{ type: 'text', text: big(size) }],
        }),
      ),
    ],
  });
}

const lastTool = (messages: readonly unknown[]) =>
  [...messages]
    .reverse()
    .find((m) => (m as ToolResultMessage).role === 'tool') as ToolResultMessage;

describe('the archive', () => {
  it('is injectable: context.archiveStore receives the large results of the run', async () => {
    const archive = new RecordingArchive();
    const agent = createAgent({
      model: scriptedModel([
        { toolCalls: [{ name: 'mcp__docs__dump', arguments: { size: 40_000 } }] },
        { text: 'done' },
      ]),
      modelName: 'm',
      mcpServers: { docs: { type: 'sdk', server: bigServer() } },
      mcp: { strictConfig: true },
      policy: { allow: ['mcp_connect:*', 'mcp__docs__*'] },
      context: { archiveStore: archive },
    });
    const { error, events } = await collect(agent.run({ input: 'dump' }));
    expect(error).toBeUndefined();
    expect(archive.puts).toHaveLength(1);
    const ref = /ref=(ref_[a-z0-9]+)/.exec(ofType(events, 'tool.completed')[0]!.content)![1]!;
    const sessionId = ofType(events, 'session.started')[0]!.sessionId;
    expect((await archive.get(sessionId, ref))?.bytes).toBeGreaterThanOrEqual(40_000);
    expect((await agent.sessions.get(sessionId))?.archiveRefs).toEqual([ref]);
    await agent.close();
  });

  it('is bounded per session: an evicted ref is reported as dropped to the model', async () => {
    let firstRef = '';
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp__docs__dump', arguments: { size: 30_000 } }] },
      (req) => {
        firstRef = /ref=(ref_[a-z0-9]+)/.exec(lastTool(req.messages).content)![1]!;
        return { toolCalls: [{ name: 'mcp__docs__dump', arguments: { size: 30_000 } }] };
      },
      { toolCalls: [{ name: 'context', arguments: { ref: '$first' } }] },
      { text: 'done' },
    ]);
    // the scripted turn above cannot know the ref in advance: patch it in when it is read
    const agent = createAgent({
      model,
      modelName: 'm',
      mcpServers: { docs: { type: 'sdk', server: bigServer() } },
      mcp: { strictConfig: true },
      policy: {
        allow: ['mcp_connect:*', 'mcp__docs__*', 'context'],
      },
      hooks: {
        beforeTool: (ctx) =>
          ctx.toolName === 'context' ? { arguments: { ref: firstRef } } : undefined,
      },
      context: { maxArchiveBytesPerSession: 50_000 },
    });
    const { error, events } = await collect(agent.run({ input: 'dump twice, read the first' }));
    expect(error).toBeUndefined();
    const read = ofType(events, 'tool.completed').find((e) => e.toolName === 'context')!;
    expect(read.isError).toBe(true);
    expect(read.content).toMatch(/was dropped: this session's archive reached its size bound/);
    await agent.close();
  });

  it('is used only when the catalog has MCP tools: host tools alone get no context tool', async () => {
    const echo = tool({
      name: 'echo',
      description: 'Echoes.',
      input: z.object({ text: z.string() }),
      execute: ({ text }) => text,
    });
    const model = scriptedModel([{ text: 'hi' }]);
    const agent = createAgent({ model, modelName: 'm', tools: [echo] });
    await agent.send('hello');
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(['echo']);
  });
});
