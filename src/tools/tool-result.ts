import { isDeepStrictEqual } from 'node:util';
import { ToolError } from '../errors/index.js';
import type { ToolErrorCode } from '../errors/index.js';
import type { ImagePart } from '../model/index.js';
import { dataDepth, MAX_DATA_DEPTH, utf8Bytes } from '../util/index.js';
import type { CallToolResultLike, ToolResult, ToolReturn } from './tool-types.js';

/** Binary data a tool returned: an MCP `image`, `audio`, or embedded `resource` with a `blob`. */
export interface ToolBlob {
  readonly kind: 'image' | 'audio' | 'resource';
  readonly mimeType: string;
  /** Base64 data, without a `data:` prefix. */
  readonly data: string;
  /** The resource's URI, for embedded resources. */
  readonly uri?: string;
}

/**
 * The whole JSON projection of an MCP `CallToolResult`: every content block (text as text,
 * binary data as its size) and `structuredContent`, as the archive keeps it.
 */
export interface CallToolProjection {
  readonly content: readonly unknown[];
  readonly structuredContent?: unknown;
}

/**
 * A {@link ToolResult} as {@link normalizeToolReturn} produces it. `blobs` keeps the binary
 * payloads the JSON projection in `content` only describes, and `whole` the complete projection
 * when the model-facing `content` leaves out a `structuredContent` its text already carries, so
 * the session archive can keep them; neither is model-facing or persisted with the transcript.
 */
export interface NormalizedToolResult extends ToolResult {
  readonly blobs?: readonly ToolBlob[];
  readonly whole?: CallToolProjection;
}

type MutableResult = {
  content: string;
  isError?: boolean;
  structured?: unknown;
  media?: ImagePart[];
  blobs?: ToolBlob[];
  whole?: CallToolProjection;
};

/** More string values than this in `structuredContent` are shown, not matched to blocks. */
const MAX_CARRIED_VALUES = 64;
/** More nodes than this in `structuredContent` end the matching: the value is shown. */
const MAX_CARRIED_NODES = 1024;

const BLOB_KINDS: ReadonlySet<unknown> = new Set(['image', 'audio', 'resource']);

/** The error result the model reads for a failed call: `Error [CODE]: message`. */
export function errorResult(code: ToolErrorCode, message: string): ToolResult {
  return { content: `Error [${code}]: ${message}`, isError: true };
}

/** True for an MCP `CallToolResult`-shaped value. */
export function isCallToolResult(value: unknown): value is CallToolResultLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { content?: unknown }).content)
  );
}

/**
 * Normalizes what a tool returned into a {@link NormalizedToolResult}: a string is the
 * content; a `ToolResult` is checked (and keeps well-formed `blobs` it carries); an MCP
 * `CallToolResult` is projected (text kept as text, images forwarded as media, links and
 * embedded resources as JSON metadata, `structuredContent` kept as `structured`, and the data of
 * images, audio and embedded binary resources kept in `blobs`). The model reads the text once,
 * and `structuredContent` only where the text does not carry it (one text block is its JSON, or
 * each of its values is a whole text block); the whole projection is then in `whole`. Anything else fails with
 * `TOOL_EXECUTION_FAILED`, and so does structured output nested deeper than `MAX_DATA_DEPTH`
 * (checked without recursion, before anything serializes it).
 */
export function normalizeToolReturn(value: ToolReturn, toolName: string): NormalizedToolResult {
  if (typeof value === 'string') return { content: value };
  const structured = isCallToolResult(value)
    ? value.structuredContent
    : (value as { structured?: unknown } | null)?.structured;
  if (structured !== undefined && dataDepth(structured) > MAX_DATA_DEPTH) {
    throw new ToolError(
      'TOOL_EXECUTION_FAILED',
      `Tool '${toolName}' returned structured output nested deeper than ${MAX_DATA_DEPTH} levels of objects and arrays; it was not kept.`,
      { toolName },
    );
  }
  if (isCallToolResult(value)) return projectCallToolResult(value);
  if (typeof value === 'object' && value !== null && typeof value.content === 'string') {
    const out: MutableResult = { content: value.content };
    if (value.isError === true) out.isError = true;
    if (value.structured !== undefined) out.structured = value.structured;
    if (value.media && value.media.length > 0) out.media = [...value.media];
    const blobs = (value as NormalizedToolResult).blobs;
    if (blobs !== undefined) {
      if (!Array.isArray(blobs) || !blobs.every(isToolBlob)) {
        throw new ToolError(
          'TOOL_EXECUTION_FAILED',
          `Tool '${toolName}' returned malformed blobs: each needs kind ('image', 'audio' or 'resource'), mimeType and base64 data.`,
          { toolName },
        );
      }
      if (blobs.length > 0) out.blobs = [...blobs];
    }
    return out;
  }
  throw new ToolError(
    'TOOL_EXECUTION_FAILED',
    `Tool '${toolName}' returned an unsupported value: return a string, { content: string }, or an MCP CallToolResult.`,
    { toolName },
  );
}

function isToolBlob(value: unknown): value is ToolBlob {
  if (typeof value !== 'object' || value === null) return false;
  const b = value as Record<string, unknown>;
  return (
    BLOB_KINDS.has(b.kind) &&
    typeof b.mimeType === 'string' &&
    typeof b.data === 'string' &&
    (b.uri === undefined || typeof b.uri === 'string')
  );
}

function blobOf(
  kind: ToolBlob['kind'],
  data: unknown,
  mimeType: unknown,
  uri?: unknown,
): ToolBlob | undefined {
  if (typeof data !== 'string') return undefined;
  return {
    kind,
    mimeType: typeof mimeType === 'string' ? mimeType : 'application/octet-stream',
    data,
    ...(typeof uri === 'string' ? { uri } : {}),
  };
}

function projectCallToolResult(result: CallToolResultLike): NormalizedToolResult {
  // the common answer, text blocks only: the same result, without the general case's copies
  if (result.structuredContent === undefined && result.content.every((b) => b.type === 'text')) {
    const blocks = result.content;
    const out: MutableResult = {
      content:
        blocks.length === 1
          ? String(blocks[0]!.text ?? '')
          : blocks.map((b) => String(b.text ?? '')).join('\n\n'),
    };
    if (result.isError === true) out.isError = true;
    return out;
  }
  const texts: string[] = [];
  const others: unknown[] = [];
  const media: ImagePart[] = [];
  const blobs: ToolBlob[] = [];
  const keep = (blob: ToolBlob | undefined): void => {
    if (blob) blobs.push(blob);
  };
  for (const block of result.content) {
    switch (block.type) {
      case 'text':
        texts.push(String(block.text ?? ''));
        others.push({ type: 'text', text: String(block.text ?? '') });
        break;
      case 'image':
        media.push({ type: 'image', data: String(block.data), mimeType: String(block.mimeType) });
        others.push({ type: 'image', mimeType: block.mimeType, bytes: base64Bytes(block.data) });
        keep(blobOf('image', block.data, block.mimeType));
        break;
      case 'audio':
        others.push({ type: 'audio', mimeType: block.mimeType, bytes: base64Bytes(block.data) });
        keep(blobOf('audio', block.data, block.mimeType));
        break;
      case 'resource_link':
        others.push(
          pick(block, ['type', 'uri', 'name', 'title', 'description', 'mimeType', 'size']),
        );
        break;
      case 'resource': {
        const res = (block.resource ?? {}) as Record<string, unknown>;
        const meta: Record<string, unknown> = pick(res, ['uri', 'mimeType']);
        if (typeof res.text === 'string') meta.text = res.text;
        if (typeof res.blob === 'string') meta.bytes = base64Bytes(res.blob);
        keep(blobOf('resource', res.blob, res.mimeType, res.uri));
        others.push({ type: 'resource', resource: meta });
        break;
      }
      default:
        others.push({ type: String(block.type) });
    }
  }
  const structured = result.structuredContent;
  const carried = structured !== undefined && textCarries(texts, structured);
  const shown = structured === undefined || carried ? undefined : structured;
  const onlyText = texts.length === others.length && shown === undefined;
  const content = onlyText
    ? texts.join('\n\n')
    : JSON.stringify(
        shown === undefined ? { content: others } : { content: others, structuredContent: shown },
      );
  const out: MutableResult = { content };
  if (result.isError === true) out.isError = true;
  if (structured !== undefined) out.structured = structured;
  if (carried) out.whole = { content: others, structuredContent: structured };
  if (media.length > 0) out.media = media;
  if (blobs.length > 0) out.blobs = blobs;
  return out;
}

/**
 * True when the text blocks already carry `structured`, so the model need not read it twice:
 * one block is its JSON (as the MCP specification asks servers to send), or it is an object or
 * array of at most 64 values, all of them strings, each equal to one whole text block
 * (server-filesystem's `{ content: <the file> }`). Empty strings and `null` carry nothing and
 * are skipped; any number, boolean or other string means the value is shown. One pass over the
 * blocks and one over the value: no search inside the text.
 */
function textCarries(texts: readonly string[], structured: unknown): boolean {
  for (const text of texts) {
    const t = text.trimStart();
    if ((t.startsWith('{') || t.startsWith('[')) && parsesTo(t, structured)) return true;
  }
  if (typeof structured !== 'object' || structured === null) return false;
  const blocks = new Set(texts);
  const stack: unknown[] = [structured];
  let nodes = 0;
  let strings = 0;
  while (stack.length > 0) {
    if (++nodes > MAX_CARRIED_NODES) return false;
    const v = stack.pop();
    if (typeof v === 'object' && v !== null) {
      for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push(child);
      continue;
    }
    if (v === null || v === '') continue;
    if (typeof v !== 'string' || !blocks.has(v)) return false;
    if (++strings > MAX_CARRIED_VALUES) return false;
  }
  return strings > 0;
}

function parsesTo(text: string, structured: unknown): boolean {
  try {
    return isDeepStrictEqual(JSON.parse(text), structured);
  } catch {
    return false;
  }
}

function pick(
  source: Readonly<Record<string, unknown>>,
  keys: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (source[k] !== undefined) out[k] = source[k];
  return out;
}

function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - pad;
}

/**
 * The size of a result as the limits count it, in bytes: every byte the result carries, whatever
 * its kind. That is the UTF-8 content, the inline data of media, the data of blobs (audio,
 * embedded binary resources, images not already counted as media) and the JSON of `structured`
 * output, unless the content already carries that JSON (as the projection of an MCP result
 * does). Base64 data counts as the text it is sent as.
 */
export function resultBytes(result: NormalizedToolResult): number {
  let total = utf8Bytes(result.content);
  const counted = new Set<string>();
  for (const m of result.media ?? []) {
    if (m.data === undefined) continue;
    total += m.data.length;
    counted.add(m.data);
  }
  for (const b of result.blobs ?? []) if (!counted.has(b.data)) total += b.data.length;
  if (result.structured !== undefined) {
    const json = safeJson(result.structured);
    if (json !== undefined && !result.content.includes(json)) total += utf8Bytes(json);
  }
  return total;
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
