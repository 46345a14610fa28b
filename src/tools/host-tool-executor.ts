import { MusterError, ToolError } from '../errors/index.js';
import { OWN_EXECUTOR_FACTS } from './executor-facts.js';
import type { OwnExecutorFacts } from './executor-facts.js';
import { formatIssues } from './json-schema-validator.js';
import { validateStandard } from './standard-schema.js';
import { isTool } from './tool.js';
import type { Tool } from './tool.js';
import { normalizeToolReturn } from './tool-result.js';
import type {
  ToolDefinition,
  ToolExecutionContext,
  ToolExecutor,
  ToolInfo,
  ToolReturn,
  ValidationOutcome,
} from './tool-types.js';

const HOST_INFO: ToolInfo = Object.freeze({ source: 'host' });
const STABLE_LISTING: OwnExecutorFacts = Object.freeze({ stableListing: true });

/**
 * Serves host tools made by `tool()`: validates arguments with each tool's own Standard
 * Schema (so transforms and defaults apply) and checks structured output against `output`.
 */
export class HostToolExecutor implements ToolExecutor {
  readonly #tools = new Map<string, Tool>();
  readonly #definitions: readonly ToolDefinition[];

  constructor(tools: readonly Tool[]) {
    // its listing is fixed now (`OwnExecutorFacts.stableListing`); a host's subclass may
    // answer `getToolInfo` otherwise, so it states nothing. Not a declared member: the key
    // stays out of the public type.
    if (new.target === HostToolExecutor)
      Object.defineProperty(this, OWN_EXECUTOR_FACTS, { value: STABLE_LISTING });
    for (const t of tools) {
      if (!isTool(t)) {
        throw new MusterError(
          'INVALID_CONFIGURATION',
          'Every entry of tools must be made with tool({ name, description, input, execute }).',
        );
      }
      if (this.#tools.has(t.name)) {
        throw new MusterError(
          'TOOL_NAME_CONFLICT',
          `Two host tools are named '${t.name}': rename one.`,
          {
            details: { tool: t.name },
          },
        );
      }
      this.#tools.set(t.name, t);
    }
    this.#definitions = Object.freeze(
      tools.map(
        (t): ToolDefinition => ({
          name: t.name,
          description: t.description,
          inputSchema: t.inputJsonSchema,
          ...(t.outputJsonSchema ? { outputSchema: t.outputJsonSchema } : {}),
          ...(t.annotations ? { annotations: t.annotations } : {}),
        }),
      ),
    );
  }

  /** The tools this executor offers now. Called once per run to fix that run's catalog. */
  listTools(): readonly ToolDefinition[] {
    return this.#definitions;
  }

  /** Safe facts about one tool; defaults to `{ source: 'executor' }`. */
  getToolInfo(): ToolInfo {
    return HOST_INFO;
  }

  /**
   * Validates arguments itself instead of the JSON Schema validator (for example with the
   * Standard Schema a host tool was defined with).
   */
  async validateInput(name: string, input: unknown): Promise<ValidationOutcome> {
    return validateStandard(this.#get(name).input, input);
  }

  /** Runs one call whose arguments already passed validation and policy. */
  async execute(
    name: string,
    input: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): Promise<ToolReturn> {
    const t = this.#get(name);
    const returned = await t.execute(input as never, ctx);
    if (!t.output) return returned;
    const result = normalizeToolReturn(returned, name);
    if (result.isError) return result;
    if (result.structured === undefined) {
      throw new ToolError(
        'TOOL_EXECUTION_FAILED',
        `Tool '${name}' declares an output schema but returned no structured output: return { content, structured }.`,
        { toolName: name },
      );
    }
    const checked = await validateStandard(t.output, result.structured);
    if (!checked.success) {
      throw new ToolError(
        'TOOL_EXECUTION_FAILED',
        `Tool '${name}' returned structured output that does not match its output schema: ${formatIssues(checked.issues)}.`,
        { toolName: name },
      );
    }
    return { ...result, structured: checked.value };
  }

  #get(name: string): Tool {
    const t = this.#tools.get(name);
    if (!t)
      throw new ToolError('TOOL_NOT_FOUND', `No host tool is named '${name}'.`, { toolName: name });
    return t;
  }
}
