import { ToolError } from '../errors/index.js';
import type { ToolErrorCode } from '../errors/index.js';
import type { ImagePart } from '../model/index.js';
import { utf8Bytes } from '../util/index.js';
import type { CallToolResultLike, ToolResult, ToolReturn } from './tool-types.js';

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
 * Normalizes what a tool returned into a {@link ToolResult}: a string is the content; a
 * `ToolResult` is checked; an MCP `CallToolResult` is projected (text kept as text, images
 * forwarded as media, links and embedded resources as JSON metadata, `structuredContent`
 * kept). Anything else fails with `TOOL_EXECUTION_FAILED`.
 */
export function normalizeToolReturn(value: ToolReturn, toolName: string): ToolResult {
  if (typeof value === 'string') return { content: value };
  if (isCallToolResult(value)) return projectCallToolResult(value);
  if (typeof value === 'object' && value !== null && typeof value.content === 'string') {
    const out: { content: string; isError?: boolean; structured?: unknown; media?: ImagePart[] } = {
      content: value.content,
    };
    if (value.isError === true) out.isError = true;
    if (value.structured !== undefined) out.structured = value.structured;
    if (value.media && value.media.length > 0) out.media = [...value.media];
    return out;
  }
  throw new ToolError(
    'TOOL_EXECUTION_FAILED',
    `Tool '${toolName}' returned an unsupported value: return a string, { content: string }, or an MCP CallToolResult.`,
    { toolName },
  );
}

function projectCallToolResult(result: CallToolResultLike): ToolResult {
  const texts: string[] = [];
  const others: unknown[] = [];
  const media: ImagePart[] = [];
  for (const block of result.content) {
    switch (block.type) {
      case 'text':
        texts.push(String(block.text ?? ''));
        others.push({ type: 'text', text: String(block.text ?? '') });
        break;
      case 'image':
        media.push({ type: 'image', data: String(block.data), mimeType: String(block.mimeType) });
        others.push({ type: 'image', mimeType: block.mimeType, bytes: base64Bytes(block.data) });
        break;
      case 'audio':
        others.push({ type: 'audio', mimeType: block.mimeType, bytes: base64Bytes(block.data) });
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
        others.push({ type: 'resource', resource: meta });
        break;
      }
      default:
        others.push({ type: String(block.type) });
    }
  }
  const onlyText = texts.length === others.length && result.structuredContent === undefined;
  const content = onlyText
    ? texts.join('\n\n')
    : JSON.stringify(
        result.structuredContent === undefined
          ? { content: others }
          : { content: others, structuredContent: result.structuredContent },
      );
  const out: { content: string; isError?: boolean; structured?: unknown; media?: ImagePart[] } = {
    content,
  };
  if (result.isError === true) out.isError = true;
  if (result.structuredContent !== undefined) out.structured = result.structuredContent;
  if (media.length > 0) out.media = media;
  return out;
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

/** The UTF-8 size of a result as the limits count it: content plus inline media data. */
export function resultBytes(result: ToolResult): number {
  let total = utf8Bytes(result.content);
  for (const m of result.media ?? []) total += m.data?.length ?? 0;
  return total;
}
