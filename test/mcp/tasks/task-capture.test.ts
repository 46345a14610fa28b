import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { McpError } from '../../../src/errors/index.js';
import { McpConnection } from '../../../src/mcp/client/mcp-connection.js';
import type { ConnectMode } from '../../../src/mcp/client/mcp-connection.js';
import type { McpServerConfig } from '../../../src/mcp/contracts/config-types.js';
import { cancelTask, getTask } from '../../../src/mcp/tasks/index.js';
import type { DetailedTask } from '../../../src/mcp/tasks/index.js';
import { ROOT } from '../../package/built-package.js';
import { runnableScript } from '../../support/ts-script.js';

// The foundation of the Tasks extension (SPEC 15.3) against a real server process, over stdio
// and Streamable HTTP: a `tools/call` answered with a task is captured by the transport below
// the official client and comes back as the server's handle; `tasks/get` and `tasks/cancel`
// go through the client's request API; a task on a legacy connection is an invalid response.

const SERVER = runnableScript(
  fileURLToPath(new URL('../../fixtures/tasks/tasks-server.ts', import.meta.url)),
);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

/** A fresh state folder for the fixture. */
function stateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'muster-tasks-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The requests the fixture counted, by method. */
function counts(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  let text = '';
  try {
    text = readFileSync(join(dir, 'requests.log'), 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n').filter(Boolean)) {
    const { method } = JSON.parse(line) as { method: string };
    out[method] = (out[method] ?? 0) + 1;
  }
  return out;
}

/** Starts the fixture over HTTP as its own process; resolves to its URL. */
async function startHttp(env: Record<string, string>): Promise<string> {
  const child: ChildProcess = spawn(process.execPath, [SERVER, '--http'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  );
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const url = /listening (\S+)/.exec(out)?.[1];
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`the fixture exited (${code})`)));
  });
}

type Transport = 'stdio' | 'http';

async function open(
  transport: Transport,
  dir: string,
  options: { tasks?: boolean; mode?: ConnectMode; force?: boolean } = {},
): Promise<McpConnection> {
  const env: Record<string, string> = {
    MUSTER_TASKS_STATE: dir,
    ...(options.force ? { MUSTER_TASKS_FORCE: '1' } : {}),
  };
  const config: McpServerConfig =
    transport === 'stdio'
      ? { command: process.execPath, args: [SERVER], env }
      : { type: 'http', url: await startHttp(env) };
  const connection = await McpConnection.open({
    server: 'tasks',
    config,
    mode: options.mode ?? 'auto',
    transport: { server: 'tasks', maxResponseBytes: 1 << 20, stderrBytes: 4096 },
    connectTimeoutMs: 20_000,
    tasks: options.tasks ?? true,
    onToolsChanged: () => undefined,
    onUnexpectedClose: () => undefined,
  });
  cleanups.push(() => connection.close());
  return connection;
}

/** Polls `tasks/get` at the server's interval until the task ends. */
async function pollToEnd(connection: McpConnection, taskId: string): Promise<DetailedTask> {
  for (;;) {
    const task = await getTask(connection, taskId, { timeoutMs: 5_000 });
    if (task.status !== 'working' && task.status !== 'input_required') return task;
    await new Promise((resolve) => setTimeout(resolve, task.pollIntervalMs ?? 50));
  }
}

describe.each(['stdio', 'http'] as const)('the Tasks extension over %s', (transport) => {
  it('a tools/call answered with a task gives the server’s handle; tasks/get polls it to its result', async () => {
    const dir = stateDir();
    const connection = await open(transport, dir);
    expect(connection.tasksOffered).toBe(true);

    const answer = await connection.callToolOrTask(
      'finish',
      { ms: 150, text: 'all done' },
      { signal: new AbortController().signal, timeoutMs: 10_000 },
    );

    expect(answer.kind).toBe('task');
    if (answer.kind !== 'task') return;
    const { task } = answer;
    // the id the server stored is the one the capture kept
    expect(readFileSync(join(dir, `${task.taskId}.json`), 'utf8')).toContain(task.taskId);
    expect(task).toMatchObject({ status: 'working', ttlMs: 60_000, pollIntervalMs: 50 });
    expect(typeof task.requestId).toBe('number');

    const done = await pollToEnd(connection, task.taskId);
    expect(done).toMatchObject({
      taskId: task.taskId,
      status: 'completed',
      result: { content: [{ type: 'text', text: 'all done' }] },
    });
    const seen = counts(dir);
    expect(seen['tools/call']).toBe(1);
    expect(seen['tasks/get']).toBeGreaterThanOrEqual(2);
    // over HTTP every tasks/* request carried `Mcp-Name: <taskId>`
    expect(seen['header-mismatch']).toBeUndefined();
  });

  it('a failed task reports its error; tasks/cancel is sent once and counted once', async () => {
    const dir = stateDir();
    const connection = await open(transport, dir);
    const signal = new AbortController().signal;

    const failing = await connection.callToolOrTask(
      'fail',
      { ms: 100 },
      { signal, timeoutMs: 10_000 },
    );
    if (failing.kind !== 'task') throw new Error('expected a task');
    expect(await pollToEnd(connection, failing.task.taskId)).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'the work failed' },
    });

    const long = await connection.callToolOrTask(
      'finish',
      { ms: 60_000 },
      { signal, timeoutMs: 10_000 },
    );
    if (long.kind !== 'task') throw new Error('expected a task');
    await cancelTask(connection, long.task.taskId, { timeoutMs: 5_000 });
    expect(await getTask(connection, long.task.taskId, { timeoutMs: 5_000 })).toMatchObject({
      status: 'cancelled',
    });
    expect(counts(dir)['tasks/cancel']).toBe(1);
    expect(counts(dir)['header-mismatch']).toBeUndefined();
  });

  it('an unknown task id is the server’s -32602', async () => {
    const connection = await open(transport, stateDir());
    await expect(getTask(connection, 'no-such-task', { timeoutMs: 5_000 })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('a CreateTaskResult on a legacy connection is an invalid response', async () => {
    const dir = stateDir();
    const connection = await open(transport, dir, { mode: { pin: '2025-11-25' }, force: true });
    expect(connection.era).toBe('legacy');
    expect(connection.tasksOffered).toBe(false);

    const error = await connection
      .callToolOrTask(
        'finish',
        { ms: 100 },
        { signal: new AbortController().signal, timeoutMs: 10_000 },
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );

    expect(McpError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'MCP_OPERATION_FAILED',
      details: { reason: 'invalid-response', method: 'tools/call' },
    });
    // and no tasks/* request may go there
    await expect(getTask(connection, 'x', { timeoutMs: 5_000 })).rejects.toMatchObject({
      code: 'MCP_EXTENSION_UNSUPPORTED',
    });
    expect(counts(dir)['tasks/get']).toBeUndefined();
  });

  it('without the extension declared, a task answer is an invalid response too', async () => {
    const connection = await open(transport, stateDir(), { tasks: false, force: true });
    expect(connection.era).toBe('modern');
    expect(connection.tasksOffered).toBe(false);
    await expect(
      connection.callToolOrTask(
        'finish',
        { ms: 100 },
        { signal: new AbortController().signal, timeoutMs: 10_000 },
      ),
    ).rejects.toMatchObject({ details: { reason: 'invalid-response' } });
  });
});
