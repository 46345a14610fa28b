import { declarationFingerprint, mcpConfigPath, readMcpConfigFile } from '../mcp/index.js';
import type { AuthorizationRule } from '../policy/index.js';

/**
 * Connecting to the servers of the user's own file (`MUSTER_HOME/mcp.json`) is allowed: the
 * person who runs `muster` declared them. The permission holds for the declaration, not the
 * name: a server registered later under one of those names (in the studio) with another
 * command, URL, env or header value is asked about like any other (declarations are matched
 * by {@link declarationFingerprint}). A project file's servers (`.muster/mcp.json`, which
 * comes with a cloned repository) are not allowed: they are asked for like a tool call (a
 * prompt on a terminal, the approvals page in the studio), otherwise they need `--allow
 * mcp_connect:<server>` (or `--default allow`). `--deny mcp_connect:<server>` refuses one
 * either way (denials come first).
 */
export function connectUserServers(workdir: string, home: string): AuthorizationRule {
  const user = new Map(
    readMcpConfigFile(mcpConfigPath('user', workdir, home), 'user').map((s) => [
      s.name,
      declarationFingerprint(s.config),
    ]),
  );
  const project = new Set(
    readMcpConfigFile(mcpConfigPath('project', workdir, home), 'project').map((s) => s.name),
  );
  return {
    id: 'cli-connect-user-servers',
    authorize: (request) =>
      request.kind === 'connection' &&
      request.server !== undefined &&
      request.connection !== undefined &&
      user.get(request.server) === request.connection.fingerprint &&
      !project.has(request.server)
        ? 'allow'
        : undefined,
  };
}
