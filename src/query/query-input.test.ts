import { describe, expect, it } from 'vitest';
import { QueryInput, toUserTurn } from './query-input.js';
import type { QueryUserMessage } from './query-types.js';

const user = (content: QueryUserMessage['message']['content']): QueryUserMessage => ({
  type: 'user',
  message: { role: 'user', content },
});

describe('QueryInput', () => {
  it('a string prompt is one turn, then the input ends', async () => {
    const input = new QueryInput('hello');
    expect(await input.next()).toEqual({ input: 'hello' });
    expect(await input.next()).toBeUndefined();
  });

  it('reads a stream and added streams, and ends when all are exhausted', async () => {
    const input = new QueryInput(
      (async function* () {
        yield user('one');
      })(),
    );
    const added = input.add(
      (async function* () {
        yield user('two');
      })(),
    );
    const turns = [await input.next(), await input.next()];
    await added;
    expect(turns).toEqual(expect.arrayContaining([{ input: 'one' }, { input: 'two' }]));
    expect(await input.next()).toBeUndefined();
  });

  it('close() ends a wait for input', async () => {
    const input = new QueryInput(
      (async function* () {
        yield user('one');
        await new Promise(() => undefined);
      })(),
    );
    expect(await input.next()).toEqual({ input: 'one' });
    const waiting = input.next();
    input.close();
    expect(await waiting).toBeUndefined();
    expect(() => input.add((async function* () {})())).toThrow(/closed/);
  });

  it('a stream that fails fails the next read', async () => {
    const input = new QueryInput(
      // eslint-disable-next-line require-yield
      (async function* () {
        throw new Error('broken source');
      })(),
    );
    await expect(input.next()).rejects.toThrow('broken source');
  });
});

describe('toUserTurn', () => {
  it('takes text and base64 images, refuses other blocks', () => {
    expect(toUserTurn(user('hi'))).toEqual({ input: 'hi' });
    expect(
      toUserTurn(
        user([
          { type: 'text', text: 'look' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
        ]),
      ),
    ).toEqual({
      inputContent: [
        { type: 'text', text: 'look' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      ],
    });
    expect(() =>
      toUserTurn(user([{ type: 'tool_result', tool_use_id: 'x', content: '', is_error: false }])),
    ).toThrow(/text and base64 image/);
    expect(() => toUserTurn({ type: 'assistant' } as unknown as QueryUserMessage)).toThrow(
      /type: 'user'/,
    );
  });
});
