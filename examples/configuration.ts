/**
 * Configuration files (docs/guide/configuration.md), offline: a project file and a user file
 * declare servers, the constructor adds one, and a conflicting declaration is refused.
 *
 *   npx tsx examples/configuration.ts
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createAgent, createSdkMcpServer, MusterError } from '../src/index.js';

const require = createRequire(import.meta.url);
const manifest = require.resolve('@modelcontextprotocol/server-memory/package.json');
const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
const memoryServer = resolve(dirname(manifest), Object.values(bin)[0]!);

const root = mkdtempSync(join(tmpdir(), 'muster-configuration-'));
const write = (file: string, servers: object) => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ mcpServers: servers }, null, 2));
};
// <workdir>/.muster/mcp.json, the project file (commit it with the project)
const workdir = join(root, 'project');
write(join(workdir, '.muster', 'mcp.json'), {
  memory: { command: process.execPath, args: [memoryServer] },
});
// MUSTER_HOME/mcp.json, the user file (~/.muster/mcp.json unless MUSTER_HOME is set)
process.env.MUSTER_HOME = join(root, 'home');
write(join(root, 'home', 'mcp.json'), { docs: { type: 'http', url: 'http://localhost:9/mcp' } });

const notes = createSdkMcpServer({ name: 'notes' });
const agent = createAgent({ workdir, mcpServers: { notes } }); // files are read here, once
try {
  for (const s of agent.mcp.list()) console.log(`${s.name}: from ${s.source}, ${s.type}`);
} finally {
  await agent.close();
}

try {
  // the same name declared differently by the constructor and the project file
  createAgent({ workdir, mcpServers: { memory: { command: 'other-memory-server' } } });
} catch (error) {
  if (!MusterError.isInstance(error)) throw error;
  console.log(`conflict: ${error.code}: ${error.message}`);
}

const strict = createAgent({ workdir, mcp: { strictConfig: true } }); // skips both files
console.log(`strictConfig: ${strict.mcp.list().length} servers`);
await strict.close();
rmSync(root, { recursive: true, force: true });
