import { MusterError, ToolError } from '../errors/index.js';
import { patternEngineOf, validateJsonSchema } from './json-schema-validator.js';
import type {
  ExecutorInitContext,
  ToolDefinition,
  ToolExecutionContext,
  ToolExecutor,
  ToolInfo,
  ToolReturn,
  ValidationOutcome,
} from './tool-types.js';

/**
 * Several executors as one. Names must be unique across them: a duplicate fails with
 * `TOOL_NAME_CONFLICT` when the tools are listed. Calls are routed by the listing made last.
 */
export class CompositeToolExecutor implements ToolExecutor {
  readonly #executors: readonly ToolExecutor[];
  #routes = new Map<string, { executor: ToolExecutor; definition: ToolDefinition }>();

  constructor(executors: readonly ToolExecutor[]) {
    this.#executors = [...executors];
  }

  /** The tools this executor offers now. Called once per run to fix that run's catalog. */
  async listTools(): Promise<readonly ToolDefinition[]> {
    const routes = new Map<string, { executor: ToolExecutor; definition: ToolDefinition }>();
    const all: ToolDefinition[] = [];
    for (const executor of this.#executors) {
      for (const def of await executor.listTools()) {
        if (routes.has(def.name)) {
          throw new MusterError(
            'TOOL_NAME_CONFLICT',
            `Two tool sources both offer a tool named '${def.name}': rename or remove one.`,
            { details: { tool: def.name } },
          );
        }
        routes.set(def.name, { executor, definition: def });
        all.push(def);
      }
    }
    this.#routes = routes;
    return all;
  }

  /** Safe facts about one tool; defaults to `{ source: 'executor' }`. */
  getToolInfo(name: string): ToolInfo | undefined {
    return this.#routes.get(name)?.executor.getToolInfo?.(name);
  }

  /**
   * Validates arguments itself instead of the JSON Schema validator (for example with the
   * Standard Schema a host tool was defined with).
   */
  async validateInput(name: string, input: unknown): Promise<ValidationOutcome> {
    const { executor, definition } = this.#route(name);
    if (executor.validateInput) return executor.validateInput(name, input);
    // a server's tool in a composite keeps RE2 for its patterns
    return validateJsonSchema(
      definition.inputSchema,
      input,
      patternEngineOf(executor.getToolInfo?.(name)),
    );
  }

  /** Runs one call whose arguments already passed validation and policy. */
  execute(
    name: string,
    input: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): Promise<ToolReturn> {
    return this.#route(name).executor.execute(name, input, ctx);
  }

  /** Prepares the executor (connect, discover). Called before the first run. */
  async initialize(ctx?: ExecutorInitContext): Promise<void> {
    await Promise.all(this.#executors.map((e) => e.initialize?.(ctx)));
  }

  /** Releases what the executor holds. Must be idempotent. */
  async close(): Promise<void> {
    await Promise.allSettled(this.#executors.map(async (e) => e.close?.()));
  }

  #route(name: string): { executor: ToolExecutor; definition: ToolDefinition } {
    const route = this.#routes.get(name);
    if (!route)
      throw new ToolError('TOOL_NOT_FOUND', `No tool is named '${name}'.`, { toolName: name });
    return route;
  }
}
