import type { ModelClient } from '../model/index.js';
import type { PolicyOptions } from '../policy/index.js';
import type { Tool } from '../tools/index.js';
import type { Hooks } from './agent-options.js';
import type { Limits } from './limits.js';
import {
  arrayOf,
  assertValid,
  hasMethods,
  isFunction,
  isObject,
  isString,
  oneOrMany,
  optional,
  shape,
} from '../util/index.js';
import type { Check } from '../util/index.js';

/**
 * What `agent.child()` takes (SPEC section 3). What is not given is inherited from the
 * parent: the model (and its name, unless the child brings its own model), the system prompt,
 * the limits. A child borrows its parent's tool sources; it can only narrow them.
 */
export interface ChildAgentOptions {
  /**
   * The child's name in traces (`gen_ai.agent.name`, its run spans `invoke_agent <name>`); a
   * child never takes its parent's `observability.agentName`. Without one, a run made through
   * the child's `asTool({ name })` is named after the tool.
   */
  readonly name?: string;
  /** The child's system prompt; the parent's when absent. */
  readonly system?: string;
  /** The model name; the parent's when absent (unless `model` is given: then that model's default). */
  readonly modelName?: string;
  /** The child's model; the parent's when absent. */
  readonly model?: ModelClient;
  /**
   * The child's own policy layer, asked before the parent's: `visibleTools` narrows what the
   * child sees of its parent's tools (it never widens it), `deny`, `rules`, `allow` and
   * `approve` only add restrictions. Without `default`, a layer with `approve` asks and a
   * layer without one defers to the parent (`'allow'` at this layer).
   */
  readonly policy?: PolicyOptions;
  /** Limits replacing the parent's, one by one (they may be larger: limits are not permissions). */
  readonly limits?: Partial<Limits>;
  /**
   * The child's own host tools (`tool()`, or another agent's `asTool()`): only the child sees
   * them, under its own `visibleTools`; their calls still pass every ancestor's authorization.
   */
  readonly tools?: readonly Tool[];
  /** The child's tool hooks, run before its parent's (which still run). */
  readonly hooks?: Pick<Hooks, 'beforeTool' | 'afterTool'>;
}

const childOptions = shape({
  name: optional(isString(/^.{1,200}$/s, '1-200 characters')),
  system: optional(isString()),
  modelName: optional(isString(/^.{1,200}$/s, '1-200 characters')),
  model: optional(hasMethods(['generate'], 'a ModelClient with generate()')),
  // their keys and values are checked where they are built (ToolPolicy, resolveLimits)
  policy: optional(isObject),
  limits: optional(isObject),
  tools: optional(arrayOf(isObject)),
  hooks: optional(
    shape({
      beforeTool: optional(oneOrMany(isFunction)),
      afterTool: optional(oneOrMany(isFunction)),
    }),
  ),
} satisfies Record<keyof ChildAgentOptions, Check>);

/** Checks child options; unknown keys (elicitation hooks, MCP servers...) fail with `INVALID_CONFIGURATION`. */
export function validateChildOptions(options: unknown): ChildAgentOptions {
  assertValid(options ?? {}, childOptions, 'child agent options');
  return (options ?? {}) as ChildAgentOptions;
}
