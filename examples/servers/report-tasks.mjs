#!/usr/bin/env node
// A small MCP server (stdio, protocol 2026-07-28) for examples/tasks.ts: `report` is slow, so
// the server answers its call with a task (the Tasks extension, `resultType: "task"`) and
// serves `tasks/get` and `tasks/cancel` from a folder on disk (REPORT_TASKS_STATE), so that
// whichever process of it is asked later knows the task.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { randomUUID } from 'node:crypto';
import { ProtocolError, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const STATE = process.env.REPORT_TASKS_STATE;
if (!STATE) throw new Error('REPORT_TASKS_STATE is required');
const WORK_MS = Number(process.env.REPORT_WORK_MS ?? 1500);

const fileOf = (taskId) => join(STATE, `${taskId.replace(/[^\w-]/g, '_')}.json`);
function load(taskId) {
  if (!existsSync(fileOf(taskId))) throw new ProtocolError(-32602, `Unknown task: ${taskId}`);
  return JSON.parse(readFileSync(fileOf(taskId), 'utf8'));
}
const save = (task) => writeFileSync(fileOf(task.taskId), JSON.stringify(task));
const common = (task) => ({
  taskId: task.taskId,
  createdAt: task.createdAt,
  lastUpdatedAt: task.createdAt,
  ttlMs: 3_600_000,
  pollIntervalMs: 200,
});

/** The official low-level server, with a `tools/call` answer sent as the handler gives it. */
class TaskServer extends Server {
  _wrapHandler(method, handler) {
    return method === 'tools/call' ? handler : super._wrapHandler(method, handler);
  }
}

const taskParams = z.object({ taskId: z.string() }).passthrough();

serveStdio(
  () => {
    const server = new TaskServer(
      { name: 'report-tasks', version: '1.0.0' },
      { capabilities: { tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    );
    server.setRequestHandler('tools/list', async () => ({
      tools: [
        {
          name: 'report',
          description: 'Writes a report on a topic (slow: it runs as a task).',
          inputSchema: { type: 'object', properties: { topic: { type: 'string' } } },
        },
      ],
    }));
    server.setRequestHandler('tools/call', async (request) => {
      const topic = String(request.params.arguments?.topic ?? 'nothing');
      const task = {
        taskId: randomUUID(),
        topic,
        createdAt: new Date().toISOString(),
        readyAt: Date.now() + WORK_MS,
        cancelled: false,
      };
      save(task); // durably created before it is answered
      return { resultType: 'task', ...common(task), status: 'working' };
    });
    server.setRequestHandler('tasks/get', { params: taskParams }, async ({ taskId }) => {
      const task = load(taskId);
      if (task.cancelled) return { ...common(task), status: 'cancelled' };
      if (Date.now() < task.readyAt)
        return { ...common(task), status: 'working', statusMessage: `writing on ${task.topic}` };
      const text = `Report on ${task.topic}: 3 findings, 1 open question.`;
      return {
        ...common(task),
        status: 'completed',
        result: { content: [{ type: 'text', text }] },
      };
    });
    server.setRequestHandler('tasks/cancel', { params: taskParams }, async ({ taskId }) => {
      save({ ...load(taskId), cancelled: true });
      return {};
    });
    return server;
  },
  { legacy: 'reject' },
);
