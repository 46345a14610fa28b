import { mcpConfigPath, readMcpConfigFile } from '../mcp/index.js';
import type { AuthorizationRule } from '../policy/index.js';

/**
 * Connecting to the servers of the user's own file (`MUSTER_HOME/mcp.json`) is allowed: the
 * person who runs `muster` declared them. A project file's servers (`.muster/mcp.json`, which
 * comes with a cloned repository) are not: they are asked for like a tool call (a prompt on a
 * terminal, the approvals page in the studio), otherwise they need `--allow mcp_connect:<server>` (or `--default allow`). `--deny
 * mcp_connect:<server>` refuses one either way (denials come first).
 */
export function connectUserServers(workdir: string, home: string): AuthorizationRule {
  const user = new Set(
    readMcpConfigFile(mcpConfigPath('user', workdir, home), 'user').map((s) => s.name),
  );
  const project = new Set(
    readMcpConfigFile(mcpConfigPath('project', workdir, home), 'project').map((s) => s.name),
  );
  return {
    id: 'cli-connect-user-servers',
    authorize: (request) =>
      request.kind === 'connection' &&
      request.server !== undefined &&
      user.has(request.server) &&
      !project.has(request.server)
        ? 'allow'
        : undefined,
  };
}
