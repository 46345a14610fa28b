// Names and values of the span attributes Muster records, after the OpenTelemetry GenAI and MCP
// semantic conventions (semantic-conventions-genai v0.1.0, Development status; see
// docs/observability.md). Only ids, names, counts and codes: content is added by the callers
// only when `observability.traceContent` is on, and goes through `redact` first.
import type { StopReason, Usage } from '../../model/index.js';
import type { McpTransportType } from '../../mcp/index.js';
import { redact } from '../../util/index.js';
import type { TraceAttributes, TraceSpan } from '../../util/index.js';

/** `SpanKind` values (numbers, so the API need not be loaded to name them). */
export const SPAN_KIND = { internal: 0, client: 2 } as const;

/** `SpanStatusCode` values. */
export const STATUS = { ok: 1, error: 2 } as const;

/** Ends `span` as failed with `error.type` `code` (a Muster error code; never a message). */
export function failSpan(span: TraceSpan, code: string): void {
  span.setAttribute('error.type', code);
  span.setStatus({ code: STATUS.error, message: code });
  span.end();
}

/** The instrumentation scope name of every Muster span. */
export const TRACER_NAME = 'muster-agent';

/** The well-known `gen_ai.provider.name` values (semantic-conventions-genai registry). */
const WELL_KNOWN = new Set([
  'openai',
  'gcp.gen_ai',
  'gcp.vertex_ai',
  'gcp.gemini',
  'anthropic',
  'cohere',
  'azure.ai.inference',
  'azure.ai.openai',
  'ibm.watsonx.ai',
  'aws.bedrock',
  'perplexity',
  'x_ai',
  'deepseek',
  'groq',
  'mistral_ai',
]);

/** Provider ids (the first part of a client's `provider`) by their well-known value. */
const BY_ID: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  'amazon-bedrock': 'aws.bedrock',
  bedrock: 'aws.bedrock',
  azure: 'azure.ai.openai',
  vertex: 'gcp.vertex_ai',
  cohere: 'cohere',
  mistral: 'mistral_ai',
  xai: 'x_ai',
  deepseek: 'deepseek',
  groq: 'groq',
  perplexity: 'perplexity',
};

/**
 * The `gen_ai.provider.name` of a model client's `provider` string: Muster's clients and the
 * AI SDK name a provider and its API flavour (`openai.responses`, `anthropic.messages`,
 * `ai-sdk.amazon-bedrock`), the conventions name only the provider (`openai`, `anthropic`,
 * `aws.bedrock`). A well-known value is kept; a provider not known here passes through as given.
 */
export function providerName(provider: string): string {
  if (WELL_KNOWN.has(provider)) return provider;
  const name = provider.startsWith('ai-sdk.') ? provider.slice('ai-sdk.'.length) : provider;
  if (WELL_KNOWN.has(name)) return name;
  const [id, second] = name.split('.');
  if (id === 'google')
    return second === 'vertex'
      ? 'gcp.vertex_ai'
      : second === 'generative-ai'
        ? 'gcp.gemini'
        : 'gcp.gen_ai';
  return (id !== undefined && Object.hasOwn(BY_ID, id) ? BY_ID[id] : undefined) ?? provider;
}

/** The GenAI finish reason of a Muster stop reason (OpenAI-style spellings, as the examples use). */
export function finishReason(reason: StopReason): string {
  switch (reason) {
    case 'tool-calls':
      return 'tool_calls';
    case 'content-filter':
      return 'content_filter';
    default:
      return reason;
  }
}

/** `gen_ai.usage.*` of a usage report (nothing when the model reported none). */
export function usageAttributes(usage: Usage | undefined): TraceAttributes {
  if (!usage) return {};
  return {
    'gen_ai.usage.input_tokens': usage.inputTokens,
    'gen_ai.usage.output_tokens': usage.outputTokens,
    'gen_ai.usage.reasoning.output_tokens': usage.reasoningTokens,
    'gen_ai.usage.cache_read.input_tokens': usage.cachedInputTokens,
    'gen_ai.usage.cache_creation.input_tokens': usage.cacheWriteInputTokens,
  };
}

/** `network.transport` of an MCP transport: `pipe` for stdio, `tcp` for HTTP, `inproc` in-process. */
export function networkTransport(type: McpTransportType | undefined): string | undefined {
  switch (type) {
    case 'stdio':
      return 'pipe';
    case 'http':
    case 'sse':
      return 'tcp';
    case 'sdk':
      return 'inproc';
    default:
      return undefined;
  }
}

/** Opt-in content as a span attribute: JSON (spans hold no structured values yet), redacted. */
export function contentAttribute(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return redact(text, undefined);
}

/** The GenAI `gen_ai.output.messages` of one assistant turn. */
export function outputMessages(
  text: string,
  calls: readonly { readonly callId: string; readonly name: string; readonly arguments: unknown }[],
  reason: StopReason,
): string {
  const parts: unknown[] = text ? [{ type: 'text', content: text }] : [];
  for (const c of calls)
    parts.push({ type: 'tool_call', id: c.callId, name: c.name, arguments: c.arguments });
  return contentAttribute([{ role: 'assistant', parts, finish_reason: finishReason(reason) }]);
}
