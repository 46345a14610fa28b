import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, MemorySessionStore, scriptedModel, tool } from '../../src/index.js';
import type { ModelMessage, SessionStore } from '../../src/index.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { jsonTextDepth } from '../../src/util/index.js';
import {
  DEEP_LEVELS,
  DEEP_SESSION_ID,
  nestedArrays,
  saveTool,
} from '../fixtures/session/deep-arguments-session.js';
import { collect, ofType } from '../support/run-helpers.js';
import { runnableScript } from '../support/ts-script.js';

const run = promisify(execFile);
const FIXTURE_SCRIPT = 'test/fixtures/session/deep-arguments-session.ts';
const FIXTURE_DB = 'test/fixtures/session/deep-arguments.db';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the committed fixture (opening it writes to it, and to files beside it). */
function fixtureCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'muster-deep-'));
  dirs.push(dir);
  const path = join(dir, 'sessions.db');
  copyFileSync(FIXTURE_DB, path);
  return path;
}

/** The arguments of the transcript's tool calls named `callId`. */
function argumentsOf(messages: readonly ModelMessage[], callId: string): unknown[] {
  return messages.flatMap((m) =>
    m.role === 'assistant'
      ? m.content.flatMap((p) =>
          p.type === 'tool-call' && p.callId === callId ? [p.arguments] : [],
        )
      : [],
  );
}

describe('item-08: a tool call nested 3,000 levels deep', () => {
  it('in a session stored before maxToolArgumentDepth, does not stop the next run', async () => {
    const store = new SqliteSessionStore({ path: fixtureCopy() });
    const model = scriptedModel([{ text: 'Still here.' }]);
    const agent = createAgent({
      model,
      tools: [saveTool],
      policy: { allow: ['save'] },
      sessionStore: store,
    });
    try {
      const before = await store.get(DEEP_SESSION_ID);
      expect(before?.status).toBe('failed');
      const result = await agent.send('Are you still there?', { sessionId: DEEP_SESSION_ID });
      expect(result).toMatchObject({ status: 'completed', text: 'Still here.' });
      // the model was sent the old call with its arguments as their JSON text
      const [sent] = argumentsOf(model.requests[0]!.messages, 'call_deep');
      expect(typeof sent).toBe('string');
      expect(jsonTextDepth(sent as string, DEEP_LEVELS + 10)).toBe(DEEP_LEVELS + 1);
      // and so are hosts reading the session; the store keeps what it had
      const read = await agent.sessions.get(DEEP_SESSION_ID);
      expect(read?.status).toBe('completed');
      expect(argumentsOf(read!.messages, 'call_deep')).toEqual([sent]);
      expect(typeof argumentsOf((await store.get(DEEP_SESSION_ID))!.messages, 'call_deep')[0]).toBe(
        'object',
      );
      // and the session goes on from there
      const other = createAgent({ model: scriptedModel([{ text: 'Yes.' }]), sessionStore: store });
      const again = await other.send('Again?', { sessionId: DEEP_SESSION_ID });
      await other.close();
      expect(again.status).toBe('completed');
    } finally {
      await agent.close();
      store.close();
    }
  });

  it('in a session stored before maxToolArgumentDepth, does not stop a run in a process with a small stack', async () => {
    // a smaller stack than Node's default: the run must not depend on the data's depth at all
    const { stdout } = await run(
      process.execPath,
      ['--stack-size=500', runnableScript(FIXTURE_SCRIPT), 'continue', fixtureCopy()],
      { timeout: 60_000 },
    );
    expect(stdout).toContain('RESULT completed Still here.');
  });

  it.each<[string, () => { store: SessionStore; close: () => void }]>([
    ['the memory store', () => ({ store: new MemorySessionStore(), close: () => undefined })],
    [
      'the SQLite store',
      () => {
        const dir = mkdtempSync(join(tmpdir(), 'muster-deep-'));
        dirs.push(dir);
        const store = new SqliteSessionStore({ path: join(dir, 'sessions.db') });
        return { store, close: () => store.close() };
      },
    ],
  ])(
    'from the model, is a TOOL_ARGUMENTS_INVALID result and the session stays usable (%s)',
    async (_name, open) => {
      const { store, close } = open();
      const ran: unknown[] = [];
      const model = scriptedModel([
        {
          toolCalls: [
            { id: 'call_deep', name: 'save', arguments: { value: nestedArrays(DEEP_LEVELS) } },
          ],
        },
        { text: 'It was too deep.' },
        { text: 'Yes.' },
      ]);
      const agent = createAgent({
        model,
        tools: [
          tool({
            name: 'save',
            description: 'Saves a value.',
            input: z.object({ value: z.unknown() }),
            execute: (args) => (ran.push(args), 'saved'),
          }),
        ],
        policy: { allow: ['save'] },
        sessionStore: store,
      });
      try {
        const first = await collect(agent.run({ input: 'Save this.', sessionId: 'deep' }));
        expect(first.error).toBeUndefined();
        expect(ofType(first.events, 'tool.completed')).toEqual([
          expect.objectContaining({
            callId: 'call_deep',
            isError: true,
            errorCode: 'TOOL_ARGUMENTS_INVALID',
          }),
        ]);
        expect(ran).toEqual([]);
        expect(ofType(first.events, 'session.completed')[0]?.content).toBe('It was too deep.');
        // the transcript keeps the model's text, not a value that deep
        const stored = (await store.get('deep'))!;
        const [args] = argumentsOf(stored.messages, 'call_deep');
        expect(typeof args).toBe('string');
        expect(jsonTextDepth(args as string, DEEP_LEVELS + 10)).toBe(DEEP_LEVELS + 1);
        // the refusal reached the model, and the next run completes
        const next = await agent.send('Still there?', { sessionId: 'deep' });
        expect(next).toMatchObject({ status: 'completed', text: 'Yes.' });
        const results = model.requests[2]!.messages.filter((m) => m.role === 'tool');
        expect(results).toEqual([
          expect.objectContaining({
            callId: 'call_deep',
            content: expect.stringContaining('TOOL_ARGUMENTS_INVALID'),
          }),
        ]);
      } finally {
        await agent.close();
        close();
      }
    },
  );

  it('in a decision of a wait, is refused before the store is asked', async () => {
    const agent = createAgent({ sessionStore: new MemorySessionStore() });
    try {
      await expect(
        agent.decide('s', 'w', {
          action: 'accept',
          content: { value: nestedArrays(DEEP_LEVELS) } as never,
        }),
      ).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION', details: { waitId: 'w' } });
    } finally {
      await agent.close();
    }
  });
});
