/**
 * The Tasks extension's client (SEP-2663, SPEC 15.3): its requests on a connection, the
 * poller that follows a task to its end, and the answers to a task's input requests.
 * Internal: the package exposes tasks through `callTool` and `tool.task` events.
 */
export { getTask, updateTask, cancelTask } from './task-requests.js';
export type { TaskRequestOptions } from './task-requests.js';
export { GetTaskResultSchema, TaskAckSchema, TaskStatusSchema } from './task-schemas.js';
export type { DetailedTask } from './task-schemas.js';
export { pollTask, clampPollInterval } from './task-poller.js';
export type { TaskChannel, TaskStatusReport, TaskInputAnswerer } from './task-poller.js';
export { taskInputAnswerer } from './task-input.js';
