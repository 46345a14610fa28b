import { MusterError } from '../errors/index.js';
import type { NormalizedToolResult, ToolBlob, ToolResult } from '../tools/index.js';
import { utf8Bytes } from '../util/index.js';
import type { ArchiveStore } from './archive-store.js';
import { CONTEXT_TOOL_NAME } from './context-tool.js';
import { sniffTextMimeType } from './sniff-mime.js';
import { utf8Prefix } from './utf8.js';

/** The default size (UTF-8 bytes of the JSON projection) above which a result is archived. */
export const DEFAULT_ARCHIVE_THRESHOLD_BYTES = 16 * 1024;

/** The default size of the preview the model sees of an archived result, in UTF-8 bytes. */
export const DEFAULT_ARCHIVE_PREVIEW_BYTES = 2048;

/** What {@link archiveToolResult} needs to know about the call and the archive. */
export interface ArchiveToolResultOptions {
  readonly sessionId: string;
  readonly toolName: string;
  readonly callId: string;
  /** Content larger than this many UTF-8 bytes is archived; content of exactly this size is not. */
  readonly thresholdBytes: number;
  readonly store: ArchiveStore;
  /** How much of archived content the model sees, in UTF-8 bytes. Default 2048. */
  readonly previewBytes?: number;
}

/** The model-facing result after archiving, and the refs of what was archived, in order. */
export interface ArchiveToolResultOutcome {
  readonly result: ToolResult;
  readonly refs: string[];
}

/**
 * Archives what a tool result should not carry to the model in full: content over
 * `thresholdBytes` (stored whole, replaced by a preview and a note with its ref) and every blob
 * (stored as binary, replaced by a note). When it archives anything, it also keeps the whole
 * projection of an MCP result whose `structuredContent` the model-facing text left out
 * (`whole`), as one more JSON item with a note. `media` (bounded images), `isError` and `structured`
 * stay; `blobs` and `whole` never reach the returned result. A result under the threshold without blobs is
 * returned as it is, with no refs.
 *
 * @example
 * ```ts
 * const { result, refs } = await archiveToolResult(normalized, {
 *   sessionId, toolName: 'search', callId, thresholdBytes: DEFAULT_ARCHIVE_THRESHOLD_BYTES, store,
 * });
 * // result.content: '<first 2 KiB>\n[archived: ref=ref_…, 102400 bytes, application/json. …]'
 * ```
 */
export async function archiveToolResult(
  result: NormalizedToolResult,
  options: ArchiveToolResultOptions,
): Promise<ArchiveToolResultOutcome> {
  const previewBytes = options.previewBytes ?? DEFAULT_ARCHIVE_PREVIEW_BYTES;
  checkSize('previewBytes', previewBytes);
  const kept = unarchivedResult(result, options.thresholdBytes);
  if (kept) return { result: kept, refs: [] };
  const blobs = result.blobs ?? [];
  const totalBytes = utf8Bytes(result.content);
  const archiveText = totalBytes > options.thresholdBytes;

  const base = {
    sessionId: options.sessionId,
    toolName: options.toolName,
    callId: options.callId,
  };
  const refs: string[] = [];
  const parts: string[] = [];
  // the whole result first, so that making room for it never evicts this call's text
  const whole = await putWhole(result, base, options.store);
  if (archiveText) {
    const mimeType = sniffTextMimeType(result.content);
    const item = await options.store.put({
      ...base,
      kind: 'text',
      mimeType,
      bytes: totalBytes,
      text: result.content,
    });
    refs.push(item.ref);
    const preview = utf8Prefix(result.content, previewBytes);
    const shown = utf8Bytes(preview);
    if (preview.length > 0) parts.push(preview);
    parts.push(
      `[archived: ref=${item.ref}, ${totalBytes} bytes, ${mimeType}. ` +
        (shown > 0 ? `The first ${shown} bytes are shown above. ` : '') +
        `Read more with the ${CONTEXT_TOOL_NAME} tool: ${JSON.stringify({ ref: item.ref, offset: shown })}]`,
    );
  } else if (result.content.length > 0) {
    parts.push(result.content);
  }
  if (whole && (await options.store.get(options.sessionId, whole.ref)) !== undefined) {
    refs.push(whole.ref);
    parts.push(
      `[the whole result, with its structuredContent, is archived as JSON: ref=${whole.ref}, ${whole.bytes} bytes]`,
    );
  }
  for (const blob of blobs) {
    const item = await options.store.put({
      ...base,
      kind: 'binary',
      mimeType: blob.mimeType,
      bytes: Buffer.from(blob.data, 'base64').length,
      data: blob.data,
    });
    refs.push(item.ref);
    parts.push(blobNote(blob, item.bytes, item.ref));
  }

  const out: {
    content: string;
    isError?: boolean;
    structured?: unknown;
    media?: ToolResult['media'];
  } = { content: parts.join('\n') };
  if (result.isError !== undefined) out.isError = result.isError;
  if ('structured' in result) out.structured = result.structured;
  if (result.media !== undefined) out.media = result.media;
  return { result: out, refs };
}

/**
 * Keeps `result.whole` (an MCP result whose `structuredContent` the model's text left out) as
 * JSON, best-effort: an archive without room for it (the text would not fit beside it) keeps
 * the text alone, and the note is left out. `undefined` when there is nothing to keep or it
 * could not be kept.
 */
async function putWhole(
  result: NormalizedToolResult,
  base: { sessionId: string; toolName: string; callId: string },
  store: ArchiveStore,
): Promise<{ ref: string; bytes: number } | undefined> {
  if (result.whole === undefined) return undefined;
  const text = JSON.stringify(result.whole);
  try {
    const item = await store.put({
      ...base,
      kind: 'text',
      mimeType: 'application/json',
      bytes: utf8Bytes(text),
      text,
    });
    return { ref: item.ref, bytes: item.bytes };
  } catch {
    return undefined; // too large for the archive's bound: the text is what the model pages
  }
}

/**
 * The model-facing result when {@link archiveToolResult} would archive nothing (content of at
 * most `thresholdBytes` UTF-8 bytes, no blobs), else `undefined`. Synchronous: the tool-call
 * pipeline finishes every small result without an `await` (each one costs the call a turn of
 * the microtask queue inside its `durationMs`).
 *
 * @throws MusterError `INVALID_CONFIGURATION` when `thresholdBytes` is not a whole number >= 0.
 */
export function unarchivedResult(
  result: NormalizedToolResult,
  thresholdBytes: number,
): ToolResult | undefined {
  checkSize('thresholdBytes', thresholdBytes);
  if (result.blobs !== undefined && result.blobs.length > 0) return undefined;
  // the byte count is only needed near the threshold: a UTF-8 byte is at most one UTF-16 unit,
  // and a unit at most three bytes
  const units = result.content.length;
  if (
    units * 3 > thresholdBytes &&
    (units > thresholdBytes || utf8Bytes(result.content) > thresholdBytes)
  )
    return undefined;
  return modelFacing(result);
}

/** `result` without what only the archive keeps (`blobs`, `whole`). */
function modelFacing(result: NormalizedToolResult): ToolResult {
  if (result.blobs === undefined && result.whole === undefined) return result;
  const { blobs: _blobs, whole: _whole, ...rest } = result;
  return rest;
}

function blobNote(blob: ToolBlob, bytes: number, ref: string): string {
  const what = blob.uri === undefined ? blob.mimeType : `${blob.mimeType} (${blob.uri})`;
  return `[archived ${what}, ${bytes} bytes: ref=${ref}]`;
}

function checkSize(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `archiveToolResult: ${name} must be a non-negative integer, got ${String(value)}.`,
      { details: { [name]: value } },
    );
  }
}
