/**
 * A child process that parks a run on an approval wait, as another host (a worker, a script)
 * would, then exits: the studio tests list, decide and resume the run from the studio. It
 * opens the SQLite file PARK_DB, connects the MCP servers PARK_SERVERS, and its scripted model
 * calls PARK_TOOL with PARK_ARGS once; the policy parks that call. It prints
 * `PARKED <json of the waits>` and exits 0.
 *
 *   PARK_DB=<sqlite file> PARK_SESSION=<id> PARK_SERVERS=<json mcpServers>
 *   PARK_TOOL=<model-facing name> PARK_ARGS=<json object>
 *   PARK_POLICY=<json: { allow?, default?, version?, park?, ruleIds? }>
 *
 * With `park: true` an `ask` parks (no approver); without it an approver answers `park`, so
 * the policy hashes like a studio's, whose policy has an approver (the same allow list,
 * default and rule ids give the same policy version).
 */
import { createAgent, scriptedModel } from '../../src/index.js';
import type { McpServerConfig, PolicyOptions } from '../../src/index.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';

const env = (name: string): string => process.env[name] ?? '';
const policy = JSON.parse(env('PARK_POLICY') || '{}') as {
  allow?: string[];
  default?: 'ask' | 'allow' | 'deny';
  version?: string;
  park?: boolean;
  ruleIds?: string[];
};

const options: PolicyOptions = {
  ...(policy.allow ? { allow: policy.allow } : {}),
  default: policy.default ?? 'ask',
  ...(policy.version ? { version: policy.version } : {}),
  ...(policy.ruleIds
    ? { rules: policy.ruleIds.map((id) => ({ id, authorize: () => undefined })) }
    : {}),
  ...(policy.park
    ? { park: true }
    : { approve: () => ({ decision: 'park' as const, reason: 'a person decides it later' }) }),
};

const store = new SqliteSessionStore({ path: env('PARK_DB') });
const agent = createAgent({
  model: scriptedModel([
    {
      toolCalls: [
        {
          name: env('PARK_TOOL'),
          arguments: JSON.parse(env('PARK_ARGS')) as Record<string, unknown>,
          id: 'call_parked',
        },
      ],
    },
    { text: 'not reached: the run parks first' },
  ]),
  mcpServers: JSON.parse(env('PARK_SERVERS')) as Record<string, McpServerConfig>,
  policy: options,
  sessionStore: store,
});
const result = await agent.send('Do the parked call.', { sessionId: env('PARK_SESSION') });
await agent.close();
store.close();
if (result.status !== 'parked') throw new Error(`the run did not park: ${result.status}`);
process.stdout.write(`PARKED ${JSON.stringify(result.waits)}\n`);
