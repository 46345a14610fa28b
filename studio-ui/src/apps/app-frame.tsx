import type { ToolResultView, ToolView } from '../../../src/studio/api-types.js';

/** What the tools page hands an MCP Apps view. */
export interface AppFrameProps {
  readonly server: string;
  readonly tool: ToolView;
  readonly input: Readonly<Record<string, unknown>>;
  readonly result?: ToolResultView;
}

/** Renders a tool's MCP Apps view in a sandboxed iframe (placeholder). */
export function AppFrame(_props: AppFrameProps) {
  return null;
}
