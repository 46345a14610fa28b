import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import type {
  McpElicitationRequest,
  McpEvent,
  McpHandlers,
  McpServerConfig,
} from '../../src/mcp/mcp-entry.js';
import { everythingStdioConfig, startEverythingHttp } from '../support/mcp-fixtures.js';
import type { EverythingHttp } from '../support/mcp-fixtures.js';

// The standalone McpClientManager (muster-agent/mcp) against the reference server-everything,
// over a real stdio pipe and real loopback Streamable HTTP: every operation, and the handlers.

let http: EverythingHttp;
beforeAll(async () => {
  http = await startEverythingHttp();
});
afterAll(() => http?.close());

const transports: [string, () => McpServerConfig][] = [
  ['stdio', () => everythingStdioConfig()],
  ['streamable http', () => ({ type: 'http', url: http.url })],
];

const textOf = (r: { content: readonly { type: string; text?: string }[] }) =>
  r.content.map((c) => c.text ?? '').join('\n');

describe.each(transports)('McpClientManager with server-everything over %s', (_label, config) => {
  it('connects, reports the connection and runs every read operation', async () => {
    const manager = new McpClientManager({ everything: config() }, { strictConfig: true });
    try {
      const summary = await manager.connectAll();
      expect(summary).toEqual([{ name: 'everything', status: 'connected' }]);
      const info = manager.getConnection('everything');
      expect(info.status).toBe('connected');
      expect(info.era).toBe('legacy');
      expect(info.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(info.serverInfo?.name).toBeTruthy();
      expect(info.capabilities).toHaveProperty('resources');
      expect(typeof info.instructions).toBe('string');

      await manager.ping('everything');

      const { resources } = await manager.listResources('everything');
      expect(resources.length).toBeGreaterThan(0);
      for (const r of resources) {
        const read = await manager.readResource('everything', r.uri);
        expect(read.contents[0]?.uri, r.uri).toBe(r.uri);
      }
      const { resourceTemplates } = await manager.listResourceTemplates('everything');
      expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
        'demo://resource/dynamic/blob/{resourceId}',
        'demo://resource/dynamic/text/{resourceId}',
      ]);
      for (const t of resourceTemplates) {
        const uri = t.uriTemplate.replace('{resourceId}', '7');
        const read = await manager.readResource('everything', uri);
        const first = read.contents[0] as { uri: string; text?: string; blob?: string };
        expect(first.uri).toBe(uri);
        expect(first.text ?? first.blob).toBeTruthy();
      }

      const { prompts } = await manager.listPrompts('everything');
      const args: Record<string, Record<string, string>> = {
        'args-prompt': { city: 'Lisbon' },
        'completable-prompt': { department: 'Engineering', name: 'Alice' },
        'resource-prompt': { resourceType: 'Text', resourceId: '3' },
      };
      expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(Object.keys(args)));
      for (const p of prompts) {
        const got = await manager.getPrompt('everything', p.name, args[p.name]);
        expect(got.messages.length, p.name).toBeGreaterThan(0);
      }
      const argsPrompt = await manager.getPrompt('everything', 'args-prompt', { city: 'Lisbon' });
      expect(JSON.stringify(argsPrompt.messages)).toContain('Lisbon');

      const departments = await manager.complete('everything', {
        ref: { type: 'ref/prompt', name: 'completable-prompt' },
        argument: { name: 'department', value: 'S' },
      });
      expect(departments.completion.values.sort()).toEqual(['Sales', 'Support']);
      const names = await manager.complete('everything', {
        ref: { type: 'ref/prompt', name: 'completable-prompt' },
        argument: { name: 'name', value: '' },
        context: { arguments: { department: 'Engineering' } },
      });
      expect(names.completion.values).toEqual(['Alice', 'Bob', 'Charlie']);

      const tools = await manager.listTools('everything');
      expect(tools.map((t) => t.name)).toContain('echo');
      const echoed = await manager.callTool('everything', 'echo', { message: 'hi' });
      expect(textOf(echoed as never)).toBe('Echo: hi');
    } finally {
      await manager.close();
    }
  }, 30_000);

  it('subscribes to a resource, receives notifications/resources/updated, then unsubscribes', async () => {
    const manager = new McpClientManager({ everything: config() }, { strictConfig: true });
    const uri = 'demo://resource/dynamic/text/1';
    try {
      await manager.subscribeResource('everything', uri);
      const sub = await manager.listen('everything', { resourceSubscriptions: [uri] });
      await manager.callTool('everything', 'toggle-subscriber-updates', {});
      const iterator = sub.events[Symbol.asyncIterator]();
      const first = await iterator.next();
      expect(first.value).toMatchObject({
        server: 'everything',
        method: 'notifications/resources/updated',
        params: { uri },
      });
      await sub.close();
      await manager.unsubscribeResource('everything', uri);
      expect((await iterator.next()).done).toBe(true);
      await manager.callTool('everything', 'toggle-subscriber-updates', {});
    } finally {
      await manager.close();
    }
  }, 30_000);

  it('hands notifications/message to the logging handler, after setLoggingLevel', async () => {
    const logs: { server: string; level: string; data: unknown }[] = [];
    let arrived!: () => void;
    const first = new Promise<void>((r) => (arrived = r));
    const manager = new McpClientManager(
      { everything: config() },
      {
        strictConfig: true,
        handlers: {
          logging: (m) => {
            logs.push(m);
            arrived();
          },
        },
      },
    );
    try {
      await manager.setLoggingLevel('everything', 'debug');
      await manager.callTool('everything', 'toggle-simulated-logging', {});
      await first;
      expect(logs[0]).toMatchObject({ server: 'everything' });
      expect(typeof logs[0]!.level).toBe('string');
      await manager.callTool('everything', 'toggle-simulated-logging', {});
    } finally {
      await manager.close();
    }
  }, 30_000);

  it('hides the conditional tools when no handler is given (no capability declared)', async () => {
    const manager = new McpClientManager({ everything: config() }, { strictConfig: true });
    try {
      const names = (await manager.listTools('everything')).map((t) => t.name);
      expect(names).toContain('echo');
      for (const hidden of [
        'get-roots-list',
        'trigger-elicitation-request',
        'trigger-sampling-request',
      ])
        expect(names).not.toContain(hidden);
    } finally {
      await manager.close();
    }
  }, 30_000);

  it('answers elicitation, sampling and roots through the handlers, and refuses an invalid form answer', async () => {
    const seen: McpElicitationRequest[] = [];
    let answer: Record<string, unknown> = { name: 'Ada Lovelace', integer: 7 };
    const events: McpEvent[] = [];
    let roots = [{ uri: 'file:///work/project', name: 'project' }];
    const handlers: McpHandlers = {
      roots: () => roots,
      elicitation: async (request) => {
        seen.push(request);
        return { action: 'accept', content: answer };
      },
      sampling: async (request) => ({
        model: 'host-model',
        role: 'assistant',
        content: { type: 'text', text: `host says: ${request.messages.length} message(s)` },
      }),
    };
    const manager = new McpClientManager(
      { everything: config() },
      { strictConfig: true, handlers, onEvent: (e) => events.push(e) },
    );
    try {
      const names = (await manager.listTools('everything')).map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'get-roots-list',
          'trigger-elicitation-request',
          'trigger-sampling-request',
        ]),
      );

      const ok = await manager.callTool('everything', 'trigger-elicitation-request', {});
      expect(textOf(ok as never)).toContain('Ada Lovelace');
      expect(seen[0]).toMatchObject({ server: 'everything', mode: 'form' });
      expect(seen[0]!.requestedSchema).toHaveProperty('properties.name');

      answer = { name: 42 };
      const refused = await manager
        .callTool('everything', 'trigger-elicitation-request', {})
        .then(textOf as never, (e: Error) => e.message);
      expect(String(refused)).not.toContain('42');
      expect(String(refused)).toMatch(/refused|error/i);

      const sampled = await manager.callTool('everything', 'trigger-sampling-request', {
        prompt: 'hello',
        maxTokens: 50,
      });
      expect(textOf(sampled as never)).toContain('host says: 1 message(s)');

      const listed = await manager.callTool('everything', 'get-roots-list', {});
      expect(textOf(listed as never)).toContain('file:///work/project');
      roots = [{ uri: 'file:///work/other', name: 'other' }];
      await manager.notifyRootsChanged();
      let after = '';
      for (let i = 0; i < 50 && !after.includes('file:///work/other'); i++) {
        await new Promise((r) => setTimeout(r, 50));
        after = textOf((await manager.callTool('everything', 'get-roots-list', {})) as never);
      }
      expect(after).toContain('file:///work/other');

      const types = events.map((e) => e.type);
      expect(types).toContain('elicitation.requested');
      expect(types).toContain('elicitation.completed');
      expect(types).toContain('sampling.requested');
      const text = JSON.stringify(events);
      expect(text).not.toContain('Ada Lovelace');
      expect(text).not.toContain('host says');
      expect(text).not.toContain('file:///work');
      expect(JSON.stringify(manager.list())).not.toContain('file:///work');
    } finally {
      await manager.close();
    }
  }, 30_000);
});
