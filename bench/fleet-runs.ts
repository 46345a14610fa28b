/**
 * The short run the worker fleet benchmark measures (bench/worker-fleet.ts), the same in the
 * bench process and in each worker process (bench/fleet-worker.ts): a scripted model that
 * calls the call-log server's counting tool once with the run's input as its id, then
 * answers; the server is a real stdio process that notes every call it runs in a file, so
 * double executions are counted server-side.
 */
import { fileURLToPath } from 'node:url';
import type { Agent, ModelClient, ModelRequest, SessionStore } from '../src/index.js';
import { muster } from './muster.js';

const SERVER = fileURLToPath(new URL('../test/fixtures/mcp/call-log-server.mjs', import.meta.url));

/** The run's id for the tool: the text of its first user message. */
function inputOf(request: ModelRequest): string {
  const first = request.messages.find((m) => m.role === 'user');
  const part = first?.role === 'user' ? first.content[0] : undefined;
  return part?.type === 'text' ? part.text : 'unknown';
}

/**
 * A scripted model for any number of concurrent runs: the first turn calls the counting tool,
 * the turn after its result answers (the turn is chosen from the request, not from a list
 * shared by all runs).
 */
function countingModel(): ModelClient {
  return {
    specificationVersion: 'muster-model-v1',
    provider: 'scripted',
    defaultModelName: 'scripted',
    generate: (request, options) =>
      muster
        .scriptedModel([
          request.messages.at(-1)?.role === 'tool'
            ? { text: 'done' }
            : {
                toolCalls: [
                  { name: 'mcp__tally__count', arguments: { id: inputOf(request) }, id: 'call_1' },
                ],
              },
        ])
        .generate(request, options),
  };
}

/** An agent on `store` whose runs each call the counting tool once (its log is `log`). */
export function countingAgent(store: SessionStore, log: string): Agent {
  return muster.createAgent({
    model: countingModel(),
    mcpServers: { tally: { command: process.execPath, args: [SERVER, `--log=${log}`] } },
    mcp: { strictConfig: true },
    policy: { allow: ['mcp_connect:tally', 'mcp__tally__count'] },
    sessionStore: store,
  });
}
