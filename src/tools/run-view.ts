import type { ExecutorRunContext, ToolExecutor } from './tool-types.js';

/**
 * The key under which one of Muster's own executors offers what one run sees of it (the MCP
 * executor: the tools of a principal's own connections, SPEC 15.4). Not exported from the
 * package: a host executor lists the same tools for every run.
 */
export const OWN_RUN_VIEW: unique symbol = Symbol('muster.executor.runView');

/** An executor of Muster's own whose tools depend on the run. */
export interface RunViewSource {
  /** The executor the run with `ctx` lists and calls (after `prepareRun`). */
  [OWN_RUN_VIEW](ctx: ExecutorRunContext): ToolExecutor;
}

/** The executor a run lists and calls: the executor's view for that run, else itself. */
export function executorForRun(executor: ToolExecutor, ctx: ExecutorRunContext): ToolExecutor {
  const source = executor as Partial<RunViewSource>;
  return source[OWN_RUN_VIEW]?.(ctx) ?? executor;
}
