import { archiveToolResult, CONTEXT_TOOL_NAME } from '../context/index.js';
import { ToolCatalog } from '../tools/index.js';
import type {
  CatalogEntry,
  ExecutorRunContext,
  NormalizedToolResult,
  ToolCallEnvironment,
  ToolExecutor,
} from '../tools/index.js';
import type { SessionStore } from '../session/index.js';
import type { AgentScope } from './agent-scope.js';
import { guardStore } from './store-guard.js';

/** The tools of one run, fixed when it starts. */
export interface RunTools {
  readonly catalog: ToolCatalog;
  /** Archives large and binary results; set when the catalog has a source whose results are archived. */
  readonly finishResult?: ToolCallEnvironment['finishResult'];
}

/** Sources whose results are archived (large projections, media) and paged with `context`. */
function isArchivedSource(entry: CatalogEntry): boolean {
  return entry.info.source === 'mcp';
}

/**
 * Sets up the tools of one run: every executor prepares (MCP connects and refreshes), the
 * catalog is fixed, and the built-in tools the catalog calls for are added (the `context`
 * tool, when a source's results are archived). Archive references are recorded through
 * `store`, the run's leased view of the session store.
 */
export async function prepareRunTools(
  runtime: AgentScope,
  ctx: ExecutorRunContext,
  store: SessionStore = runtime.store,
): Promise<RunTools> {
  for (const e of runtime.executors) if (e.prepareRun) await e.prepareRun(ctx);
  const isVisible = (e: CatalogEntry) =>
    runtime.policy.isVisible({
      kind: 'tool',
      name: e.name,
      ...(e.info.server !== undefined ? { server: e.info.server } : {}),
      ...(e.info.originalName !== undefined ? { originalName: e.info.originalName } : {}),
    });
  const sources = await ToolCatalog.build(runtime.executors, isVisible);
  if (!sources.entries().some(isArchivedSource)) return { catalog: sources };
  const builtins: ToolExecutor[] = [runtime.contextTool];
  const catalog = await sources.extend(builtins);
  return { catalog, finishResult: archiver(runtime, ctx.sessionId, store) };
}

function archiver(
  runtime: AgentScope,
  sessionId: string,
  store: SessionStore,
): NonNullable<ToolCallEnvironment['finishResult']> {
  return async (result, entry, call) => {
    if (entry.name === CONTEXT_TOOL_NAME && entry.info.source === 'builtin') return result;
    const archived = await archiveToolResult(result as NormalizedToolResult, {
      sessionId,
      toolName: entry.name,
      callId: call.callId,
      thresholdBytes: runtime.archiveThresholdBytes,
      store: runtime.archive,
    });
    if (archived.refs.length > 0) {
      await guardStore(sessionId, 'save the archive references', () =>
        store.update(sessionId, { appendArchiveRefs: archived.refs }),
      );
    }
    return archived.result;
  };
}
