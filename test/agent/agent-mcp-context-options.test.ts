import { describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { AgentOptions } from '../../src/index.js';
import { collect } from '../support/run-helpers.js';

// mcpContext is checked in full, at construction (agent option) and per run (run option),
// with the path of the problem in the message, before anything connects or is sent.

const bad: [string, unknown, string][] = [
  ['an unknown key', { maxBytes: 10, resource: [] }, 'mcpContext: has unknown key(s) resource'],
  ['no maxBytes', { resources: [] }, 'mcpContext: maxBytes: must be a positive whole number'],
  ['a zero maxBytes', { maxBytes: 0 }, 'mcpContext: maxBytes: must be a positive whole number'],
  ['a fractional maxBytes', { maxBytes: 1.5 }, 'maxBytes: must be a positive whole number'],
  ['resources not an array', { maxBytes: 10, resources: {} }, 'resources: must be an array'],
  [
    'a resource without uri',
    { maxBytes: 10, resources: [{ server: 's' }] },
    'mcpContext: resources[0] uri: must be a string',
  ],
  [
    'a resource with an unknown key',
    { maxBytes: 10, resources: [{ server: 's', uri: 'u', mime: 'x' }] },
    'resources[0] has unknown key(s) mime',
  ],
  [
    'a prompt without name',
    { maxBytes: 10, prompts: [{ server: 's' }] },
    'mcpContext: prompts[0] name: must be a string',
  ],
  [
    'a prompt argument that is not a string',
    { maxBytes: 10, prompts: [{ server: 's', name: 'p', arguments: { n: 1 } }] },
    'prompts[0] arguments: n: must be a string',
  ],
  [
    'an empty server name',
    { maxBytes: 10, prompts: [{ server: '', name: 'p' }] },
    'prompts[0] server: must be a non-empty string',
  ],
];

describe('mcpContext options', () => {
  it.each(bad)('refuses %s when the agent is created', (_what, value, path) => {
    let error: unknown;
    try {
      createAgent({ mcpContext: value } as AgentOptions);
    } catch (err) {
      error = err;
    }
    expect(error).toMatchObject({ code: 'INVALID_CONFIGURATION' });
    expect((error as Error).message).toContain(path);
  });

  it.each(bad)('refuses %s in a run before the model is called', async (_what, value, path) => {
    const model = scriptedModel([{ text: 'never' }]);
    const agent = createAgent({ model });
    try {
      const { error } = await collect(
        agent.run({ input: 'hi', mcpContext: value } as Parameters<typeof agent.run>[0]),
      );
      expect(error).toMatchObject({ code: 'INVALID_CONFIGURATION' });
      expect(error!.message).toContain(path);
      expect(model.requests).toHaveLength(0);
    } finally {
      await agent.close();
    }
  });

  it('accepts a full, valid mcpContext', () => {
    expect(() =>
      createAgent({
        mcpContext: {
          maxBytes: 1_000,
          resources: [{ server: 's', uri: 'file:///a' }],
          prompts: [
            { server: 's', name: 'p', arguments: { city: 'Oslo' } },
            { server: 's', name: 'q' },
          ],
        },
      }),
    ).not.toThrow();
  });
});
