import type { ToolAnnotations, ToolInfo, ToolResult, ToolReturn } from './tool-types.js';

/** What a tool hook is told about the call. */
export interface ToolHookContext {
  readonly toolName: string;
  readonly callId: string;
  readonly sessionId: string;
  readonly runId: string;
  readonly iteration: number;
  readonly info: ToolInfo;
  readonly annotations?: ToolAnnotations;
  readonly signal: AbortSignal;
}

/** What a `beforeTool` hook may answer: nothing, a denial, or rewritten arguments. */
export type BeforeToolResult =
  | void
  | undefined
  | { readonly decision: 'deny'; readonly reason?: string }
  | { readonly arguments: Record<string, unknown> };

/**
 * Runs after validation, before the policy decides. Rewritten arguments are validated again,
 * and are what the approver sees and what runs. A hook that throws denies the call.
 */
export type BeforeToolHook = (
  call: ToolHookContext & { readonly arguments: Readonly<Record<string, unknown>> },
) => BeforeToolResult | Promise<BeforeToolResult>;

/** What an `afterTool` hook may answer: nothing, or a replacement result. */
export type AfterToolResult = void | undefined | { readonly result: ToolReturn };

/**
 * Runs after the tool, before result limits. It may replace the result (for example to
 * redact it). A hook that throws turns the result into an error, so nothing unredacted leaks.
 */
export type AfterToolHook = (
  call: ToolHookContext & {
    readonly arguments: Readonly<Record<string, unknown>>;
    readonly result: ToolResult;
  },
) => AfterToolResult | Promise<AfterToolResult>;
