import { MusterError } from '../errors/index.js';
import { executorFacts } from './executor-facts.js';
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
  /** The catalog this one extends (its entries come first), if any. */
  readonly #base: ToolCatalog | undefined;
  /** This catalog's own entries (all of them when it extends none). */
  readonly #own: ReadonlyMap<string, CatalogEntry>;
  readonly #visible: readonly CatalogEntry[];
  readonly #ownVisibleNames: ReadonlySet<string>;
  readonly #isVisible: (entry: CatalogEntry) => boolean;
  #all: readonly CatalogEntry[] | undefined;

  private constructor(
    own: Map<string, CatalogEntry>,
    isVisible: (entry: CatalogEntry) => boolean,
    base?: ToolCatalog,
  ) {
    this.#base = base;
    this.#own = own;
    this.#isVisible = isVisible;
    const { visible, names } = visibleOf(own, isVisible);
    this.#ownVisibleNames = names;
    // the base decided its own entries under the same rule: they are not asked again
    this.#visible = base ? Object.freeze([...base.#visible, ...visible]) : visible;
  }

  /**
   * Lists every executor's tools and fixes them as one catalog. Invalid names or input schemas
   * fail with `INVALID_CONFIGURATION`; duplicates with `TOOL_NAME_CONFLICT`.
   */
  static async build(
    executors: readonly ToolExecutor[],
    isVisible: (entry: CatalogEntry) => boolean = () => true,
  ): Promise<ToolCatalog> {
    return new ToolCatalog(await listingsOf(executors), isVisible);
  }

  /**
   * A new catalog with these executors' tools added after this one's, under the same
   * visibility rule and the same checks (for built-in tools a run adds once it knows its
   * sources). This catalog's entries are neither copied nor judged again.
   */
  async extend(executors: readonly ToolExecutor[]): Promise<ToolCatalog> {
    const own = collect(await partsOf(executors), (name) => this.get(name) !== undefined);
    return new ToolCatalog(own, this.#isVisible, this);
  }

  /** The entry for a model-facing name, visible or not. */
  get(name: string): CatalogEntry | undefined {
    return this.#own.get(name) ?? this.#base?.get(name);
  }

  /** Every entry, in listing order. */
  entries(): readonly CatalogEntry[] {
    return (this.#all ??= Object.freeze([
      ...(this.#base ? this.#base.entries() : []),
      ...this.#own.values(),
    ]));
  }

  /** The entries the model may see and call. */
  visibleEntries(): readonly CatalogEntry[] {
    return this.#visible;
  }

  /** True when the model may see and call `name`. */
  isVisible(name: string): boolean {
    return this.#ownVisibleNames.has(name) || this.#base?.isVisible(name) === true;
  }

  /** The visible tools in the shape model requests use. */
  modelTools(): ModelToolDefinition[] {
    return this.#visible.map(modelToolOf);
  }
}

/**
 * The model-facing definition of an entry, made once per entry: entries of an unchanged
 * listing are the same objects run after run (see `entriesOf`), and so are these.
 */
const MODEL_TOOLS = new WeakMap<CatalogEntry, ModelToolDefinition>();

/** An entry in the shape model requests use (the same object for the same entry). */
export function modelToolOf(entry: CatalogEntry): ModelToolDefinition {
  let tool = MODEL_TOOLS.get(entry);
  if (tool === undefined) {
    // frozen: every request of every run over this entry gets this object
    tool = Object.freeze({
      name: entry.name,
      description: entry.description,
      inputSchema: entry.inputSchema,
    });
    MODEL_TOOLS.set(entry, tool);
  }
  return tool;
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

/** What the entries of one map showed the last time a catalog was made over it. */
interface Shown {
  readonly visible: readonly CatalogEntry[];
  readonly names: ReadonlySet<string>;
}
const SHOWN = new WeakMap<ReadonlyMap<string, CatalogEntry>, Shown>();

/**
 * The entries of `own` that `isVisible` shows, frozen, and their names. Every entry is asked
 * every time (two policies, a parent's and a child's, may share the entries); when the answers
 * are those of the last catalog over the same map (a run over an unchanged listing), that
 * catalog's array and set are given again.
 */
function visibleOf(
  own: ReadonlyMap<string, CatalogEntry>,
  isVisible: (entry: CatalogEntry) => boolean,
): Shown {
  const prior = SHOWN.get(own)?.visible;
  let fresh: CatalogEntry[] | undefined = prior ? undefined : [];
  let same = 0;
  for (const entry of own.values()) {
    if (!isVisible(entry)) continue;
    if (fresh === undefined) {
      if (prior![same] === entry) {
        same++;
        continue;
      }
      fresh = prior!.slice(0, same);
    }
    fresh.push(entry);
  }
  if (fresh === undefined && same === prior!.length) return SHOWN.get(own)!;
  fresh ??= prior!.slice(0, same);
  const shown = { visible: Object.freeze(fresh), names: new Set(fresh.map((e) => e.name)) };
  SHOWN.set(own, shown);
  return shown;
}

/**
 * The last map built over a list of executors (keyed by the first), with the entries of each
 * it was built from: given again while every executor gives the same entries.
 */
const MAPS = new WeakMap<
  ToolExecutor,
  { parts: readonly (readonly CatalogEntry[])[]; map: Map<string, CatalogEntry> }
>();

/**
 * Every executor's entries in one map by name (`TOOL_NAME_CONFLICT` for a name listed twice).
 * When each executor is one of Muster's own with an unchanged listing, the map of the last
 * catalog built over the same executors is given again (catalogs never change their maps).
 */
async function listingsOf(executors: readonly ToolExecutor[]): Promise<Map<string, CatalogEntry>> {
  const parts = await partsOf(executors);
  const first = executors[0];
  const last = first && MAPS.get(first);
  if (last && last.parts.length === parts.length && last.parts.every((p, i) => p === parts[i]))
    return last.map;
  const map = collect(parts);
  const reused =
    first !== undefined && parts.every((p, i) => BUILT.get(executors[i]!)?.entries === p);
  if (reused) MAPS.set(first, { parts, map });
  return map;
}

/** The entries last built from an executor's stable listing, with that listing. */
const BUILT = new WeakMap<
  ToolExecutor,
  { defs: readonly ToolDefinition[]; entries: readonly CatalogEntry[] }
>();

/** Each executor's entries (see {@link entriesOf}), in the order of `executors`. */
async function partsOf(executors: readonly ToolExecutor[]): Promise<(readonly CatalogEntry[])[]> {
  const listed = await Promise.all(executors.map((e) => e.listTools()));
  return listed.map((defs, i) => entriesOf(executors[i]!, defs));
}

/** `parts` in one map by name; a name listed twice, or `taken`, is a conflict. */
function collect(
  parts: readonly (readonly CatalogEntry[])[],
  taken: (name: string) => boolean = () => false,
): Map<string, CatalogEntry> {
  const entries = new Map<string, CatalogEntry>();
  for (const part of parts) {
    for (const entry of part) {
      if (entries.has(entry.name) || taken(entry.name)) {
        throw new MusterError(
          'TOOL_NAME_CONFLICT',
          `Two tool sources both offer a tool named '${entry.name}': rename or remove one.`,
          { details: { tool: entry.name } },
        );
      }
      entries.set(entry.name, entry);
    }
  }
  return entries;
}

/**
 * The checked entries of one executor's listing, in a stable order. One of Muster's own
 * executors whose listing has not changed since an earlier run (the same frozen array, see
 * `OwnExecutorFacts.stableListing`) gets the entries built then: every run's catalog is
 * fixed at its start, and most runs start with the tools the last one had.
 */
function entriesOf(
  executor: ToolExecutor,
  defs: readonly ToolDefinition[],
): readonly CatalogEntry[] {
  const stable = Object.isFrozen(defs) && executorFacts(executor).stableListing === true;
  const built = stable ? BUILT.get(executor) : undefined;
  if (built?.defs === defs) return built.entries;
  const made = inStableOrder(executor, defs).map(({ def, info }): CatalogEntry => {
    checkDefinition(def);
    return {
      name: def.name,
      description: def.description,
      inputSchema: def.inputSchema,
      ...(def.outputSchema ? { outputSchema: def.outputSchema } : {}),
      ...(def.annotations ? { annotations: def.annotations } : {}),
      info,
      executor,
    };
  });
  if (stable) BUILT.set(executor, { defs, entries: made });
  return made;
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
