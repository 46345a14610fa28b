import type { ClientCapabilities } from '@modelcontextprotocol/client';

/** The identifier of the Tasks extension (SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * `capabilities` with the Tasks extension declared (`extensions["io.modelcontextprotocol/tasks"]:
 * {}`; no settings are defined). The official client (2.4.0) sends the capabilities in every
 * request's `_meta` on 2026-07-28 connections, which is where a server looks for it.
 */
export function withTasksExtension(
  capabilities: ClientCapabilities | undefined,
): ClientCapabilities {
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)
    ?.extensions;
  return {
    ...capabilities,
    extensions: { ...extensions, [TASKS_EXTENSION]: {} },
  } as ClientCapabilities;
}
