// The Tasks extension's fixture server (test/fixtures/tasks/tasks-server.ts) as the task
// tests start and read it: its state folder, its request log, its HTTP process.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServerConfig } from '../../../src/index.js';
import { ROOT } from '../../package/built-package.js';
import { runnableScript } from '../../support/ts-script.js';

/** The fixture as a runnable module. */
export const TASKS_SERVER = runnableScript(
  fileURLToPath(new URL('../../fixtures/tasks/tasks-server.ts', import.meta.url)),
);

/** One line of the fixture's `requests.log`. */
export interface LoggedRequest {
  readonly method: string;
  readonly taskId?: string;
  readonly tool?: string;
  /** On `task-created`: whether the request declared the extension (false: forced). */
  readonly declared?: boolean;
  /** On `tasks/get`: the status answered (`not-found`: -32602; `http-<n>`: refused). */
  readonly status?: string;
  /** On `authorized` (HTTP): the request's method and its `Authorization` header. */
  readonly of?: string;
  readonly authorization?: string;
}

/** A fixture's state folder and, over HTTP, its process. */
export interface TasksFixture {
  /** The declaration that reaches it (stdio: a process per connection, on the same state). */
  readonly config: McpServerConfig;
  readonly dir: string;
  /** Every logged request so far. */
  log(): LoggedRequest[];
  /** Marks the work of task `taskId` done now (its state on disk): its next poll completes. */
  finish(taskId: string): void;
  stop(): Promise<void>;
}

/** A fresh state folder, and the fixture over `transport` on it. */
export async function startTasksFixture(
  transport: 'stdio' | 'http',
  env: Record<string, string> = {},
): Promise<TasksFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'muster-tasks-'));
  const fullEnv = { MUSTER_TASKS_STATE: dir, ...env };
  const log = (): LoggedRequest[] => {
    let text = '';
    try {
      text = readFileSync(join(dir, 'requests.log'), 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LoggedRequest);
  };
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  const finish = (taskId: string) => {
    const file = join(dir, `${taskId.replace(/[^\w-]/g, '_')}.json`);
    const task = JSON.parse(readFileSync(file, 'utf8')) as { readyAt: number | null };
    writeFileSync(file, JSON.stringify({ ...task, readyAt: Date.now() }));
  };
  if (transport === 'stdio')
    return {
      config: { command: process.execPath, args: [TASKS_SERVER], env: fullEnv },
      dir,
      log,
      finish,
      stop: async () => cleanup(),
    };
  const child = spawn(process.execPath, [TASKS_SERVER, '--http'], {
    cwd: ROOT,
    env: { ...process.env, ...fullEnv },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const found = /listening (\S+)/.exec(out)?.[1];
      if (found) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`the fixture exited (${code})`)));
  });
  return {
    config: { type: 'http', url },
    dir,
    log,
    finish,
    stop: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          cleanup();
          resolve();
        };
        if (child.exitCode !== null) return done();
        child.once('exit', done);
        child.kill('SIGTERM');
      }),
  };
}

/** The logged requests of `method` for `taskId`. */
export function requestsFor(log: readonly LoggedRequest[], method: string, taskId: string): number {
  return log.filter((r) => r.method === method && r.taskId === taskId).length;
}

/**
 * The tasks of `log` created for a request that declared the extension that reached no end:
 * no terminal status polled (`completed`, `failed`, `cancelled`, or unknown to the server) and
 * no `tasks/cancel`. An empty list: no task was orphaned.
 */
export function unendedTasks(log: readonly LoggedRequest[]): string[] {
  const ended = new Set(
    log
      .filter(
        (r) =>
          r.method === 'tasks/cancel' ||
          (r.method === 'tasks/get' &&
            ['completed', 'failed', 'cancelled', 'not-found'].includes(r.status ?? '')),
      )
      .map((r) => r.taskId),
  );
  return log
    .filter((r) => r.method === 'task-created' && r.declared === true && !ended.has(r.taskId))
    .map((r) => r.taskId!);
}
