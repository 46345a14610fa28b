/**
 * A small fleet for the studio's fleet tests (SPEC 15.5), on the real PostgreSQL at
 * DATABASE_URL: a real worker (`createWorker`, concurrency 1, its sweep out of the way) with a
 * scripted model and real MCP servers over stdio, on a store schema and a pg-boss schema of
 * its own. Four sessions, each in a known state without any sleep:
 *
 * - `parked`: the run parked on an approval (its call is asked, and nobody answers);
 * - `task`: the run's call became an MCP task of the tasks fixture, and it parked on its task
 *   wait (`mcp.tasks.parkAfterMs` 1);
 * - `running`: the run is inside a call of the slow server that lasts ten minutes, so it holds
 *   its lease (and the worker's only slot) until the fleet stops;
 * - `queued`: its start job waits, since the worker's only slot is busy.
 *
 * Each is enqueued once the previous one reached its state, which the worker's agent reports
 * by its events (`session.parked`, `tool.called`).
 */
import type { Agent, AgentEvent } from '../../src/agent/index.js';
import { createAgent } from '../../src/index.js';
import type { McpServerConfig } from '../../src/mcp/index.js';
import { scriptedModel } from '../../src/model/index.js';
import type { ModelRequest, ToolResultMessage } from '../../src/model/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { createWorker } from '../../src/worker/index.js';
import type { Worker } from '../../src/worker/index.js';
import { startTasksFixture } from '../mcp/tasks/tasks-fixture.js';
import type { TasksFixture } from '../mcp/tasks/tasks-fixture.js';
import { workerDb } from '../worker/worker-db.js';
import type { WorkerDb } from '../worker/worker-db.js';
import { stdioConfig } from './mcp-fixtures.js';

/** What each session's user asks, and the call its model makes first. */
const CALLS: Readonly<Record<string, { name: string; arguments: object }>> = {
  'Park here.': { name: 'mcp__basic__echo', arguments: { text: 'asked, never answered' } },
  'Task here.': { name: 'mcp__t__finish', arguments: { ms: 600_000 } },
  'Hold here.': { name: 'mcp__slow__sleep', arguments: { ms: 600_000 } },
  'Queued work.': { name: 'mcp__basic__add', arguments: { a: 1, b: 2 } },
};

/**
 * The fleet's model (the studio's too): the call its first user message asks for, then,
 * with a tool result in, an answer that quotes it.
 */
export function fleetTurn(request: ModelRequest) {
  const result = request.messages.findLast((m): m is ToolResultMessage => m.role === 'tool');
  if (result) return { text: `finished: ${result.content}` };
  const first = request.messages.find((m) => m.role === 'user');
  const text =
    first?.role === 'user'
      ? first.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')
      : '';
  const call = CALLS[text];
  return call ? { toolCalls: [call] } : { text: 'Nothing to do.' };
}

/** The fleet's four sessions. */
export interface FleetSessions {
  readonly parked: string;
  readonly task: string;
  readonly running: string;
  readonly queued: string;
}

/** A running fleet and what a studio needs to read it. */
export interface StudioFleet {
  readonly db: WorkerDb;
  readonly tasks: TasksFixture;
  /** The servers of the fleet, by the names its calls use (the studio declares the same). */
  readonly servers: Readonly<Record<string, McpServerConfig>>;
  readonly sessions: FleetSessions;
  /** The id of the task session `task` parked on. */
  readonly taskId: string;
  /** The run id that holds `running`'s lease. */
  readonly holder: string;
  /** A new store on the fleet's schema (for the studio); closed by `close()`. */
  store(): PostgresSessionStore;
  /** Stops the worker (the running call is aborted), closes everything, drops the schemas. */
  close(): Promise<void>;
}

/** Starts the fleet and brings its four sessions to their states. */
export async function startStudioFleet(url: string, name: string): Promise<StudioFleet> {
  const db = workerDb(url, name);
  const tasks = await startTasksFixture('stdio');
  const servers: Record<string, McpServerConfig> = {
    basic: stdioConfig('basic-server.mjs'),
    slow: stdioConfig('slow-server.mjs'),
    t: tasks.config,
  };
  const listeners = new Set<(event: AgentEvent) => void>();
  const seen = (sessionId: string, type: string): Promise<AgentEvent> =>
    new Promise((resolve) => {
      const listener = (event: AgentEvent) => {
        if (event.sessionId !== sessionId || event.type !== type) return;
        listeners.delete(listener);
        resolve(event);
      };
      listeners.add(listener);
    });
  const stores: PostgresSessionStore[] = [];
  const workerStore = new PostgresSessionStore({ connectionString: db.url, schema: db.schema });
  stores.push(workerStore);
  let agent: Agent | undefined;
  let worker: Worker | undefined;
  const close = async () => {
    await worker?.stop();
    await agent?.close();
    for (const store of stores) await store.close();
    await tasks.stop();
    await db.drop();
  };
  try {
    agent = createAgent({
      model: scriptedModel(Array.from({ length: 20 }, () => fleetTurn)),
      mcpServers: servers,
      mcp: {
        strictConfig: true,
        tasks: { minPollIntervalMs: 25, maxPollIntervalMs: 100, parkAfterMs: 1 },
      },
      // the echo call is asked, and nobody answers: the run parks
      policy: {
        allow: ['mcp_connect:*', 'mcp__slow__*', 'mcp__t__*'],
        default: 'ask',
        park: true,
      },
      sessionStore: workerStore,
      observability: { onEvent: (event) => listeners.forEach((l) => l(event)) },
    });
    worker = createWorker({
      agent,
      connectionString: db.url,
      schema: db.bossSchema,
      concurrency: 1,
      sweepSeconds: 3600,
    });
    await worker.start();
    const sessions: FleetSessions = {
      parked: `${name}-parked`,
      task: `${name}-task`,
      running: `${name}-running`,
      queued: `${name}-queued`,
    };
    const parked = seen(sessions.parked, 'session.parked');
    await worker.enqueue({ input: 'Park here.', sessionId: sessions.parked });
    await parked;
    const taskParked = seen(sessions.task, 'session.parked');
    await worker.enqueue({ input: 'Task here.', sessionId: sessions.task });
    const { waits } = (await taskParked) as Extract<AgentEvent, { type: 'session.parked' }>;
    const taskId = waits.find((w) => w.kind === 'task')?.task?.taskId;
    if (taskId === undefined) throw new Error('the task session parked on no task wait');
    const called = seen(sessions.running, 'tool.called');
    await worker.enqueue({ input: 'Hold here.', sessionId: sessions.running });
    const holder = (await called).runId;
    // the worker's one slot is busy with the running call: this start job stays queued
    await worker.enqueue({ input: 'Queued work.', sessionId: sessions.queued });
    return {
      db,
      tasks,
      servers,
      sessions,
      taskId,
      holder,
      store: () => {
        const store = new PostgresSessionStore({ connectionString: db.url, schema: db.schema });
        stores.push(store);
        return store;
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
