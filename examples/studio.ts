/**
 * The studio from code (docs/guide/studio.md), offline: `startStudio()` from
 * `muster-agent/studio` serves the studio for server-everything (from node_modules) on
 * 127.0.0.1; this script then plays the browser: it opens the printed URL (which signs it in
 * with a cookie), lists the servers and calls a tool through the studio's API, as the Tools
 * page does. `muster studio` is the same server, built from the command's flags.
 *
 *   npx tsx examples/studio.ts
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { scriptedModel } from '../src/index.js';
import { startStudio } from '../src/studio/index.js';
import type { CallToolResponse, ServersResponse } from '../src/studio/index.js';

const require = createRequire(import.meta.url);
const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json');
const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
const everything = resolve(dirname(manifest), Object.values(bin)[0]!);
const folder = mkdtempSync(join(tmpdir(), 'muster-studio-'));

const studio = await startStudio({
  model: scriptedModel([]), // runs started from the page would use it
  mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } },
  workdir: folder, // where .muster/mcp.json is read (none here)
  home: folder, // MUSTER_HOME: the user's mcp.json
  allow: ['mcp_connect:everything', 'mcp__everything__get-sum'],
  default: 'deny', // no one is at the Approvals page in this script
});
console.log(`[studio] listening on ${studio.origin}`); // studio.url carries the token

try {
  // the browser opens the URL once: the token becomes a cookie
  const signIn = await fetch(studio.url, { redirect: 'manual' });
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  const api = async <T>(path: string, body?: object): Promise<T> => {
    const headers = { cookie, origin: studio.origin, 'content-type': 'application/json' };
    const init = body ? { method: 'POST', headers, body: JSON.stringify(body) } : { headers };
    return (await (await fetch(`${studio.origin}${path}`, init)).json()) as T;
  };

  const call = await api<CallToolResponse>('/api/servers/everything/tools/get-sum/call', {
    arguments: { a: 2, b: 40 },
  });
  console.log(
    `[call] ${call.decision.decision} at ${call.decision.stage}: ${JSON.stringify(call.result?.content)}`,
  );
  const servers = await api<ServersResponse>('/api/servers'); // agent.mcp.list(): no secrets
  for (const s of servers) console.log(`[servers] ${s.name}: ${s.status}, ${s.tools.length} tools`);
  const refused = await fetch(`${studio.origin}/api/servers`); // no cookie
  console.log(`[no cookie] ${refused.status}`);
} finally {
  await studio.close();
  rmSync(folder, { recursive: true, force: true });
}
