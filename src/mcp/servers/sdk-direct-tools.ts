// The tools of an in-process server as the official `McpServer` would serve them, without it.
import { isStandardSchema } from '../../tools/index.js';
import type { StandardSchemaV1Like } from '../../tools/index.js';
import { isPromiseLike, once } from '../../util/index.js';
import type { SdkMcpServer, SdkToolDefinition } from './sdk-server.js';

/** Zod 4, loaded for the first definition with a raw shape (one shared promise). */
const loadZod = once(() => import('zod/v4'));

/** One tool of a definition, ready to be listed and called directly. */
export interface DirectTool {
  readonly definition: SdkToolDefinition;
  readonly schema: StandardSchemaV1Like;
  /** Its `tools/list` entry, as a client reads it off the wire. */
  readonly listed: Record<string, unknown>;
}

type ZodV4 = { object(shape: object): StandardSchemaV1Like };

/** The JSON Schema draft the official server exports tool schemas in. */
const TARGET = 'draft-2020-12';

/**
 * The tools of `definition`, converted once per definition as the official server converts
 * them (`normalizeRawShapeSchema`, `standardSchemaToJsonSchema`): a Zod raw shape is wrapped
 * in `z.object` (the `zod/v4` module the server uses), the JSON Schema gets `type: 'object'`
 * at its root. A schema the server would refuse makes this throw, as the server's
 * registration would.
 */
export async function directToolsOf(
  definition: SdkMcpServer,
  era: 'modern' | 'legacy',
): Promise<Map<string, DirectTool>> {
  const cache = era === 'modern' ? MODERN_CACHE : LEGACY_CACHE;
  const cached = cache.get(definition);
  if (cached) return cached;
  const needsZod = definition.tools.some((t) => !isStandardSchema(t.inputSchema));
  const z = needsZod ? ((await loadZod()) as unknown as ZodV4) : undefined;
  const tools = new Map<string, DirectTool>();
  for (const t of definition.tools) {
    const schema = isStandardSchema(t.inputSchema) ? t.inputSchema : z!.object(t.inputSchema);
    const json = inputJsonSchema(schema);
    const entry = {
      name: t.name,
      description: t.description,
      inputSchema: ordered(json, era === 'modern' ? ['$schema', 'type'] : INPUT_2025, true),
      annotations: t.annotations
        ? ordered(t.annotations as Record<string, unknown>, ANNOTATIONS, false)
        : undefined,
    };
    // the wire drops what is undefined: the listing is what a client reads
    tools.set(t.name, { definition: t, schema, listed: JSON.parse(JSON.stringify(entry)) });
  }
  cache.set(definition, tools);
  return tools;
}

const MODERN_CACHE = new WeakMap<SdkMcpServer, Map<string, DirectTool>>();
const LEGACY_CACHE = new WeakMap<SdkMcpServer, Map<string, DirectTool>>();

/** The keys the client's wire schemas declare, in their order (the client re-parses listings). */
const INPUT_2025 = ['type', 'properties', 'required'];
const ANNOTATIONS = ['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];

/**
 * `value` with the `declared` keys first, in their order, as the client's schema parse
 * returns it; the other keys follow in their own order (`loose`) or are dropped.
 */
function ordered(
  value: Readonly<Record<string, unknown>>,
  declared: readonly string[],
  loose: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of declared) if (value[k] !== undefined) out[k] = value[k];
  if (loose) for (const [k, v] of Object.entries(value)) if (!(k in out)) out[k] = v;
  return out;
}

function inputJsonSchema(schema: StandardSchemaV1Like): Record<string, unknown> {
  const std = schema['~standard'];
  if (!std.jsonSchema) {
    throw new Error(
      `Schema library "${std.vendor}" does not implement StandardJSONSchemaV1 (\`~standard.jsonSchema\`).`,
    );
  }
  const result = std.jsonSchema.input({ target: TARGET });
  if (result.type !== undefined && result.type !== 'object') {
    throw new Error(
      `MCP tool and prompt schemas must describe objects (got type: ${JSON.stringify(result.type)}). Wrap your schema in z.object({...}) or equivalent.`,
    );
  }
  return { type: 'object', ...result };
}

/**
 * Validates arguments with the tool's own schema: the parsed value, or the text of the
 * official server's `Input validation error` (issues as `path: message`, comma-joined).
 */
export async function validateArguments(
  tool: DirectTool,
  args: unknown,
): Promise<{ readonly value: unknown } | { readonly error: string }> {
  let result = tool.schema['~standard'].validate(args ?? {});
  // any thenable, not only a native promise: a result still to come is never read as one
  if (isPromiseLike(result)) result = await result;
  if (result.issues === undefined || result.issues.length === 0)
    return { value: (result as { value: unknown }).value };
  return {
    error: `Input validation error: Invalid arguments for tool ${tool.definition.name}: ${issuesText(result.issues)}`,
  };
}

/** Schema issues as the official SDK words them: `path: message`, comma-joined. */
export function issuesText(
  issues: ReadonlyArray<{
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>;
  }>,
): string {
  return issues
    .map((i) => {
      const path = (i.path ?? []).map((p) =>
        String(typeof p === 'object' && p !== null ? p.key : p),
      );
      return path.length > 0 ? `${path.join('.')}: ${i.message}` : i.message;
    })
    .join(', ');
}

/**
 * A handler's result as the official server projects it for the negotiated era: structured
 * content that is not an object gets a text fallback (when no text block is there), and the
 * 2025 era wraps it as `{ result }`; a result without content gets `[]`.
 */
export function projectResult(
  raw: Record<string, unknown>,
  era: 'modern' | 'legacy',
): Record<string, unknown> {
  let result = raw;
  const sc = result.structuredContent;
  if (sc !== undefined && (typeof sc !== 'object' || sc === null || Array.isArray(sc))) {
    const content = (result.content as { type?: unknown }[] | undefined) ?? [];
    if (!content.some((c) => c.type === 'text'))
      result = { ...result, content: [...content, { type: 'text', text: JSON.stringify(sc) }] };
    if (era === 'legacy') result = { ...result, structuredContent: { result: sc } };
  }
  return result.content === undefined ? { ...result, content: [] } : result;
}

/** The modern era's stamp of the server's name and version into a result's `_meta`. */
export function stampServerInfo(
  result: Record<string, unknown>,
  serverInfo: { readonly name: string; readonly version: string },
): Record<string, unknown> {
  const meta = result._meta;
  if (meta === undefined) return { ...result, _meta: { [SERVER_INFO]: { ...serverInfo } } };
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return result;
  if ((meta as Record<string, unknown>)[SERVER_INFO] !== undefined) return result;
  return { ...result, _meta: { ...meta, [SERVER_INFO]: { ...serverInfo } } };
}

const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** The official server's result for a tool that failed: its message as an error result. */
export function errorResult(error: unknown): Record<string, unknown> {
  return {
    content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
    isError: true,
  };
}
