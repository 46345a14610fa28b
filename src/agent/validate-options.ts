import { z } from 'zod';
import { MusterError } from '../errors/index.js';
import type { AgentOptions, RunRequest } from './agent-options.js';

const fn = z.custom<(...args: never[]) => unknown>(
  (v) => typeof v === 'function',
  'must be a function',
);
const obj = z.custom<object>((v) => typeof v === 'object' && v !== null, 'must be an object');
const modelClient = z.custom<object>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    (v as { specificationVersion?: unknown }).specificationVersion === 'muster-model-v1' &&
    typeof (v as { generate?: unknown }).generate === 'function',
  "must be a ModelClient (specificationVersion 'muster-model-v1' with generate())",
);
const executor = z.custom<object>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { listTools?: unknown }).listTools === 'function' &&
    typeof (v as { execute?: unknown }).execute === 'function',
  'must be a ToolExecutor with listTools() and execute()',
);
const store = z.custom<object>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    ['create', 'get', 'update', 'delete'].every(
      (k) => typeof (v as Record<string, unknown>)[k] === 'function',
    ),
  'must be a SessionStore with create, get, update and delete',
);
const hookList = z.union([fn, z.array(fn)]);
const reasoning = z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']);
const name = z.string().min(1).max(200);

const agentOptionsSchema = z.strictObject({
  model: modelClient.optional(),
  modelName: name.optional(),
  system: z.string().optional(),
  workdir: z.string().min(1).optional(),
  tools: z.array(obj).optional(),
  toolExecutor: executor.optional(),
  policy: obj.optional(),
  hooks: z
    .strictObject({ beforeTool: hookList.optional(), afterTool: hookList.optional() })
    .optional(),
  sessionStore: store.optional(),
  limits: obj.optional(),
  observability: z.strictObject({ onEvent: fn.optional(), onError: fn.optional() }).optional(),
});

const imagePart = z.strictObject({
  type: z.literal('image'),
  data: z
    .string()
    .min(1)
    .regex(/^[A-Za-z0-9+/]+=*$/, 'must be base64 without a data: prefix')
    .optional(),
  url: z
    .string()
    .regex(/^(https:|data:)/, 'must be an https: or data: URL')
    .optional(),
  mimeType: z.string().regex(/^image\/[A-Za-z0-9.+-]+$/, 'must be an image/* type'),
});
const runRequestSchema = z.strictObject({
  input: z.string().optional(),
  inputContent: z
    .array(z.union([z.strictObject({ type: z.literal('text'), text: z.string() }), imagePart]))
    .min(1)
    .optional(),
  sessionId: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,200}$/, "must be 1-200 of letters, digits, '.', '_', ':' or '-'")
    .optional(),
  modelName: name.optional(),
  system: z.string().optional(),
  stream: z.boolean().optional(),
  signal: z
    .custom<AbortSignal>((v) => v instanceof AbortSignal, 'must be an AbortSignal')
    .optional(),
  limits: obj.optional(),
  reasoningEffort: reasoning.optional(),
});

function fail(what: string, error: z.ZodError): never {
  const issues = error.issues
    .slice(0, 5)
    .map(
      (i) =>
        `${i.path.length > 0 ? i.path.join('.') : '(root)'}: ${i.code === 'unrecognized_keys' ? `unknown key(s) ${i.keys.join(', ')}` : i.message}`,
    )
    .join('; ');
  throw new MusterError('INVALID_CONFIGURATION', `Invalid ${what}: ${issues}.`, {
    details: { issues: error.issues.map((i) => ({ path: i.path.map(String), code: i.code })) },
  });
}

/** Checks agent options; unknown keys and wrong types fail with `INVALID_CONFIGURATION`. */
export function validateAgentOptions(options: unknown): AgentOptions {
  const parsed = agentOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) fail('agent options', parsed.error);
  return options as AgentOptions;
}

/** Checks a run request; unknown keys and wrong types fail with `INVALID_CONFIGURATION`. */
export function validateRunRequest(request: unknown): RunRequest {
  const parsed = runRequestSchema.safeParse(request);
  if (!parsed.success) fail('run request', parsed.error);
  const r = request as RunRequest;
  for (const part of r.inputContent ?? []) {
    if (part.type === 'image' && (part.data === undefined) === (part.url === undefined)) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        'Invalid run request: an image part needs exactly one of data or url.',
      );
    }
  }
  if (r.input === undefined && r.inputContent === undefined) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'Invalid run request: give input (text) or inputContent.',
    );
  }
  return r;
}
