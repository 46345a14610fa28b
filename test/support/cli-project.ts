import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturePath } from './mcp-fixtures.js';

// A temporary project for `muster run` tests: real stdio fixture servers declared in its own
// MUSTER_HOME's mcp.json (the user's servers, which `muster run` connects without asking) or
// in the project's `.muster/mcp.json`, and scripted-model turn files.

/** A scripted turn as the `scripted:<file>` model reads it. */
export interface TurnSpec {
  readonly text?: string;
  readonly toolCalls?: readonly { name: string; arguments: object }[];
}

/** A temporary project folder. */
export interface CliProject {
  readonly dir: string;
  readonly home: string;
  /** Writes `turns` to `<dir>/<name>` and returns `scripted:<name>`. */
  turns(name: string, turns: readonly TurnSpec[]): string;
  readonly env: Record<string, string>;
  cleanup(): void;
}

/**
 * Makes a project whose user file (or, with `scope: 'project'`, its `.muster/mcp.json`) runs
 * each fixture `servers[name]` with node.
 */
export function cliProject(
  servers: Readonly<Record<string, string>>,
  scope: 'user' | 'project' = 'user',
): CliProject {
  const dir = mkdtempSync(join(tmpdir(), 'muster-cli-project-'));
  const home = join(dir, 'home');
  mkdirSync(join(dir, '.muster'), { recursive: true });
  mkdirSync(home, { recursive: true });
  const mcpServers = Object.fromEntries(
    Object.entries(servers).map(([name, file]) => [
      name,
      { command: process.execPath, args: [fixturePath(file)] },
    ]),
  );
  writeFileSync(
    scope === 'user' ? join(home, 'mcp.json') : join(dir, '.muster', 'mcp.json'),
    JSON.stringify({ mcpServers }, null, 2),
  );
  return {
    dir,
    home,
    env: { MUSTER_HOME: home },
    turns(name, turns) {
      writeFileSync(join(dir, name), JSON.stringify(turns));
      return `scripted:${name}`;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
