import { describe, expect, it } from 'vitest';
import { validateArguments } from './sdk-direct-tools.js';
import type { DirectTool } from './sdk-direct-tools.js';
import type { SdkToolDefinition } from './sdk-server.js';
import type { StandardSchemaV1Like } from '../../tools/index.js';

/** A tool whose schema answers through a thenable that is not a native promise. */
function toolAnswering(result: { value?: unknown; issues?: { message: string }[] }): DirectTool {
  const schema: StandardSchemaV1Like = {
    '~standard': {
      version: 1,
      vendor: 'test',
      validate: () => ({ then: (resolve: (r: typeof result) => void) => resolve(result) }) as never,
    },
  };
  return {
    definition: { name: 'pick' } as SdkToolDefinition,
    schema,
    listed: {},
  };
}

describe('validateArguments', () => {
  it('waits on a schema result that is a thenable, not only a native promise', async () => {
    expect(await validateArguments(toolAnswering({ value: { n: 1 } }), { n: 1 })).toEqual({
      value: { n: 1 },
    });
    const refused = await validateArguments(
      toolAnswering({ issues: [{ message: 'n must be a number' }] }),
      { n: 'x' },
    );
    expect(refused).toEqual({
      error: expect.stringContaining('Invalid arguments for tool pick: n must be a number'),
    });
  });
});
