import type { EventBase } from '../../util/index.js';
import type { McpServerStatusValue } from './mcp-status.js';

/** A server's status changed. `error` is sanitized: no headers, env, tokens or stderr. */
export interface McpServerStatusEvent extends EventBase {
  readonly type: 'mcp.server.status';
  readonly server: string;
  readonly status: McpServerStatusValue;
  readonly protocolVersion?: string;
  readonly era?: 'modern' | 'legacy';
  readonly error?: { readonly code: string; readonly message: string };
}

/** A tool was discovered on a server. */
export interface McpToolDiscoveredEvent extends EventBase {
  readonly type: 'mcp.tool.discovered';
  readonly server: string;
  /** The model-facing name. */
  readonly toolName: string;
  /** The name on the server. */
  readonly originalName: string;
}

/** A server's catalog changed: discovered, refreshed, marked stale, or removed. */
export interface McpCatalogUpdatedEvent extends EventBase {
  readonly type: 'mcp.catalog.updated';
  readonly server: string;
  readonly reason: 'discovered' | 'refreshed' | 'stale' | 'removed';
  readonly toolCount: number;
}

/** A server was registered, updated or unregistered at run time. */
export interface McpServerChangedEvent extends EventBase {
  readonly type: 'mcp.server.changed';
  readonly server: string;
  readonly change: 'registered' | 'updated' | 'unregistered';
}

/**
 * A transport or client error of a live connection (SPEC 10), for diagnosis only. `message`
 * is sanitized: the server's known secrets and anything token-like are masked.
 */
export interface McpDiagnosticEvent extends EventBase {
  readonly type: 'mcp.diagnostic';
  readonly server: string;
  /** The error's name (`Error`, `SdkError`, `McpError`…). */
  readonly errorName: string;
  /** The client's or Muster's error code, when it has one. */
  readonly code?: string | number;
  readonly message: string;
}

/**
 * A server asked the user for input. Carries no answer content (and no URL: it may hold a
 * one-time token); `callId` names the tool call it arrived during, if any.
 */
export interface ElicitationRequestedEvent extends EventBase {
  readonly type: 'elicitation.requested';
  readonly server: string;
  readonly mode: 'form' | 'url';
  readonly elicitationId?: string;
  readonly callId?: string;
}

/**
 * An elicitation ended: answered (`action`), or, in URL mode, the server's
 * `notifications/elicitation/complete` arrived (`via: 'notification'`). No answer content.
 */
export interface ElicitationCompletedEvent extends EventBase {
  readonly type: 'elicitation.completed';
  readonly server: string;
  readonly via: 'answer' | 'notification';
  readonly action?: 'accept' | 'decline' | 'cancel';
  readonly elicitationId?: string;
  readonly callId?: string;
}

/** A server asked for a model completion. No message content. */
export interface SamplingRequestedEvent extends EventBase {
  readonly type: 'sampling.requested';
  readonly server: string;
  /** `host` (a host function) or `agent` (the agent's own model, behind the policy). */
  readonly handler: 'host' | 'agent';
  readonly maxTokens: number;
  readonly callId?: string;
}

/** Every MCP event. */
export type McpEvent =
  | McpServerStatusEvent
  | McpToolDiscoveredEvent
  | McpCatalogUpdatedEvent
  | McpServerChangedEvent
  | McpDiagnosticEvent
  | ElicitationRequestedEvent
  | ElicitationCompletedEvent
  | SamplingRequestedEvent;
