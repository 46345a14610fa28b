import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, MemorySessionStore, tool } from '../../src/index.js';
import type { AgentEvent, MusterError } from '../../src/index.js';
import { ModelError } from '../../src/errors/index.js';
import { startOpenAIWireServer } from '../fixtures/openai-wire-server.js';
import type { OpenAIWireServer } from '../fixtures/openai-wire-server.js';
import { collect, ofType } from '../support/run-helpers.js';
import { MODELS_UNDER_TEST } from './model-clients.js';
import type { ModelUnderTest } from './model-clients.js';
import { TEST_API_KEY, expectNoSecret } from './provider-test-kit.js';

// The provider test kit: one set of scenarios, run over all five model clients against a
// loopback server speaking each vendor's streaming wire format. The vendors' own libraries do
// the HTTP and the parsing. A scenario added here runs on every client.

let server: OpenAIWireServer;
beforeAll(async () => {
  server = await startOpenAIWireServer();
});
afterEach(() => server.reset());
afterAll(() => server.close());

const RADAR = { type: 'image' as const, data: 'cmFkYXI=', mimeType: 'image/png' };

function weatherTool(seen: string[]) {
  return tool({
    name: 'get_weather',
    description: 'Weather for a city.',
    input: z.object({ city: z.string() }),
    annotations: { readOnlyHint: true },
    execute: ({ city }) => {
      seen.push(city);
      return city === 'Rome'
        ? { content: 'Rome: 19C, radar attached', media: [RADAR] }
        : `${city}: 4C`;
    },
  });
}

function agentFor(subject: ModelUnderTest, store = new MemorySessionStore(), seen: string[] = []) {
  return createAgent({
    model: subject.make(server),
    modelName: subject.modelName,
    system: 'Be brief.',
    tools: [weatherTool(seen)],
    policy: { allow: ['get_weather'] },
    sessionStore: store,
  });
}

const lastAssistant = async (store: MemorySessionStore, sessionId: string) =>
  (await store.get(sessionId))?.messages.filter((m) => m.role === 'assistant').at(-1);

describe.each(MODELS_UNDER_TEST)('$name', (subject) => {
  const { dialect } = subject;

  it('drives a multi-turn run: image input, reasoning, two parallel calls, metadata sent back', async () => {
    server.script(
      dialect.reasoningAndCalls('Need both cities.', [
        { id: 'call_oslo', name: 'get_weather', args: ['{"city":', '"Oslo"}'] },
        { id: 'call_rome', name: 'get_weather', args: ['{"city":"Rome"}'] },
      ]),
      dialect.text(['Oslo is cold; ', 'Rome is warm.'], { input: 90, output: 8 }),
      dialect.text(['You are welcome.']),
    );
    const seen: string[] = [];
    const store = new MemorySessionStore();
    const agent = agentFor(subject, store, seen);
    const run = await collect(
      agent.run({
        sessionId: 'kit-run',
        inputContent: [
          { type: 'text', text: 'Weather in Oslo and Rome? See the map.' },
          { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
          { type: 'image', url: 'https://example.com/map.png', mimeType: 'image/png' },
        ],
      }),
    );
    expect(run.error).toBeUndefined();
    expect(seen.sort()).toEqual(['Oslo', 'Rome']);
    expect(ofType(run.events, 'model.completed')[0]?.toolCalls).toEqual([
      { callId: 'call_oslo', name: 'get_weather', arguments: { city: 'Oslo' } },
      { callId: 'call_rome', name: 'get_weather', arguments: { city: 'Rome' } },
    ]);
    expect(
      ofType(run.events, 'model.delta')
        .filter((d) => d.kind === 'reasoning')
        .map((d) => d.content)
        .join(''),
    ).toBe('Need both cities.');
    expect(ofType(run.events, 'session.completed')[0]?.content).toBe('Oslo is cold; Rome is warm.');

    // Turn 1: the tool catalog and both input images.
    const first = dialect.read(server.requests[0]!.body);
    expect(first.toolNames).toEqual(['get_weather']);
    expect(first.images).toBe(2);
    // Turn 2: both results, the reasoning as the vendor needs it, and the tool's image.
    const second = dialect.read(server.requests[1]!.body);
    expect(second.toolResults).toEqual({
      call_oslo: 'Oslo: 4C',
      call_rome: 'Rome: 19C, radar attached',
    });
    expect(second.echoedReasoning).toMatchObject(subject.echoedReasoning);
    expect(second.echoedReasoning).toHaveLength(subject.echoedReasoning.length);
    expect(second.images).toBe(3);

    // A later run of the same session sends the whole conversation again, metadata included.
    const reply = await agent.send('Thanks!', { sessionId: 'kit-run' });
    expect(reply.text).toBe('You are welcome.');
    const third = dialect.read(server.requests[2]!.body);
    expect(third.echoedReasoning).toMatchObject(subject.echoedReasoning);
    expect(Object.keys(third.toolResults)).toEqual(['call_oslo', 'call_rome']);
    // Binary media never reaches the store; the live turns above did carry it.
    const stored = JSON.stringify(await store.get('kit-run'));
    expect(stored).not.toContain('aGVsbG8=');
    expect(stored).not.toContain(RADAR.data);
    expect(stored).not.toContain(TEST_API_KEY);
  });

  it('reports cached input tokens in usage and in model.completed', async () => {
    server.script(dialect.text(['Hi.'], { input: 100, output: 5, cached: 80 }));
    const run = await collect(agentFor(subject).run({ input: 'Hello' }));
    expect(run.error).toBeUndefined();
    const usage = ofType(run.events, 'model.completed')[0]?.usage;
    expect(usage?.cachedInputTokens).toBe(80);
    expect(usage?.outputTokens).toBe(5);
    expect(usage?.inputTokens).toBeGreaterThanOrEqual(100);
    expect(ofType(run.events, 'session.completed')[0]?.usage.cachedInputTokens).toBe(80);
  });

  it('an abort mid-stream ends the run ABORTED, keeps the partial text, and closes the connection', async () => {
    server.script(dialect.heldText('Partial '));
    const store = new MemorySessionStore();
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    let error: MusterError | undefined;
    try {
      for await (const ev of agentFor(subject, store).run({
        input: 'Tell me a story',
        sessionId: 'kit-abort',
        signal: controller.signal,
      })) {
        events.push(ev);
        if (ev.type === 'model.delta') controller.abort();
      }
    } catch (err) {
      error = err as MusterError;
    }
    expect(error?.code).toBe('ABORTED');
    expect(ofType(events, 'model.delta').map((d) => d.content)).toEqual(['Partial ']);
    await server.heldStreamClosed();
    expect(await lastAssistant(store, 'kit-abort')).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Partial ' }],
      incomplete: true,
    });
  });

  it('retries a 429 once with modelRetry, and not at all without it', async () => {
    server.script(dialect.rateLimited(), dialect.text(['Fine.']));
    const retried = await collect(
      agentFor(subject).run({
        input: 'Hi',
        modelRetry: { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 2 },
      }),
    );
    expect(retried.error).toBeUndefined();
    expect(ofType(retried.events, 'session.completed')[0]?.content).toBe('Fine.');
    expect(server.requests).toHaveLength(2);

    server.reset();
    server.script(dialect.rateLimited(), dialect.text(['never sent']));
    const plain = await collect(agentFor(subject).run({ input: 'Hi' }));
    expect(server.requests).toHaveLength(1);
    expect(plain.error).toBeInstanceOf(ModelError);
    expect(plain.error).toMatchObject({
      code: 'MODEL_REQUEST_FAILED',
      status: 429,
      isRetryable: true,
    });
    expectNoSecret(plain.error as ModelError);
    expect(JSON.stringify(plain.events)).not.toContain(TEST_API_KEY);
  });

  it('never retries an error that came after text was streamed', async () => {
    server.script(dialect.errorAfterText('Half '), dialect.text(['never sent']));
    const store = new MemorySessionStore();
    const run = await collect(
      agentFor(subject, store).run({
        input: 'Hi',
        sessionId: 'kit-late-error',
        modelRetry: { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 2 },
      }),
    );
    expect(run.error).toBeInstanceOf(ModelError);
    // Retryable by its kind, and still not retried: output had started.
    expect(run.error).toMatchObject({ code: 'MODEL_REQUEST_FAILED', isRetryable: true });
    expect(server.requests).toHaveLength(1);
    expect(await lastAssistant(store, 'kit-late-error')).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Half ' }],
      incomplete: true,
    });
  });
});
