import { MusterError } from '../../errors/index.js';
import { assertValid, checkedElsewhere, shape } from '../../util/index.js';
import type {
  CallToolResultLike,
  InferOutput,
  StandardSchemaV1Like,
  ToolAnnotations,
  ToolProgress,
} from '../../tools/index.js';

/** The keys of `sdkTool()`'s extras and of `createSdkMcpServer()`'s options; others are refused. */
const EXTRAS_KEYS = shape({ annotations: checkedElsewhere });
const SERVER_KEYS = shape({
  name: checkedElsewhere,
  version: checkedElsewhere,
  tools: checkedElsewhere,
});

const SDK_SERVER = Symbol.for('muster.sdk-mcp-server');
const SDK_TOOL = Symbol.for('muster.sdk-tool');

/** What an in-process tool handler receives besides its arguments. */
export interface SdkToolContext {
  /** Fires when the caller cancels the call. */
  readonly signal: AbortSignal;
  /**
   * Reports progress to the caller (a `tool.progress` event in Muster), in the form of
   * `tool()`'s `ctx.reportProgress({ progress, total?, message? })`.
   */
  reportProgress(progress: ToolProgress): Promise<void>;
  /** @deprecated The positional form; use `reportProgress({ progress, total, message })`. */
  reportProgress(progress: number, total?: number, message?: string): Promise<void>;
}

/** What {@link sdkTool} takes as input schema: a Zod raw shape, or an object Standard Schema. */
export type SdkInputSchema =
  | StandardSchemaV1Like
  | { readonly [key: string]: StandardSchemaV1Like };

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The arguments of a raw shape: a field whose output admits `undefined` is optional. */
type ShapeArgs<S> = Simplify<
  {
    [K in keyof S as undefined extends InferOutput<S[K]> ? never : K]: InferOutput<S[K]>;
  } & {
    [K in keyof S as undefined extends InferOutput<S[K]> ? K : never]?: InferOutput<S[K]>;
  }
>;

/** The arguments a handler of {@link sdkTool} receives for input schema `S`. */
export type SdkToolArgs<S> = S extends StandardSchemaV1Like
  ? InferOutput<S>
  : S extends { readonly [key: string]: StandardSchemaV1Like }
    ? ShapeArgs<S>
    : Record<string, unknown>;

/** One tool of an in-process server, made by {@link sdkTool}. */
export interface SdkToolDefinition {
  readonly [SDK_TOOL]: true;
  readonly name: string;
  readonly description: string;
  /** A Zod raw shape (`{ a: z.string() }`) or an object Standard Schema (`z.object({...})`). */
  readonly inputSchema: object;
  readonly annotations?: ToolAnnotations;
  readonly handler: (
    args: never,
    ctx: SdkToolContext,
  ) => Promise<CallToolResultLike> | CallToolResultLike;
}

/** An in-process MCP server definition; one definition serves any number of connections. */
export interface SdkMcpServer {
  readonly [SDK_SERVER]: true;
  readonly name: string;
  readonly version: string;
  readonly tools: readonly SdkToolDefinition[];
}

/**
 * Defines one tool of an in-process MCP server. The handler's arguments are typed from the
 * schema (a Zod raw shape or an object Standard Schema), as `tool()` types them.
 *
 * @example
 * ```ts
 * const greet = sdkTool('greet', 'Greets someone.', { name: z.string() }, async ({ name }) => ({
 *   content: [{ type: 'text', text: `Hello, ${name}!` }],
 * }), { annotations: { readOnlyHint: true } });
 * ```
 */
export function sdkTool<S extends SdkInputSchema>(
  name: string,
  description: string,
  inputSchema: S,
  handler: (
    args: SdkToolArgs<S>,
    ctx: SdkToolContext,
  ) => Promise<CallToolResultLike> | CallToolResultLike,
  extras: { readonly annotations?: ToolAnnotations } = {},
): SdkToolDefinition {
  if (typeof name !== 'string' || name === '' || name.length > 128) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `sdkTool: invalid tool name ${JSON.stringify(name)}: use 1-128 characters.`,
    );
  }
  if (typeof inputSchema !== 'object' || inputSchema === null) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `sdkTool '${name}': the input schema must be a Zod shape or an object schema.`,
    );
  }
  if (typeof handler !== 'function') {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `sdkTool '${name}': the handler must be a function.`,
    );
  }
  assertValid(extras, EXTRAS_KEYS, `sdkTool '${name}' extras`);
  return Object.freeze({
    [SDK_TOOL]: true as const,
    name,
    description: String(description ?? ''),
    inputSchema,
    ...(extras.annotations ? { annotations: { ...extras.annotations } } : {}),
    handler: handler as SdkToolDefinition['handler'],
  });
}

/**
 * Defines an in-process MCP server: a real MCP server (the official `McpServer`) reached
 * without a child process. Use it as `mcpServers: { name: { type: 'sdk', server } }`.
 */
export function createSdkMcpServer(options: {
  readonly name: string;
  readonly version?: string;
  readonly tools?: readonly SdkToolDefinition[];
}): SdkMcpServer {
  if (typeof options?.name !== 'string' || options.name === '') {
    throw new MusterError('INVALID_CONFIGURATION', 'createSdkMcpServer needs a name.');
  }
  assertValid(options, SERVER_KEYS, `createSdkMcpServer '${options.name}' options`);
  const tools = options.tools ?? [];
  const seen = new Set<string>();
  for (const t of tools) {
    if ((t as Partial<SdkToolDefinition>)?.[SDK_TOOL] !== true) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `createSdkMcpServer '${options.name}': every tool must be made with sdkTool().`,
      );
    }
    if (seen.has(t.name)) {
      throw new MusterError(
        'TOOL_NAME_CONFLICT',
        `createSdkMcpServer '${options.name}': two tools are named '${t.name}'.`,
      );
    }
    seen.add(t.name);
  }
  return Object.freeze({
    [SDK_SERVER]: true as const,
    name: options.name,
    version: options.version ?? '1.0.0',
    tools: Object.freeze([...tools]),
  });
}

/** True for a value made by {@link createSdkMcpServer}. */
export function isSdkMcpServer(value: unknown): value is SdkMcpServer {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Partial<SdkMcpServer>)[SDK_SERVER] === true
  );
}
