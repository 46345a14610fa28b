/**
 * The generated 2,000-tool catalog (`test/fixtures/mcp/catalog-data.mjs`): ten stdio servers,
 * one per domain, 200 tools each, and the model-facing names of their tools.
 */
import { CATALOG_DOMAINS, catalogTools } from '../fixtures/mcp/catalog-data.mjs';
import { stdioConfig } from './mcp-fixtures.js';
import type { StdioLaunch } from './mcp-fixtures.js';

export {
  CATALOG_DOMAINS,
  HIDDEN_CATALOG_TOOL,
  catalogTools,
} from '../fixtures/mcp/catalog-data.mjs';

/** `mcpServers` for the ten catalog servers (or the given domains), named after their domain. */
export function catalogServers(
  domains: readonly string[] = CATALOG_DOMAINS,
): Record<string, StdioLaunch> {
  return Object.fromEntries(
    domains.map((d) => [d, stdioConfig('catalog-server.mjs', [`--domain=${d}`])]),
  );
}

/** The model-facing name of a catalog tool. */
export function catalogToolName(domain: string, tool: string): string {
  return `mcp__${domain}__${tool}`;
}

/** How many tools the given domains serve in all. */
export function catalogSize(domains: readonly string[] = CATALOG_DOMAINS): number {
  return domains.reduce((sum, d) => sum + catalogTools(d).length, 0);
}
