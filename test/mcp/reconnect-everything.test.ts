import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { AgentEvent, McpEvent, McpReconnectOptions } from '../../src/index.js';
import { referenceServerBin } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';
import { EventLog } from './reconnect-events.js';

// The reference server-everything over Streamable HTTP, killed (SIGKILL) and started again
// on the same port, between two runs and during one.

/** A server-everything process listening on `port`. */
interface Everything {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  kill(): Promise<void>;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Starts server-everything on `port`; resolves once it is listening. */
async function startEverything(port: number): Promise<Everything> {
  const bin = referenceServerBin('@modelcontextprotocol/server-everything');
  const child = spawn(process.execPath, [bin, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stderr! });
  const seen: string[] = [];
  await new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => {
      seen.push(line);
      if (/listening on port/i.test(line)) resolve();
    });
    child.once('exit', (code) =>
      reject(new Error(`server-everything exited (${code}): ${seen.join('\n')}`)),
    );
  });
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  running.add(kill);
  return { child, exited, kill };
}

const running = new Set<() => Promise<void>>();
const agents: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) await a.close().catch(() => undefined);
  for (const kill of [...running]) await kill();
  running.clear();
});

const ECHO = 'mcp__everything__echo';
const SLOW = 'mcp__everything__trigger-long-running-operation';

function agentFor(
  url: string,
  reconnect: McpReconnectOptions | undefined,
  steps: Parameters<typeof scriptedModel>[0],
  log: EventLog,
) {
  const agent = createAgent({
    model: scriptedModel(steps),
    mcp: { strictConfig: true, ...(reconnect ? { reconnect } : {}) },
    mcpServers: { everything: { type: 'http', url } },
    policy: { allow: ['mcp_connect:everything', 'mcp__everything'] },
    observability: { onEvent: (e: AgentEvent) => log.push(e as McpEvent) },
  });
  agents.push(agent);
  return agent;
}

const echoRun = (message: string) => [
  { toolCalls: [{ name: ECHO, arguments: { message } }] },
  { text: 'done' },
];

describe.each<[string, McpReconnectOptions | undefined]>([
  ['reconnect at the next use (default)', undefined],
  [
    'background reconnect with health checks',
    {
      enabled: true,
      initialDelayMs: 100,
      maxDelayMs: 1_000,
      maxAttempts: 30,
      healthCheckIntervalMs: 200,
    },
  ],
])('server-everything killed and restarted between two runs: %s', (_label, reconnect) => {
  it('the second run works with no host action', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    let server = await startEverything(port);
    const log = new EventLog();
    const agent = agentFor(url, reconnect, [...echoRun('one'), ...echoRun('two')], log);

    const first = await collect(agent.run({ input: 'one' }));
    expect(first.error).toBeUndefined();
    expect(ofType(first.events, 'tool.completed')[0]).toMatchObject({
      isError: false,
      content: 'Echo: one',
    });

    const noticed = reconnect ? log.status('everything', 'reconnecting') : undefined;
    await server.kill();
    await noticed; // with health checks, the loss is noticed before the next run
    server = await startEverything(port);

    const second = await collect(agent.run({ input: 'two' }));
    expect(second.error).toBeUndefined();
    expect(ofType(second.events, 'tool.completed')[0]).toMatchObject({
      isError: false,
      executed: true,
      content: 'Echo: two',
    });
    expect(agent.mcp.list()[0]).toMatchObject({ status: 'connected' });
  });
});

describe('server-everything killed during a run', () => {
  it('the call in flight is TOOL_OUTCOME_UNKNOWN at once; the server is back within the backoff bound', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const server = await startEverything(port);
    const reconnect = { enabled: true, initialDelayMs: 100, maxDelayMs: 1_000, maxAttempts: 30 };
    const log = new EventLog();
    const agent = agentFor(
      url,
      reconnect,
      [{ toolCalls: [{ name: SLOW, arguments: { duration: 20, steps: 20 } }] }, { text: 'done' }],
      log,
    );
    const progressed = log.next(
      (e) => (e as AgentEvent).type === 'tool.progress',
      'progress of the slow tool',
    );
    const run = collect(agent.run({ input: 'slow' }));
    await progressed; // the call is running on the server
    const lost = log.status('everything', 'reconnecting');
    const completed = log.next(
      (e) => (e as AgentEvent).type === 'tool.completed',
      'the slow call to end',
    ) as Promise<unknown> as Promise<Extract<AgentEvent, { type: 'tool.completed' }>>;
    const killedAt = performance.now();
    await server.kill();
    const done = await completed;
    const detection = log.arrivedAt(done) - killedAt;
    expect(done).toMatchObject({
      toolName: SLOW,
      isError: true,
      errorCode: 'TOOL_OUTCOME_UNKNOWN',
    });
    expect(detection).toBeLessThan(1_000);
    const { error } = await run;
    expect(error).toBeUndefined(); // the run survives: the model read the unknown outcome

    await lost;
    expect(agent.mcp.list()[0]!.status).toBe('reconnecting');
    const back = log.status('everything', 'connected');
    await startEverything(port);
    const restartedAt = performance.now();
    const reconnected = log.arrivedAt(await back) - restartedAt;
    // the longest wait between attempts is maxDelayMs (jitter only shortens it), then one
    // connect with the remembered verdict
    expect(reconnected).toBeLessThan(reconnect.maxDelayMs + 3_000);
    expect(agent.mcp.list()[0]).toMatchObject({ status: 'connected' });
  });
});
