import { McpError } from '../../errors/index.js';
import type { McpConnection } from '../client/mcp-connection.js';
import { clientErrorOf } from '../failures/client-errors.js';
import { invalidResponseError } from '../failures/connection-errors.js';
import { GetTaskResultSchema, TaskAckSchema } from './task-schemas.js';
import type { DetailedTask } from './task-schemas.js';

/** The bounds of one task request. */
export interface TaskRequestOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/**
 * Refuses a task request on a connection that does not speak the Tasks extension, unsent
 * (`MCP_EXTENSION_UNSUPPORTED`): a legacy connection, or one that did not declare it.
 */
function assertTasks(connection: McpConnection, method: string): void {
  if (connection.tasksOffered) return;
  throw new McpError(
    'MCP_EXTENSION_UNSUPPORTED',
    `Server "${connection.server}" cannot take ${method}: the connection does not speak the Tasks extension (it needs protocol 2026-07-28 over stdio or Streamable HTTP)`,
    { server: connection.server, details: { server: connection.server, extension: 'tasks' } },
  );
}

/**
 * Sends one request of the extension through the official client's `request(req, schema)`
 * (2.4.0 sends `tasks/*` on 2026-07-28 connections, with the `Mcp-Name` header set to the task
 * id over Streamable HTTP), within the connection's tracking of requests in flight.
 */
async function send<T>(
  connection: McpConnection,
  method: 'tasks/get' | 'tasks/update' | 'tasks/cancel',
  params: Record<string, unknown>,
  schema: unknown,
  options: TaskRequestOptions,
): Promise<T> {
  assertTasks(connection, method);
  try {
    return await connection.request(
      (client) =>
        client.request({ method, params } as never, schema as never, {
          timeout: options.timeoutMs,
          ...(options.signal ? { signal: options.signal } : {}),
        }) as Promise<T>,
    );
  } catch (err) {
    // an answer that does not match the extension's schema (a status no revision defines)
    const fact = clientErrorOf(err);
    if (fact?.kind === 'sdk' && fact.code === 'INVALID_RESULT')
      throw invalidResponseError(
        connection.server,
        method,
        'its result does not match the Tasks extension',
      );
    throw err;
  }
}

/**
 * `tasks/get`: the task's state now (one of five shapes by `status`). A server that does not
 * know the id answers `-32602`, which rejects as the client's `ProtocolError`.
 */
export function getTask(
  connection: McpConnection,
  taskId: string,
  options: TaskRequestOptions,
): Promise<DetailedTask> {
  return send(connection, 'tasks/get', { taskId }, GetTaskResultSchema, options);
}

/** `tasks/update`: answers to the task's `inputRequests`, by their keys (acknowledged only). */
export async function updateTask(
  connection: McpConnection,
  taskId: string,
  inputResponses: Readonly<Record<string, unknown>>,
  options: TaskRequestOptions,
): Promise<void> {
  await send(connection, 'tasks/update', { taskId, inputResponses }, TaskAckSchema, options);
}

/** `tasks/cancel`: asks the server to stop the task (cooperative: it may still finish). */
export async function cancelTask(
  connection: McpConnection,
  taskId: string,
  options: TaskRequestOptions,
): Promise<void> {
  await send(connection, 'tasks/cancel', { taskId }, TaskAckSchema, options);
}
