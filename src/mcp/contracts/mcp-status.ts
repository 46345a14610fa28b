import type { ToolAnnotations } from '../../tools/index.js';
import type { McpServerSource, McpTransportType } from './config-types.js';

/** Where a server stands (SPEC 7.3). `reconnecting` is reserved for automatic reconnects. */
export type McpServerStatusValue =
  | 'pending'
  | 'connecting'
  | 'connected'
  | 'reconnecting'
  | 'failed'
  | 'needs-auth'
  | 'disabled';

/** One tool in a status snapshot. */
export interface McpToolStatus {
  /** The model-facing name. */
  readonly name: string;
  /** The name on the server. */
  readonly originalName: string;
  readonly annotations?: ToolAnnotations;
  /** True when the server reported a change since this tool was listed. */
  readonly stale: boolean;
}

/** A local snapshot of one server: no I/O, no secrets (no URL, headers, command or env). */
export interface McpServerStatus {
  readonly name: string;
  readonly source: McpServerSource;
  readonly type: McpTransportType;
  readonly status: McpServerStatusValue;
  readonly protocolVersion?: string;
  readonly era?: 'modern' | 'legacy';
  readonly tools: readonly McpToolStatus[];
  readonly error?: { readonly code: string; readonly message: string };
}
