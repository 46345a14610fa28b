import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { MemorySessionStore, createAgent, scriptedModel, tool } from '../../src/index.js';
import type { AgentEvent, ModelMessage, MusterError, TextPart } from '../../src/index.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { startChild } from '../support/child-agent.js';

const answerSchema = z.object({ sum: z.number(), note: z.string().optional() });

function counter() {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    add: tool({
      name: 'add',
      description: 'Adds two numbers.',
      input: z.object({ a: z.number(), b: z.number() }),
      execute: async ({ a, b }) => {
        calls++;
        return String(a + b);
      },
    }),
  };
}

async function failure(run: Promise<unknown>): Promise<MusterError> {
  try {
    await run;
  } catch (err) {
    return err as MusterError;
  }
  throw new Error('the run did not fail');
}

function lastUserText(messages: readonly ModelMessage[]): string {
  const user = messages.filter((m) => m.role === 'user').at(-1)!;
  return (user.content as TextPart[]).map((p) => p.text).join('');
}

describe('typed final answers (SPEC 15.4)', () => {
  it('calls the tools first, then answers with a validated, typed value', async () => {
    const tools = counter();
    const model = scriptedModel([
      { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] },
      { output: { sum: 5, note: null } },
    ]);
    const store = new MemorySessionStore();
    const agent = createAgent({
      model,
      tools: [tools.add],
      sessionStore: store,
      policy: { allow: ['add'] },
    });
    const result = await agent.send('Add 2 and 3.', { output: answerSchema, sessionId: 's1' });
    expect(tools.calls).toBe(1);
    // the optional field the strict form made nullable is dropped before validation
    expect(result.output).toEqual({ sum: 5 });
    expect(result.text).toBe('{"sum":5,"note":null}');
    // both requests carry the tools and the answer format together
    for (const request of model.requests) {
      expect(request.tools.map((t) => t.name)).toContain('add');
      expect(request.output).toEqual({
        name: 'final_answer',
        schema: {
          type: 'object',
          properties: { sum: { type: 'number' }, note: { type: ['string', 'null'] } },
          required: ['sum', 'note'],
          additionalProperties: false,
        },
        strict: true,
      });
    }
    const completed = result.events.find((e) => e.type === 'session.completed');
    expect(completed).toMatchObject({ output: { sum: 5 } });
    expect((await store.get('s1'))?.finalOutput).toEqual({ sum: 5 });
  });

  it('gives send().output the schema’s output type; a wrong use does not compile', async () => {
    const model = scriptedModel([{ output: { n: 4 } }, { output: { n: 4 } }]);
    const agent = createAgent({ model });
    const typed = await agent.send('n?', { output: z.object({ n: z.number() }) });
    expectTypeOf(typed.output).toEqualTypeOf<{ n: number } | undefined>();
    expect(typed.output?.n).toBe(4);
    // @ts-expect-error: n is a number, not a string
    const wrong: string | undefined = typed.output?.n;
    expect(wrong).toBe(4);
    const named = await agent.send('n?', {
      output: { schema: z.object({ n: z.number() }), name: 'count', description: 'How many.' },
    });
    expectTypeOf(named.output).toEqualTypeOf<{ n: number } | undefined>();
    expect(model.requests[1]!.output).toMatchObject({ name: 'count', description: 'How many.' });
    // @ts-expect-error: a number is not an output schema
    await expect(agent.send('n?', { output: 42 })).rejects.toMatchObject({
      code: 'INVALID_CONFIGURATION',
    });
  });

  it('repairs an invalid answer once, showing the issues, then fails OUTPUT_INVALID with them', async () => {
    const model = scriptedModel([{ output: { sum: 'five' } }, { output: { total: 5 } }]);
    const store = new MemorySessionStore();
    const agent = createAgent({ model, sessionStore: store });
    const events: AgentEvent[] = [];
    const err = await failure(
      (async () => {
        for await (const ev of agent.run({ input: 'sum?', output: answerSchema, sessionId: 'r' }))
          events.push(ev);
      })(),
    );
    expect(model.requests).toHaveLength(2);
    const repair = lastUserText(model.requests[1]!.messages);
    expect(repair).toContain("output schema 'final_answer'");
    expect(repair).toMatch(/- sum: .*number/);
    expect(err.code).toBe('OUTPUT_INVALID');
    expect(err.details).toMatchObject({ reason: 'output-schema-mismatch', repairs: 1 });
    expect((err.details.issues as { path: string[] }[]).map((i) => i.path)).toContainEqual(['sum']);
    expect(events.at(-1)).toMatchObject({
      type: 'session.failed',
      error: { code: 'OUTPUT_INVALID' },
    });
    // the transcript keeps both answers and the repair instruction
    const session = await store.get('r');
    expect(session?.status).toBe('failed');
    expect(session?.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(session && 'finalOutput' in session).toBe(false);
  });

  it('with outputRepairs: 0 the first invalid answer fails; the run option replaces the agent’s', async () => {
    const model = scriptedModel([{ output: { sum: 'x' } }]);
    const agent = createAgent({ model, outputRepairs: 3 });
    const err = await failure(agent.send('sum?', { output: answerSchema, outputRepairs: 0 }));
    expect(err).toMatchObject({ code: 'OUTPUT_INVALID', details: { repairs: 0 } });
    expect(model.requests).toHaveLength(1);
    const patient = scriptedModel([
      { output: { sum: 'x' } },
      { text: 'no' },
      { output: { sum: 1 } },
    ]);
    const result = await createAgent({ model: patient, outputRepairs: 2 }).send('sum?', {
      output: answerSchema,
    });
    expect(result.output).toEqual({ sum: 1 });
    expect(patient.requests).toHaveLength(3);
  });

  it('an answer that is not JSON is repaired, then fails OUTPUT_INVALID; the transcript is kept', async () => {
    const model = scriptedModel([{ text: 'The sum is 5.' }, { text: 'Five!' }]);
    const store = new MemorySessionStore();
    const agent = createAgent({ model, sessionStore: store });
    const err = await failure(agent.send('sum?', { output: answerSchema, sessionId: 'nj' }));
    expect(err).toMatchObject({ code: 'OUTPUT_INVALID', details: { reason: 'output-not-json' } });
    expect(lastUserText(model.requests[1]!.messages)).toContain('the answer is not JSON');
    const texts = (await store.get('nj'))!.messages
      .filter((m) => m.role === 'assistant')
      .map((m) => (m.content as TextPart[]).map((p) => p.text).join(''));
    expect(texts).toEqual(['The sum is 5.', 'Five!']);
  });

  it('a fenced JSON answer is read; a plain JSON Schema is validated; a list root is wrapped', async () => {
    const model = scriptedModel([
      { text: '```json\n{"sum": 2}\n```' },
      { output: { value: ['a', 'b'] } },
      { output: { value: ['a', 3] } },
      { output: { value: ['c'] } },
    ]);
    const agent = createAgent({ model });
    const fenced = await agent.send('x', { output: answerSchema });
    expect(fenced.output).toEqual({ sum: 2 });
    const plain = await agent.send('x', {
      output: { schema: { type: 'array', items: { type: 'string' } } },
    });
    expectTypeOf(plain.output).toEqualTypeOf<unknown>();
    expect(plain.output).toEqual(['a', 'b']);
    expect(model.requests[1]!.output?.schema).toEqual({
      type: 'object',
      properties: { value: { type: 'array', items: { type: 'string' } } },
      required: ['value'],
      additionalProperties: false,
    });
    // the plain schema still refuses a wrong item (ajv), and the repair succeeds
    const repaired = await agent.send('x', { output: z.array(z.string()) });
    expect(repaired.output).toEqual(['c']);
    expect(lastUserText(model.requests[3]!.messages)).toContain('1:');
  });

  describe('bad input is typed: nothing is sent to the model and nothing is written', () => {
    const noExport = {
      '~standard': { version: 1, vendor: 'hand', validate: (v: unknown) => ({ value: v }) },
    };
    it.each([
      ['a schema with no JSON Schema export', { output: noExport }, /cannot export JSON Schema/],
      ['a negative outputRepairs', { output: answerSchema, outputRepairs: -1 }, /outputRepairs/],
      ['a fractional outputRepairs', { output: answerSchema, outputRepairs: 1.5 }, /outputRepairs/],
      ['a bare JSON Schema', { output: { type: 'object' } }, /as \{ schema: \{\.\.\.\} \}/],
      [
        'an unknown key',
        { output: { schema: answerSchema, strict: true } },
        /unknown key 'strict'/,
      ],
      ['a name providers refuse', { output: { schema: answerSchema, name: 'a b' } }, /name/],
      [
        'a JSON Schema that does not compile',
        { output: { schema: { type: 'object', properties: { a: { type: 12 } } } } },
        /not a valid JSON Schema/,
      ],
    ])('%s', async (_what, options, message) => {
      const model = scriptedModel([{ output: { sum: 1 } }]);
      const store = new MemorySessionStore();
      const agent = createAgent({ model, sessionStore: store });
      const err = await failure(agent.send('x', { ...(options as object), sessionId: 'bad' }));
      expect(err.code).toBe('INVALID_CONFIGURATION');
      expect(err.message).toMatch(message);
      expect(model.requests).toHaveLength(0);
      expect(await store.get('bad')).toBeUndefined();
    });

    it('an agent outputRepairs that is not a whole number >= 0 is refused at construction', () => {
      expect(() => createAgent({ outputRepairs: -2 })).toThrow(/outputRepairs/);
    });
  });
});

describe('a typed answer in a durable session', () => {
  it('is read back from a SQLite session after the process that ran it has ended', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-typed-'));
    try {
      const path = join(dir, 'sessions.db');
      const child = startChild('test/fixtures/session/typed-answer-agent.ts', {
        TYPED_DB: path,
        TYPED_SESSION: 'typed-1',
      });
      const printed = JSON.parse(await child.line('RESULT')) as unknown;
      expect(await child.exited).toMatchObject({ code: 0 });
      const value = { title: 'Q3 plan', owners: { ana: 2 } };
      expect(printed).toEqual(value);
      const store = new SqliteSessionStore({ path });
      try {
        const session = await store.get('typed-1');
        expect(session).toMatchObject({ status: 'completed', finalOutput: value });
      } finally {
        store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('resuming a run whose typed answer was committed', () => {
  it('reads the committed answer with the resumed run’s output, without another model turn', async () => {
    const store = new MemorySessionStore();
    const now = new Date().toISOString();
    // the run died after committing its final answer, before completing
    await store.create({
      id: 'died',
      status: 'running',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'sum?' }] },
        { role: 'assistant', content: [{ type: 'text', text: '{"sum":9,"note":null}' }] },
      ],
      iteration: 1,
      createdAt: now,
      updatedAt: now,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      archiveRefs: [],
    });
    const model = scriptedModel([]);
    const agent = createAgent({ model, sessionStore: store });
    const events: AgentEvent[] = [];
    for await (const ev of agent.resume('died', { output: answerSchema })) events.push(ev);
    expect(model.requests).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({ type: 'session.completed', output: { sum: 9 } });
    expect(await store.get('died')).toMatchObject({ status: 'completed', finalOutput: { sum: 9 } });
  });
});
