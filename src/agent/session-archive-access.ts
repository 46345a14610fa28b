import { archiveToolResult, CONTEXT_MAX_LENGTH } from '../context/index.js';
import type { ContextPage } from '../context/index.js';
import { normalizeToolReturn } from '../tools/index.js';
import type { ToolResult, ToolReturn } from '../tools/index.js';
import type { AgentScope } from './agent-scope.js';

/** One item a result was archived as: its reference (valid in its session only) and size. */
export interface ArchivedResultRef {
  readonly ref: string;
  readonly kind: 'text' | 'binary';
  readonly mimeType: string;
  /** UTF-8 bytes of a text item, decoded bytes of a binary one. */
  readonly totalBytes: number;
}

/** A tool result as a run would hand it to the model, with what was archived of it. */
export interface ArchivedToolResult {
  /** The model-facing result: a preview and a note per archived item, when any was archived. */
  readonly result: ToolResult;
  /** The archived items, in order (empty when the result was small enough and had no media). */
  readonly archived: readonly ArchivedResultRef[];
}

/** Where to read an archived item: a byte offset and at most `length` bytes (1 to 65536). */
export interface ArchiveReadOptions {
  readonly offset?: number;
  readonly length?: number;
}

/**
 * Projects a result of a call made outside a run (a console's direct tool call) as a run
 * does (`normalizeToolReturn`), and archives it in `sessionId`'s archive as a run would
 * (content over `mcp.archiveThresholdBytes`, and media).
 */
export async function archiveDirectResult(
  runtime: AgentScope,
  sessionId: string,
  value: ToolReturn,
  call: { readonly toolName: string; readonly callId: string },
): Promise<ArchivedToolResult> {
  const normalized = normalizeToolReturn(value, call.toolName);
  const { result, refs } = await archiveToolResult(normalized, {
    sessionId,
    toolName: call.toolName,
    callId: call.callId,
    thresholdBytes: runtime.archiveThresholdBytes,
    store: runtime.archive,
  });
  const archived: ArchivedResultRef[] = [];
  for (const ref of refs) {
    const item = await runtime.archive.get(sessionId, ref);
    if (item)
      archived.push({ ref, kind: item.kind, mimeType: item.mimeType, totalBytes: item.bytes });
  }
  return { result, archived };
}

/**
 * One page of an archived item of `sessionId` (as the `context` tool reads it), or
 * `undefined` when the session has no item `ref` (a ref of another session included).
 * A bad offset or length fails with `TOOL_ARGUMENTS_INVALID`.
 */
export async function readArchivePage(
  runtime: AgentScope,
  sessionId: string,
  ref: string,
  options: ArchiveReadOptions = {},
): Promise<ContextPage | undefined> {
  if ((await runtime.archive.get(sessionId, ref)) === undefined) return undefined;
  return runtime.contextTool.read(sessionId, {
    ref,
    ...(options.offset !== undefined ? { offset: options.offset } : {}),
    length: Math.min(options.length ?? CONTEXT_MAX_LENGTH, CONTEXT_MAX_LENGTH),
  });
}

/** An archived item of a session, without its payload: which call produced it, and its size. */
export interface ArchivedItemSummary extends ArchivedResultRef {
  readonly toolName: string;
  readonly callId: string;
}

/**
 * The archived items of `sessionId`, oldest first (of one call with `callId`), without their
 * payloads; empty when the archive cannot list (a custom `ArchiveStore` without `list`).
 */
export async function listArchived(
  runtime: AgentScope,
  sessionId: string,
  callId?: string,
): Promise<ArchivedItemSummary[]> {
  const items = (await runtime.archive.list?.(sessionId)) ?? [];
  return items
    .filter((i) => callId === undefined || i.callId === callId)
    .map((i) => ({
      ref: i.ref,
      kind: i.kind,
      mimeType: i.mimeType,
      totalBytes: i.bytes,
      toolName: i.toolName,
      callId: i.callId,
    }));
}
