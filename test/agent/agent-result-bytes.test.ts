import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../../src/index.js';
import type { ToolReturn } from '../../src/index.js';
import { collect, ofType } from '../support/run-helpers.js';

const base64 = (bytes: number): string => Buffer.alloc(bytes, 7).toString('base64');

/** One run of a host tool returning `value`, under a 1,000-byte result limit. */
async function completedWith(value: ToolReturn) {
  const agent = createAgent({
    model: scriptedModel([{ toolCalls: [{ name: 'media', arguments: {} }] }, { text: 'done' }]),
    tools: [tool({ name: 'media', description: 'm', input: z.object({}), execute: () => value })],
    policy: { allow: ['media'] },
    limits: { maxToolResultBytes: 1000 },
  });
  const { events, error } = await collect(agent.run({ input: 'x' }));
  expect(error).toBeUndefined();
  const done = ofType(events, 'tool.completed');
  expect(done).toHaveLength(1);
  return done[0]!;
}

describe('maxToolResultBytes counts every byte of a result', () => {
  it('refuses a 300 KB audio result over a 1,000-byte limit', async () => {
    const done = await completedWith({
      content: [{ type: 'audio', data: base64(300 * 1024), mimeType: 'audio/wav' }],
    });
    expect(done).toMatchObject({ errorCode: 'TOOL_RESULT_TOO_LARGE', executed: true });
  });

  it('refuses an embedded binary resource over the limit', async () => {
    const done = await completedWith({
      content: [{ type: 'resource', resource: { uri: 'file:///a.bin', blob: base64(4000) } }],
    });
    expect(done).toMatchObject({ errorCode: 'TOOL_RESULT_TOO_LARGE', executed: true });
  });

  it('refuses structured output over the limit', async () => {
    const done = await completedWith({ content: 'ok', structured: { data: 'x'.repeat(2000) } });
    expect(done).toMatchObject({ errorCode: 'TOOL_RESULT_TOO_LARGE', executed: true });
  });

  it('passes small audio under the limit', async () => {
    const done = await completedWith({
      content: [{ type: 'audio', data: base64(300), mimeType: 'audio/wav' }],
    });
    expect(done).toMatchObject({ isError: false, executed: true });
    expect(done.errorCode).toBeUndefined();
  });
});
