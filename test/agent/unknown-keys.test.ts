import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createSdkMcpServer,
  MemoryArchiveStore,
  MemorySessionStore,
  MusterError,
  scriptedModel,
  sdkTool,
  tool,
  ToolPolicy,
} from '../../src/index.js';
import type { AgentOptions } from '../../src/index.js';
import { anthropic } from '../../src/providers/anthropic.js';
import { fromAiSdk } from '../../src/providers/ai-sdk.js';
import { openaiChat, openaiResponses } from '../../src/providers/openai.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';

// SPEC principle 2: an unknown configuration key fails. Every options object, at every depth,
// refuses a misspelled key with INVALID_CONFIGURATION naming it and the keys it knows, so a
// typo (`policy.approver`) never leaves an option silently unset.

const model = () => scriptedModel([{ text: 'ok' }]);
const agent = (options: Record<string, unknown> = {}) =>
  createAgent({ model: model(), ...options } as AgentOptions);
const echo = tool({
  name: 'echo',
  description: 'Echoes text.',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});
const noop = () => undefined;

/** A case: the misspelled key, a key the message must name as known, and the attempt. */
interface Case {
  readonly key: string;
  readonly known: string;
  readonly attempt: () => unknown;
}

/** What `attempt` threw or rejected with (draining a run), or undefined when it succeeded. */
async function failureOf(attempt: () => unknown): Promise<unknown> {
  try {
    const value = attempt();
    if (value !== null && typeof value === 'object' && Symbol.asyncIterator in value)
      for await (const _ of value as AsyncIterable<unknown>);
    else await value;
    return undefined;
  } catch (err) {
    return err;
  }
}

const CASES: readonly (readonly [path: string, c: Case])[] = [
  ['createAgent()', { key: 'modl', known: 'model', attempt: () => agent({ modl: 1 }) }],
  [
    'policy',
    { key: 'approver', known: 'approve', attempt: () => agent({ policy: { approver: noop } }) },
  ],
  [
    'new ToolPolicy()',
    { key: 'allowed', known: 'allow', attempt: () => new ToolPolicy({ allowed: [] } as never) },
  ],
  [
    'hooks',
    {
      key: 'beforeToool',
      known: 'beforeTool',
      attempt: () => agent({ hooks: { beforeToool: noop } }),
    },
  ],
  [
    'limits',
    {
      key: 'maxIteration',
      known: 'maxIterations',
      attempt: () => agent({ limits: { maxIteration: 2 } }),
    },
  ],
  [
    'context',
    { key: 'maxToken', known: 'maxTokens', attempt: () => agent({ context: { maxToken: 9 } }) },
  ],
  [
    'mcp',
    {
      key: 'strictConfg',
      known: 'strictConfig',
      attempt: () => agent({ mcp: { strictConfg: true } }),
    },
  ],
  [
    'mcp.protocol',
    { key: 'mod', known: 'mode', attempt: () => agent({ mcp: { protocol: { mod: 'auto' } } }) },
  ],
  [
    'mcp.reconnect',
    {
      key: 'enable',
      known: 'enabled',
      attempt: () => agent({ mcp: { reconnect: { enable: true } } }),
    },
  ],
  [
    'mcp.operation',
    {
      key: 'timeout',
      known: 'timeoutMs',
      attempt: () => agent({ mcp: { operation: { timeout: 5 } } }),
    },
  ],
  [
    'mcp.sandbox',
    {
      key: 'arg',
      known: 'args',
      attempt: () => agent({ mcp: { sandbox: { command: 'bwrap', arg: [] } } }),
    },
  ],
  [
    'mcp.handlers',
    { key: 'log', known: 'logging', attempt: () => agent({ mcp: { handlers: { log: noop } } }) },
  ],
  [
    'mcp.oauth.<server>',
    {
      key: 'allowedOrigin',
      known: 'allowedOrigins',
      attempt: () =>
        agent({
          mcp: {
            oauth: { docs: { serverUrl: 'https://docs.example.com/mcp', allowedOrigin: [] } },
          },
        }),
    },
  ],
  [
    'mcpServers.<name> (stdio)',
    {
      key: 'arg',
      known: 'args',
      attempt: () => agent({ mcpServers: { files: { command: 'node', arg: ['server.js'] } } }),
    },
  ],
  [
    'mcpServers.<name> (http)',
    {
      key: 'header',
      known: 'headers',
      attempt: () =>
        agent({
          mcpServers: { api: { type: 'http', url: 'https://api.example.com', header: {} } },
        }),
    },
  ],
  [
    'mcpServers.<name>.auth',
    {
      key: 'tokn',
      known: 'token',
      attempt: () =>
        agent({
          mcpServers: {
            api: {
              type: 'http',
              url: 'https://api.example.com',
              auth: { type: 'bearer', tokn: 'x' },
            },
          },
        }),
    },
  ],
  [
    'mcpContext',
    {
      key: 'resource',
      known: 'resources',
      attempt: () => agent({ mcpContext: { maxBytes: 10, resource: [] } }),
    },
  ],
  [
    'mcpContext.resources[]',
    {
      key: 'mime',
      known: 'uri',
      attempt: () =>
        agent({ mcpContext: { maxBytes: 10, resources: [{ server: 's', uri: 'u', mime: 'x' }] } }),
    },
  ],
  [
    'modelRetry',
    {
      key: 'initialDelay',
      known: 'initialDelayMs',
      attempt: () => agent({ modelRetry: { maxAttempts: 2, initialDelay: 1 } }),
    },
  ],
  ['waits', { key: 'ttl', known: 'ttlMs', attempt: () => agent({ waits: { ttl: 1000 } }) }],
  [
    'observability',
    {
      key: 'onEvents',
      known: 'onEvent',
      attempt: () => agent({ observability: { onEvents: noop } }),
    },
  ],
  [
    'run()',
    {
      key: 'sesionId',
      known: 'sessionId',
      attempt: () => agent().run({ input: 'x', sesionId: 's' } as never),
    },
  ],
  [
    'run().limits',
    {
      key: 'maxIteration',
      known: 'maxIterations',
      attempt: () => agent().run({ input: 'x', limits: { maxIteration: 2 } as never }),
    },
  ],
  [
    'run().output',
    {
      key: 'nmae',
      known: 'name',
      attempt: () =>
        agent().run({ input: 'x', output: { schema: { type: 'object' }, nmae: 'a' } as never }),
    },
  ],
  [
    'run().inputContent[]',
    {
      key: 'txt',
      known: 'text',
      attempt: () => agent().run({ inputContent: [{ type: 'text', txt: 'x' } as never] }),
    },
  ],
  [
    'run().modelRetry',
    {
      key: 'maxAttempt',
      known: 'maxAttempts',
      attempt: () => agent().run({ input: 'x', modelRetry: { maxAttempt: 2 } as never }),
    },
  ],
  [
    'send()',
    {
      key: 'sesionId',
      known: 'sessionId',
      attempt: () => agent().send('x', { sesionId: 's' } as never),
    },
  ],
  [
    'send() with inputContent (the text is the input)',
    {
      key: 'inputContent',
      known: 'sessionId',
      attempt: () => agent().send('x', { inputContent: [{ type: 'text', text: 'y' }] } as never),
    },
  ],
  [
    'resume()',
    {
      key: 'modelNme',
      known: 'modelName',
      attempt: () =>
        agent({ sessionStore: new MemorySessionStore() }).resume('s', { modelNme: 'm' } as never),
    },
  ],
  [
    'resume() with input (a resumed run takes none)',
    {
      key: 'input',
      known: 'modelName',
      attempt: () =>
        agent({ sessionStore: new MemorySessionStore() }).resume('s', { input: 'x' } as never),
    },
  ],
  ['child()', { key: 'nmae', known: 'name', attempt: () => agent().child({ nmae: 'c' } as never) }],
  [
    'child().policy',
    {
      key: 'approver',
      known: 'approve',
      attempt: () => agent().child({ policy: { approver: noop } as never }),
    },
  ],
  [
    'child().hooks',
    {
      key: 'afterTol',
      known: 'afterTool',
      attempt: () => agent().child({ hooks: { afterTol: noop } as never }),
    },
  ],
  [
    'child().limits',
    {
      key: 'maxIteration',
      known: 'maxIterations',
      attempt: () => agent().child({ limits: { maxIteration: 2 } as never }),
    },
  ],
  [
    'asTool()',
    {
      key: 'annotation',
      known: 'annotations',
      attempt: () => agent().asTool({ name: 'helper', description: 'd', annotation: {} } as never),
    },
  ],
  [
    'asTool().annotations',
    {
      key: 'readonlyHint',
      known: 'readOnlyHint',
      attempt: () =>
        agent().asTool({
          name: 'helper',
          description: 'd',
          annotations: { readonlyHint: true } as never,
        }),
    },
  ],
  [
    'tool()',
    {
      key: 'annotation',
      known: 'annotations',
      attempt: () =>
        tool({
          name: 't',
          description: 'd',
          input: z.object({}),
          execute: noop,
          annotation: {},
        } as never),
    },
  ],
  [
    'tool().annotations',
    {
      key: 'destructive',
      known: 'destructiveHint',
      attempt: () =>
        tool({
          name: 't',
          description: 'd',
          input: z.object({}),
          execute: () => 'x',
          annotations: { destructive: true } as never,
        }),
    },
  ],
  [
    'decide()',
    {
      key: 'fingerprnt',
      known: 'fingerprint',
      attempt: () =>
        agent({ sessionStore: new MemorySessionStore() }).decide('s', 'w', { decision: 'allow' }, {
          fingerprnt: 'x',
        } as never),
    },
  ],
  [
    'new SqliteSessionStore()',
    {
      key: 'busyTimeout',
      known: 'busyTimeoutMs',
      attempt: () => new SqliteSessionStore({ path: ':memory:', busyTimeout: 10 } as never),
    },
  ],
  [
    'new PostgresSessionStore()',
    {
      key: 'connectionURL',
      known: 'connectionString',
      attempt: () => new PostgresSessionStore({ connectionURL: 'postgres://x' } as never),
    },
  ],
  [
    'new MemoryArchiveStore()',
    {
      key: 'maxBytes',
      known: 'maxBytesPerSession',
      attempt: () => new MemoryArchiveStore({ maxBytes: 10 } as never),
    },
  ],
  [
    'openaiResponses()',
    { key: 'apiKy', known: 'apiKey', attempt: () => openaiResponses({ apiKy: 'k' } as never) },
  ],
  [
    'openaiChat()',
    {
      key: 'baseUrl',
      known: 'baseURL',
      attempt: () => openaiChat({ baseUrl: 'http://x' } as never),
    },
  ],
  [
    'anthropic()',
    {
      key: 'promptCache',
      known: 'promptCaching',
      attempt: () => anthropic({ promptCache: false } as never),
    },
  ],
  [
    'fromAiSdk()',
    {
      key: 'image',
      known: 'images',
      attempt: () =>
        fromAiSdk(
          { specificationVersion: 'v3', provider: 'p', modelId: 'm', doStream: noop } as never,
          { image: false } as never,
        ),
    },
  ],
  [
    'createSdkMcpServer()',
    {
      key: 'tool',
      known: 'tools',
      attempt: () => createSdkMcpServer({ name: 'crm', tool: [] } as never),
    },
  ],
  [
    'sdkTool() extras',
    {
      key: 'annotation',
      known: 'annotations',
      attempt: () =>
        sdkTool('lookup', 'Looks up.', {}, () => ({ content: [] }), { annotation: {} } as never),
    },
  ],
];

describe('item-14: unknown keys in options', () => {
  it.each(CASES)(
    '%s: a misspelled key fails with INVALID_CONFIGURATION naming it',
    async (_path, c) => {
      const error = await failureOf(c.attempt);
      expect(MusterError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'INVALID_CONFIGURATION' });
      const message = (error as MusterError).message;
      expect(message).toContain(c.key);
      expect(message).toContain(c.known);
    },
  );

  it('names the key a misspelled one was probably meant to be', async () => {
    const error = await failureOf(() => agent({ policy: { approver: noop } }));
    expect((error as MusterError).message).toBe(
      'Invalid policy: has unknown key(s) approver (did you mean approve?); the known keys are visibleTools, deny, rules, allow, default, approve, park, version, dryRun, observer.',
    );
  });

  it('keeps taking any key where the keys are names or data (maps, env, headers, arguments, settings)', async () => {
    class AuditRule {
      readonly id = 'audit';
      readonly seen: string[] = [];
      authorize() {
        return undefined;
      }
    }
    const options = {
      model: model(),
      tools: [echo],
      mcpServers: {
        'any-server_1': { command: 'node', args: ['s.js'], env: { ANY_VARIABLE: 'x', lower: 'y' } },
        remote: {
          type: 'http',
          url: 'https://api.example.com/mcp',
          headers: { 'X-Anything-At-All': 'v', 'x-lower-case': 'w' },
        },
      },
      mcp: {
        strictConfig: true,
        oauth: {
          remote: {
            serverUrl: 'https://api.example.com/mcp',
            allowedOrigins: ['https://api.example.com'],
            grant: 'client_credentials',
            clientId: 'muster-test',
            privateKeyJwk: { kty: 'RSA', alg: 'RS256', n: 'abc', e: 'AQAB', kid: 'k1', use: 'sig' },
          },
        },
        clientExtensions: { 'io.example/ext': { anything: { nested: true } } },
      },
      mcpContext: {
        maxBytes: 1000,
        prompts: [{ server: 'remote', name: 'brief', arguments: { anyArgument: 'x', other: 'y' } }],
      },
      policy: { allow: ['echo'], rules: [new AuditRule()] },
    } as unknown as AgentOptions;
    const made = createAgent(options);
    await made.close();
  });
});
