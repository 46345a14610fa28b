import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { summarize } from './stats.js';
import type { Summary } from './stats.js';

const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** Import time of the built package, and of `createAgent`, each in a fresh Node process. */
export interface ImportTimeResult {
  readonly importMs: Summary;
  readonly createAgentMs: Summary;
}

const PROBE = `
const t0 = performance.now();
const m = await import(process.argv[1]);
const t1 = performance.now();
m.createAgent({ tools: [], policy: { allow: ['*'] } });
const t2 = performance.now();
process.stdout.write(JSON.stringify([t1 - t0, t2 - t1]));
`;

/**
 * Measures `import('muster-agent')` and one `createAgent()` in `runs` fresh processes, from the
 * built `dist/` (run `npm run build` first); `undefined` when there is no build.
 */
export function measureImportTime(runs: number): ImportTimeResult | undefined {
  if (!existsSync(DIST)) return undefined;
  const imports: number[] = [];
  const creates: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', PROBE, DIST], {
      encoding: 'utf8',
    });
    const [importMs, createMs] = JSON.parse(out) as [number, number];
    imports.push(importMs);
    creates.push(createMs);
  }
  return { importMs: summarize(imports), createAgentMs: summarize(creates) };
}

/**
 * `createAgent` with MCP options (a stdio, an http and an in-process server, the protocol
 * policy and handlers; `strictConfig`, so no config file is read), each figure in ms.
 */
export interface CreateAgentMcpResult {
  /** The first `createAgent` of each fresh process (cold code), over the processes. */
  readonly firstMs: Summary;
  /** The median of the next `callsPerProcess` calls in each process, over the processes. */
  readonly medianMs: Summary;
  readonly callsPerProcess: number;
}

const MCP_PROBE = `
const m = await import(process.argv[1]);
const calls = Number(process.argv[2]);
const server = m.createSdkMcpServer({
  name: 'crm',
  tools: [m.sdkTool('find', 'Finds a customer.', {}, async () => ({ content: [] }))],
});
const options = () => ({
  mcpServers: {
    local: { command: process.execPath, args: ['server.mjs'], env: { TOKEN: 'x' } },
    remote: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { 'X-Team': 'a' } },
    crm: { type: 'sdk', server },
  },
  mcp: {
    strictConfig: true,
    protocol: { mode: 'auto' },
    handlers: { roots: [{ uri: 'file:///tmp/project' }], logging: () => {} },
  },
});
const times = [];
for (let i = 0; i <= calls; i++) {
  const opts = options();
  const t0 = performance.now();
  m.createAgent(opts);
  times.push(performance.now() - t0);
}
const rest = times.slice(1).sort((a, b) => a - b);
process.stdout.write(JSON.stringify([times[0], rest[Math.floor(rest.length / 2)]]));
`;

/**
 * Measures `createAgent` with MCP options from the built `dist/` in `runs` fresh processes:
 * the first call of each (what a host pays at startup) and the median of `callsPerProcess`
 * more. Target: under 1 ms. `undefined` when there is no build.
 */
export function measureCreateAgentWithMcp(
  runs: number,
  callsPerProcess = 50,
): CreateAgentMcpResult | undefined {
  if (!existsSync(DIST)) return undefined;
  const firsts: number[] = [];
  const medians: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', MCP_PROBE, DIST, String(callsPerProcess)],
      { encoding: 'utf8' },
    );
    const [first, median] = JSON.parse(out) as [number, number];
    firsts.push(first);
    medians.push(median);
  }
  return { firstMs: summarize(firsts), medianMs: summarize(medians), callsPerProcess };
}
