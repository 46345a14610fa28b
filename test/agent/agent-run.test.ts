import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, MemorySessionStore, scriptedModel, tool } from '../../src/index.js';
import type { ToolResultMessage } from '../../src/index.js';
import { collect, ofType } from '../support/run-helpers.js';

const add = tool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

describe('agent run', () => {
  it('runs model -> tool -> model and yields the events in order', async () => {
    const model = scriptedModel([
      { text: 'Adding.', toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] },
      (req) => ({ text: `It is ${(req.messages.at(-1) as ToolResultMessage).content}.` }),
    ]);
    const agent = createAgent({
      model,
      tools: [add],
      policy: { allow: ['add'] },
      system: 'Be brief.',
    });
    const { events, error } = await collect(agent.run({ input: 'What is 2 + 3?' }));
    expect(error).toBeUndefined();
    const types = events.map((e) => e.type).filter((t) => t !== 'model.delta');
    expect(types).toEqual([
      'session.started',
      'model.completed',
      'tool.decision',
      'tool.called',
      'tool.completed',
      'model.completed',
      'session.completed',
    ]);
    expect(ofType(events, 'session.completed')[0]).toMatchObject({
      content: 'It is 5.',
      iterations: 2,
    });
    expect(
      ofType(events, 'model.delta')
        .map((d) => d.content)
        .join(''),
    ).toBe('Adding.It is 5.');
    for (const ev of events) {
      expect(ev.sessionId).toBe(events[0]!.sessionId);
      expect(ev.runId).toMatch(/^run_/);
      expect(Number.isNaN(Date.parse(ev.timestamp))).toBe(false);
    }
    expect(model.requests[0]).toMatchObject({
      system: 'Be brief.',
      modelName: 'scripted',
      stream: true,
    });
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(['add']);
    await agent.close();
  });

  it('send() returns the final text, session id, usage and events', async () => {
    const agent = createAgent({
      model: scriptedModel([
        { text: 'Hello there', usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } },
      ]),
    });
    const reply = await agent.send('hi');
    expect(reply.text).toBe('Hello there');
    expect(reply.sessionId).toMatch(/^session_/);
    expect(reply.usage).toEqual({ inputTokens: 3, outputTokens: 2, totalTokens: 5 });
    expect(reply.events.at(-1)?.type).toBe('session.completed');
  });

  it('stream: false emits no model.delta events', async () => {
    const agent = createAgent({ model: scriptedModel([{ text: 'quiet answer' }]) });
    const { events } = await collect(agent.run({ input: 'x', stream: false }));
    expect(ofType(events, 'model.delta')).toHaveLength(0);
    expect(ofType(events, 'session.completed')[0]?.content).toBe('quiet answer');
  });

  it('continues an existing session: messages are appended, never rewritten', async () => {
    const store = new MemorySessionStore();
    const model = scriptedModel([{ text: 'first answer' }, { text: 'second answer' }]);
    const agent = createAgent({ model, sessionStore: store });
    const first = await agent.send('first question', { sessionId: 'conv-1' });
    const before = await store.get('conv-1');
    const second = await collect(agent.run({ input: 'second question', sessionId: 'conv-1' }));
    expect(first.sessionId).toBe('conv-1');
    expect(ofType(second.events, 'session.started')[0]?.continued).toBe(true);
    const after = await store.get('conv-1');
    expect(after?.messages.slice(0, before!.messages.length)).toEqual(before?.messages);
    expect(after?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(model.requests[1]!.messages).toHaveLength(3);
    expect(after).toMatchObject({ status: 'completed', finalContent: 'second answer' });
  });

  it('rejects a second concurrent run of one session with SESSION_ALREADY_RUNNING', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = tool({
      name: 'slow',
      description: 'Waits for the test.',
      input: z.object({}),
      execute: async () => {
        await gate;
        return 'done';
      },
    });
    const model = scriptedModel([
      { toolCalls: [{ name: 'slow', arguments: {} }] },
      { text: 'finished' },
    ]);
    const store = new MemorySessionStore();
    const agent = createAgent({
      model,
      tools: [slow],
      policy: { allow: ['slow'] },
      sessionStore: store,
    });
    const firstEvents: string[] = [];
    const first = (async () => {
      for await (const ev of agent.run({ input: 'one', sessionId: 'shared' })) {
        firstEvents.push(ev.type);
        if (ev.type === 'tool.called') {
          const second = await collect(agent.run({ input: 'two', sessionId: 'shared' }));
          expect(second.error).toMatchObject({ code: 'SESSION_ALREADY_RUNNING' });
          expect(second.events.map((e) => e.type)).toEqual(['session.failed']);
          release();
        }
      }
    })();
    await first;
    expect(firstEvents.at(-1)).toBe('session.completed');
    expect(await store.get('shared')).toMatchObject({ status: 'completed' });
    expect(model.requests).toHaveLength(2);
  });

  it('two agents sharing one store cannot run one session at once (store lease)', async () => {
    const store = new MemorySessionStore();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const waitTool = tool({
      name: 'wait',
      description: 'w',
      input: z.object({}),
      execute: async () => (await gate, 'ok'),
    });
    const a = createAgent({
      model: scriptedModel([{ toolCalls: [{ name: 'wait', arguments: {} }] }, { text: 'a' }]),
      tools: [waitTool],
      policy: { allow: ['*'] },
      sessionStore: store,
    });
    const b = createAgent({ model: scriptedModel([{ text: 'b' }]), sessionStore: store });
    for await (const ev of a.run({ input: 'x', sessionId: 's' })) {
      if (ev.type === 'tool.called') {
        await expect(b.send('y', { sessionId: 's' })).rejects.toMatchObject({
          code: 'SESSION_ALREADY_RUNNING',
        });
        release();
      }
    }
    expect(await b.send('z', { sessionId: 's' })).toMatchObject({ text: 'b' });
    const lease = await store.acquire('s', 'someone-else', 60_000);
    await expect(b.sessions.delete('s')).rejects.toMatchObject({ code: 'SESSION_ALREADY_RUNNING' });
    await lease?.release();
    await b.sessions.delete('s');
    expect(await store.get('s')).toBeUndefined();
  });

  it('keeps tool-returned images for the next model turn but never stores them', async () => {
    const shot = tool({
      name: 'screenshot',
      description: 'Takes a screenshot.',
      input: z.object({}),
      execute: () => ({
        content: 'a 1x1 png',
        media: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }],
      }),
    });
    const store = new MemorySessionStore();
    const model = scriptedModel([
      { toolCalls: [{ name: 'screenshot', arguments: {} }] },
      { text: 'I see it.' },
    ]);
    const agent = createAgent({
      model,
      tools: [shot],
      policy: { allow: ['*'] },
      sessionStore: store,
    });
    const reply = await agent.send('look', { sessionId: 'img' });
    const toolMsg = model.requests[1]!.messages.find((m) => m.role === 'tool') as ToolResultMessage;
    expect(toolMsg.media?.[0]).toMatchObject({ mimeType: 'image/png', data: 'iVBORw0KGgo=' });
    expect(JSON.stringify(await store.get(reply.sessionId))).not.toContain('iVBORw0KGgo=');
  });

  it('accepts inputContent with images, sends them to the model and stores no image data', async () => {
    const store = new MemorySessionStore();
    const model = scriptedModel([{ text: 'a cat' }]);
    const agent = createAgent({ model, sessionStore: store });
    const data = Buffer.from('fake image bytes').toString('base64');
    await collect(
      agent.run({
        sessionId: 'mm',
        inputContent: [
          { type: 'text', text: 'what is this?' },
          { type: 'image', data, mimeType: 'image/png' },
        ],
      }),
    );
    expect(model.requests[0]!.messages[0]).toMatchObject({
      role: 'user',
      content: [{ type: 'text' }, { type: 'image', data }],
    });
    expect(JSON.stringify(await store.get('mm'))).not.toContain(data);
  });

  it('awaitIdle resolves once runs finish; sessions facade lists and deletes', async () => {
    const agent = createAgent({ model: scriptedModel([{ text: 'a' }, { text: 'b' }]) });
    const run = agent.send('x', { sessionId: 'one' });
    const idle = agent.awaitIdle();
    await Promise.all([run, idle]);
    await agent.send('y', { sessionId: 'two' });
    expect((await agent.sessions.list()).sessions.map((s) => s.id).sort()).toEqual(['one', 'two']);
    await agent.sessions.delete('one');
    expect(await agent.sessions.get('one')).toBeUndefined();
    await agent.awaitIdle();
  });
});

describe('transcript repair', () => {
  it('answers tool calls a dead run left without results, as TOOL_OUTCOME_UNKNOWN, before continuing', async () => {
    const store = new MemorySessionStore();
    const now = new Date().toISOString();
    await store.create({
      id: 'dead',
      status: 'running',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'pay' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', callId: 'c1', name: 'charge', arguments: {} },
            { type: 'tool-call', callId: 'c2', name: 'charge', arguments: {} },
          ],
        },
      ],
      iteration: 1,
      createdAt: now,
      updatedAt: now,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      archiveRefs: [],
      startedCalls: ['c1'], // c1 was in flight; c2 had not started
    });
    const model = scriptedModel([{ text: 'recovered' }]);
    const agent = createAgent({ model, sessionStore: store });
    await agent.send('what happened?', { sessionId: 'dead' });
    const sent = model.requests[0]!.messages;
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
    expect(sent[2]).toMatchObject({
      role: 'tool',
      callId: 'c1',
      isError: true,
      content: expect.stringMatching(/^Error \[TOOL_OUTCOME_UNKNOWN\]/),
    });
    expect(sent[3]).toMatchObject({
      callId: 'c2',
      isError: true,
      content: expect.stringMatching(/^Error \[ABORTED\]: the run ended before this call started/),
    });
    expect((await store.get('dead'))?.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'user',
      'assistant',
    ]);
  });
});
