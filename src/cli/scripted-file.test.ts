import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MusterError } from '../errors/index.js';
import type { ModelClient, ModelMessage, ModelPart } from '../model/index.js';
import { readScriptedFile, scriptedFileModel } from './scripted-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'muster-scripted-file-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(content: unknown): string {
  const path = join(dir, 'turns.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

/** The parts of one model turn for a transcript. */
async function turn(model: ModelClient, messages: readonly ModelMessage[]): Promise<ModelPart[]> {
  const parts: ModelPart[] = [];
  const request = { modelName: 'scripted', messages, tools: [], stream: true };
  for await (const p of model.generate(request, { signal: new AbortController().signal }))
    parts.push(p);
  return parts;
}

const text = (parts: readonly ModelPart[]) =>
  parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join('');
const calls = (parts: readonly ModelPart[]) =>
  parts.flatMap((p) =>
    p.type === 'tool-call' ? [`${p.callId} ${p.name} ${p.argumentsText}`] : [],
  );

const user: ModelMessage = { role: 'user', content: [{ type: 'text', text: 'Count.' }] };
const asked: ModelMessage = {
  role: 'assistant',
  content: [{ type: 'tool-call', callId: 'call_1_1', name: 'count', arguments: {} }],
};
const result: ModelMessage = {
  role: 'tool',
  callId: 'call_1_1',
  toolName: 'count',
  content: 'counted',
  isError: false,
};
const TURNS = [{ toolCalls: [{ name: 'count', arguments: { n: 1 } }] }, { text: 'done' }];

describe('scripted:<file>, a JSON array', () => {
  it('plays its turns in order across every conversation of the process', async () => {
    const model = scriptedFileModel(file(TURNS));
    // two conversations at their first turn: the second gets the list's second turn
    expect(calls(await turn(model, [user]))).toEqual(['call_1_1 count {"n":1}']);
    expect(text(await turn(model, [user]))).toBe('done');
    await expect(turn(model, [user])).rejects.toMatchObject({ code: 'MODEL_RESPONSE_INVALID' });
  });
});

describe('scripted:<file>, { "perConversation": true, "turns": [...] }', () => {
  it('gives each conversation the turn its transcript is at, however many run at once', async () => {
    const model = scriptedFileModel(file({ perConversation: true, turns: TURNS }));
    const first = await Promise.all([turn(model, [user]), turn(model, [user])]);
    expect(first.map(calls)).toEqual([['call_1_1 count {"n":1}'], ['call_1_1 count {"n":1}']]);
    expect(text(await turn(model, [user, asked, result]))).toBe('done');
    // a conversation resumed elsewhere gets the same turn again: nothing is used up
    expect(calls(await turn(model, [user]))).toEqual(['call_1_1 count {"n":1}']);
  });

  it('numbers call ids by the turn within the conversation, and keeps given ones', async () => {
    const model = scriptedFileModel(
      file({
        perConversation: true,
        turns: [
          { toolCalls: [{ name: 'a', arguments: {} }] },
          {
            toolCalls: [
              { name: 'b', arguments: {} },
              { name: 'c', arguments: {}, id: 'mine' },
            ],
          },
        ],
      }),
    );
    expect(calls(await turn(model, [user, asked, result]))).toEqual(['call_2_1 b {}', 'mine c {}']);
  });

  it('plays a turn cut short by an abort again', async () => {
    const model = scriptedFileModel(file({ perConversation: true, turns: TURNS }));
    const cut: ModelMessage = { role: 'assistant', content: [], incomplete: true };
    expect(calls(await turn(model, [user, cut]))).toEqual(['call_1_1 count {"n":1}']);
  });

  it('past its last turn, fails the request with MODEL_RESPONSE_INVALID saying so', async () => {
    const model = scriptedFileModel(file({ perConversation: true, turns: [{ text: 'one' }] }));
    const answered: ModelMessage = { role: 'assistant', content: [{ type: 'text', text: 'one' }] };
    await expect(turn(model, [user, answered, user])).rejects.toMatchObject({
      code: 'MODEL_RESPONSE_INVALID',
      message: expect.stringMatching(/no turn 2 for this conversation: only 1 were declared/),
    });
  });

  it('"perConversation": false, or absent, is the array form', () => {
    expect(readScriptedFile(file({ turns: TURNS })).perConversation).toBe(false);
    expect(readScriptedFile(file({ perConversation: false, turns: TURNS })).perConversation).toBe(
      false,
    );
  });
});

describe('scripted:<file> that is not a script', () => {
  it.each([
    ['not JSON', '[{', /cannot read .*turns\.json: .*JSON/],
    ['a string', '"hi"', /holds neither an array of turns nor an object/],
    [
      'a turn that is no object',
      [{ text: 'a' }, 3],
      /has a turn \(index 1\) that is not an object/,
    ],
    ['an unknown field', { perConversation: true, turn: [] }, /has an unknown field 'turn'/],
    ['no turns', { perConversation: true }, /has no "turns" array/],
    [
      'a perConversation that is no boolean',
      { perConversation: 'yes', turns: [] },
      /"perConversation" that is not true or false/,
    ],
    [
      'a per-conversation turn that is no object',
      { perConversation: true, turns: [null] },
      /has a turn \(index 0\) that is not an object/,
    ],
    ['an empty list', { perConversation: true, turns: [] }, /declares no turn/],
    [
      'tool calls that are not a list',
      [{ toolCalls: {} }],
      /turn \(index 0\) whose "toolCalls" is not an array/,
    ],
    [
      'a tool call without arguments',
      { perConversation: true, turns: [{ toolCalls: [{ name: 'x' }] }] },
      /turn \(index 0\) whose "toolCalls" is not an array/,
    ],
    ['a text that is no string', [{ text: 3 }], /turn \(index 0\) whose "text" is not a string/],
  ])('%s: INVALID_CONFIGURATION naming both forms', (_, content, message) => {
    let thrown: unknown;
    try {
      scriptedFileModel(file(content));
    } catch (err) {
      thrown = err;
    }
    expect(MusterError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'INVALID_CONFIGURATION' });
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as Error).message).toMatch(/"perConversation": true, "turns"/);
  });
});
