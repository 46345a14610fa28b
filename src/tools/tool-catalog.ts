import { MusterError } from '../errors/index.js';
import type { ModelToolDefinition } from '../model/index.js';
import { isValidToolName } from './naming.js';
import type {
  ToolAnnotations,
  ToolDefinition,
  ToolExecutor,
  ToolInfo,
  JsonSchema,
} from './tool-types.js';

/** One tool in a run's catalog, with the executor that serves it. */
export interface CatalogEntry {
  /** The model-facing name. */
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly annotations?: ToolAnnotations;
  readonly info: ToolInfo;
  readonly executor: ToolExecutor;
  /** True when the source reported a change since this entry was listed. */
  readonly stale?: boolean;
}

const EXECUTOR_INFO: ToolInfo = Object.freeze({ source: 'executor' });

/**
 * The tools of one run, fixed when the run starts: later changes to any source apply from the
 * next run, so a schema is never swapped mid-run. Names are unique (`TOOL_NAME_CONFLICT`).
 */
export class ToolCatalog {
  readonly #entries: ReadonlyMap<string, CatalogEntry>;
  readonly #visible: readonly CatalogEntry[];
  readonly #visibleNames: ReadonlySet<string>;

  readonly #isVisible: (entry: CatalogEntry) => boolean;

  private constructor(
    entries: Map<string, CatalogEntry>,
    isVisible: (entry: CatalogEntry) => boolean,
  ) {
    this.#entries = entries;
    this.#isVisible = isVisible;
    this.#visible = Object.freeze([...entries.values()].filter(isVisible));
    this.#visibleNames = new Set(this.#visible.map((e) => e.name));
  }

  /**
   * Lists every executor's tools and fixes them as one catalog. Invalid names or input schemas
   * fail with `INVALID_CONFIGURATION`; duplicates with `TOOL_NAME_CONFLICT`.
   */
  static async build(
    executors: readonly ToolExecutor[],
    isVisible: (entry: CatalogEntry) => boolean = () => true,
  ): Promise<ToolCatalog> {
    return new ToolCatalog(await addListings(new Map(), executors), isVisible);
  }

  /**
   * A new catalog with these executors' tools added after this one's, under the same
   * visibility rule and the same checks (for built-in tools a run adds once it knows its sources).
   */
  async extend(executors: readonly ToolExecutor[]): Promise<ToolCatalog> {
    return new ToolCatalog(await addListings(new Map(this.#entries), executors), this.#isVisible);
  }

  /** The entry for a model-facing name, visible or not. */
  get(name: string): CatalogEntry | undefined {
    return this.#entries.get(name);
  }

  /** Every entry, in listing order. */
  entries(): readonly CatalogEntry[] {
    return [...this.#entries.values()];
  }

  /** The entries the model may see and call. */
  visibleEntries(): readonly CatalogEntry[] {
    return this.#visible;
  }

  /** True when the model may see and call `name`. */
  isVisible(name: string): boolean {
    return this.#visibleNames.has(name);
  }

  /** The visible tools in the shape model requests use. */
  modelTools(): ModelToolDefinition[] {
    return this.#visible.map((e) => ({
      name: e.name,
      description: e.description,
      inputSchema: e.inputSchema,
    }));
  }
}

function checkDefinition(def: ToolDefinition): void {
  if (!def || typeof def.name !== 'string' || !isValidToolName(def.name)) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `A tool source listed an invalid tool name ${JSON.stringify(def?.name)}: names must be 1-64 letters, digits, '_' or '-'.`,
    );
  }
  const schema = def.inputSchema as { type?: unknown } | undefined;
  if (typeof schema !== 'object' || schema === null || schema.type !== 'object') {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `Tool '${def.name}' has an input schema that is not an object schema ({ "type": "object", ... }): fix the tool definition.`,
      { details: { tool: def.name } },
    );
  }
}

async function addListings(
  entries: Map<string, CatalogEntry>,
  executors: readonly ToolExecutor[],
): Promise<Map<string, CatalogEntry>> {
  const listed = await Promise.all(executors.map((e) => e.listTools()));
  for (const [i, defs] of listed.entries()) {
    const executor = executors[i]!;
    for (const { def, info } of inStableOrder(executor, defs)) {
      checkDefinition(def);
      if (entries.has(def.name)) {
        throw new MusterError(
          'TOOL_NAME_CONFLICT',
          `Two tool sources both offer a tool named '${def.name}': rename or remove one.`,
          { details: { tool: def.name } },
        );
      }
      entries.set(def.name, {
        name: def.name,
        description: def.description,
        inputSchema: def.inputSchema,
        ...(def.outputSchema ? { outputSchema: def.outputSchema } : {}),
        ...(def.annotations ? { annotations: def.annotations } : {}),
        info,
        executor,
      });
    }
  }
  return entries;
}

/**
 * One executor's tools in an order that is the same on every run (the model sees a stable
 * tool list, which keeps provider prompt caches warm): grouped by server, servers by name,
 * each server's tools in the server's own order. A source with several servers (MCP) lists
 * them in the order they connected, which varies; tools without a server keep their order.
 */
function inStableOrder(
  executor: ToolExecutor,
  defs: readonly ToolDefinition[],
): { def: ToolDefinition; info: ToolInfo }[] {
  const withInfo = defs.map((def) => ({
    def,
    info: executor.getToolInfo?.(def?.name) ?? EXECUTOR_INFO,
  }));
  return withInfo.sort((a, b) => compareServers(a.info.server, b.info.server));
}

function compareServers(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  return a < b ? -1 : 1;
}
