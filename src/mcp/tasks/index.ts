/**
 * The Tasks extension's client (SEP-2663, SPEC 15.3): its requests on a connection. Internal:
 * nothing here is public yet.
 */
export { getTask, updateTask, cancelTask } from './task-requests.js';
export type { TaskRequestOptions } from './task-requests.js';
export { GetTaskResultSchema, TaskAckSchema, TaskStatusSchema } from './task-schemas.js';
export type { DetailedTask } from './task-schemas.js';
