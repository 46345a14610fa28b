import { UNCHANGED } from './step-commits.js';
import { archiveToolResult, CONTEXT_TOOL_NAME, unarchivedResult } from '../context/index.js';
import { TOOL_SEARCH_TOOL_NAME, ToolCatalog, executorForRun } from '../tools/index.js';
import type {
  CatalogEntry,
  ExecutorRunContext,
  NormalizedToolResult,
  ToolCallEnvironment,
  ToolExecutor,
} from '../tools/index.js';
import type { SessionStore } from '../session/index.js';
import type { AgentScope } from './agent-scope.js';
import { planToolSearch } from './run-tool-search.js';
import type { RunToolView } from './run-tool-view.js';
import { guardStore } from './store-operation.js';
import { toolSubject } from './tool-subject.js';

/** The tools of one run, fixed when it starts. */
export interface RunTools {
  readonly catalog: ToolCatalog;
  /** Archives large and binary results; set when the catalog has a source whose results are archived. */
  readonly finishResult?: ToolCallEnvironment['finishResult'];
  /** What the model is shown of the catalog, turn by turn, when tool search is on. */
  readonly view?: RunToolView;
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
  const isVisible = (e: CatalogEntry) => runtime.policy.isVisible(toolSubject(e));
  // what each source shows this run (the MCP tools of a principal's own connections)
  const executors = runtime.executors.map((e) => executorForRun(e, ctx));
  const sources = await ToolCatalog.build(executors, isVisible);
  const archived = sources.entries().some(isArchivedSource);
  const search = planToolSearch(runtime.options.mcp, runtime.context, sources);
  const builtins: ToolExecutor[] = [];
  if (archived) builtins.push(runtime.contextTool);
  if (search) builtins.push(search.executor);
  if (builtins.length === 0) return { catalog: sources };
  const catalog = await sources.extend(builtins);
  const view = search?.view(catalog);
  return {
    catalog,
    ...(archived ? { finishResult: archiver(runtime, ctx.sessionId, store) } : {}),
    ...(view ? { view } : {}),
  };
}

const BUILTINS_NOT_ARCHIVED: ReadonlySet<string> = new Set([
  CONTEXT_TOOL_NAME,
  TOOL_SEARCH_TOOL_NAME,
]);

function archiver(
  runtime: AgentScope,
  sessionId: string,
  store: SessionStore,
): NonNullable<ToolCallEnvironment['finishResult']> {
  const archive = async (result: NormalizedToolResult, entry: CatalogEntry, callId: string) => {
    const archived = await archiveToolResult(result, {
      sessionId,
      toolName: entry.name,
      callId,
      thresholdBytes: runtime.archiveThresholdBytes,
      store: runtime.archive,
    });
    if (archived.refs.length > 0) {
      await guardStore(sessionId, 'save the archive references', () =>
        store.update(sessionId, { ...UNCHANGED, appendArchiveRefs: archived.refs }),
      );
    }
    return archived.result;
  };
  // a result with nothing to archive (most) is finished at once, not through `await`s
  return (result, entry, call) => {
    // the built-ins' own results are never archived (a search result must stay readable)
    if (entry.info.source === 'builtin' && BUILTINS_NOT_ARCHIVED.has(entry.name)) return result;
    const normalized = result as NormalizedToolResult;
    return (
      unarchivedResult(normalized, runtime.archiveThresholdBytes) ??
      archive(normalized, entry, call.callId)
    );
  };
}
