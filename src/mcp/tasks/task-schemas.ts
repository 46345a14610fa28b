import { z } from 'zod';

// The results of the Tasks extension's requests (SEP-2663; the `ext-tasks` schema of
// 2026-07-28), as the official client hands them over: `resultType` already taken off, `_meta`
// and unknown fields kept (a later revision may add some).

/** A task's status. */
export const TaskStatusSchema = z.enum([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);

const TaskFields = {
  taskId: z.string().min(1),
  statusMessage: z.string().optional(),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  ttlMs: z.number().nonnegative().nullable(),
  pollIntervalMs: z.number().nonnegative().optional(),
};

/** A JSON-RPC error object (a `failed` task's `error`). */
const ErrorObjectSchema = z.looseObject({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});

/** `tasks/get`'s result: the task in one of its five shapes, by `status`. */
export const GetTaskResultSchema = z.discriminatedUnion('status', [
  z.looseObject({ ...TaskFields, status: z.literal('working') }),
  z.looseObject({
    ...TaskFields,
    status: z.literal('input_required'),
    inputRequests: z.record(z.string(), z.unknown()),
  }),
  z.looseObject({
    ...TaskFields,
    status: z.literal('completed'),
    result: z.record(z.string(), z.unknown()),
  }),
  // `error` is required by the extension; a server that leaves it out still failed the task
  z.looseObject({
    ...TaskFields,
    status: z.literal('failed'),
    error: ErrorObjectSchema.optional(),
  }),
  z.looseObject({ ...TaskFields, status: z.literal('cancelled') }),
]);

/** A task as `tasks/get` reports it. */
export type DetailedTask = z.infer<typeof GetTaskResultSchema>;

/** `tasks/update`'s and `tasks/cancel`'s result: an empty acknowledgement. */
export const TaskAckSchema = z.looseObject({});

/**
 * A `completed` task's `result` as a `CallToolResult`: `content` an array of typed blocks
 * (absent: none), `isError` a boolean when present; everything else kept.
 */
export const TaskToolResultSchema = z.looseObject({
  content: z.array(z.looseObject({ type: z.string() })).default([]),
  isError: z.boolean().optional(),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
});
