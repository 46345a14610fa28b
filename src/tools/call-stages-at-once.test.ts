import { describe, expect, it } from 'vitest';
import { isPromiseLike } from '../util/index.js';
import { checkArguments } from './call-arguments.js';
import { storeCallResult } from './call-result.js';
import { validateJsonSchemaNow } from './json-schema-validator.js';
import { ToolCatalog } from './index.js';
import type { CatalogEntry, ToolExecutor, ToolResult } from './index.js';

const signal = new AbortController().signal;
const schema = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
} as const;

/** A catalog entry of a tool validated by its JSON Schema (as an MCP server's tools are). */
async function schemaEntry(): Promise<CatalogEntry> {
  const executor: ToolExecutor = {
    listTools: () => [{ name: 'echo', description: 'Echoes.', inputSchema: schema }],
    execute: async () => 'ok',
  };
  return (await ToolCatalog.build([executor])).get('echo')!;
}

describe('stages that answer at once', () => {
  it('checks arguments against a JSON Schema at once once an earlier call compiled it', async () => {
    const entry = await schemaEntry();
    expect(validateJsonSchemaNow(entry.inputSchema, { text: 'a' })).toBeUndefined();
    const first = checkArguments(entry, { text: 'a' }, signal);
    expect(isPromiseLike(first)).toBe(true);
    expect(await first).toEqual({ ok: true, value: { text: 'a' } });
    const later = checkArguments(entry, { text: 'b' }, signal);
    expect(isPromiseLike(later)).toBe(false);
    expect(later).toEqual({ ok: true, value: { text: 'b' } });
    const invalid = checkArguments(entry, { text: 1 }, signal);
    expect(isPromiseLike(invalid)).toBe(false);
    expect(invalid).toMatchObject({ ok: false, refusal: { code: 'TOOL_ARGUMENTS_INVALID' } });
  });

  it('stores a result at once when the step finishes at once, and refuses what fails either way', async () => {
    const entry = await schemaEntry();
    const call = { callId: 'c1', name: 'echo', argumentsText: '{}', iteration: 1 };
    const result: ToolResult = { content: 'small' };
    const now = storeCallResult(() => result, entry, result, call);
    expect(isPromiseLike(now)).toBe(false);
    expect(now).toEqual({ ok: true, value: result });
    const later = storeCallResult(async () => result, entry, result, call);
    expect(isPromiseLike(later)).toBe(true);
    expect(await later).toEqual({ ok: true, value: result });
    // a thenable that is not a native promise is waited on too
    const thenable = storeCallResult(
      () => ({ then: (resolve: (r: ToolResult) => void) => resolve(result) }) as never,
      entry,
      result,
      call,
    );
    expect(await thenable).toEqual({ ok: true, value: result });
    for (const finish of [
      () => {
        throw new Error('full');
      },
      () => Promise.reject(new Error('full')),
    ]) {
      const refused = await storeCallResult(finish, entry, result, call);
      expect(refused).toMatchObject({ ok: false, refusal: { code: 'TOOL_EXECUTION_FAILED' } });
    }
  });
});
