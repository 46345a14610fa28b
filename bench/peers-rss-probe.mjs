#!/usr/bin/env node
// One client kind doing the peak-RSS workload of `npm run bench:peers`, alone in this process:
// connect to basic-server.mjs and big-result-server.mjs over stdio, `calls` echo calls one
// after another, then `bigCalls` calls of the 1 MiB tool, close; print
// {"maxRssMb": …, "echoMaxRssMb": …, "calls": …, "bigCalls": …} on stdout (`echoMaxRssMb`: the
// peak when the echo calls were done, before the first 1 MiB call). Run with node (plain JS, so the
// measured process holds no TypeScript loader):
//
//   node bench/peers-rss-probe.mjs '<json spec>'
//
// spec: { kind: 'node' | 'raw' | 'muster' | 'peer', calls, bigCalls, echo: launch, big: launch,
//         dist?: path of dist/index.js (muster), peers?: path of peer-clients.mjs, peer?: index }
// A launch is { command, args }. `node` does no work: the floor of a Node process.
import process from 'node:process';
import { pathToFileURL } from 'node:url';

const spec = JSON.parse(process.argv[2] ?? '{}');
/** The peak RSS so far, in MB. */
const peakMb = () => process.resourceUsage().maxRSS / 1024;
/** The peak once the echo calls are done (the bare `node` kind: its floor). */
let echoMaxRssMb;
const ECHO_ARGS = { text: 'hello' };
const BIG_ARGS = { kib: 1024 };

/** @param {unknown} result */
function check(result, what) {
  if (typeof result === 'object' && result !== null && result.isError === true)
    throw new Error(`${what} failed: ${JSON.stringify(result).slice(0, 200)}`);
}

async function raw() {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const info = { name: 'muster-bench-raw', version: '0.0.0' };
  const echo = new Client(info);
  const big = new Client(info);
  await echo.connect(new StdioClientTransport(spec.echo));
  await big.connect(new StdioClientTransport(spec.big));
  try {
    for (let i = 0; i < spec.calls; i++)
      check(await echo.callTool({ name: 'echo', arguments: ECHO_ARGS }), 'echo');
    echoMaxRssMb = peakMb();
    for (let i = 0; i < spec.bigCalls; i++)
      check(await big.callTool({ name: 'big', arguments: BIG_ARGS }), 'big');
  } finally {
    await Promise.allSettled([echo.close(), big.close()]);
  }
}

async function peer() {
  const { PEERS } = await import(pathToFileURL(spec.peers).href);
  const client = PEERS[spec.peer];
  const echo = await client.open({ kind: 'stdio', ...spec.echo }, 'echo', ECHO_ARGS);
  const big = await client.open({ kind: 'stdio', ...spec.big }, 'big', BIG_ARGS);
  try {
    for (let i = 0; i < spec.calls; i++) await echo.call();
    echoMaxRssMb = peakMb();
    for (let i = 0; i < spec.bigCalls; i++) await big.call();
  } finally {
    await Promise.allSettled([echo.close(), big.close()]);
  }
}

const USAGE = { inputTokens: 10, outputTokens: 2, totalTokens: 12 };
const FINAL = [
  { type: 'text-delta', text: 'Done.' },
  { type: 'finish', stopReason: 'stop', usage: USAGE },
];

/** A run of `turns` tool turns of one call each to `name`, then an answer. */
function script(name, args, turns) {
  const out = [];
  for (let t = 0; t < turns; t++)
    out.push([
      { type: 'tool-call', callId: `call_${t + 1}`, name, argumentsText: JSON.stringify(args) },
      { type: 'finish', stopReason: 'tool-calls', usage: USAGE },
    ]);
  out.push(FINAL);
  return out;
}

async function* play(parts) {
  for (const part of parts) yield part;
}

/** A model that replays the current script and never looks at the request (as bench/mcp-model.ts). */
const model = {
  specificationVersion: 'muster-model-v1',
  provider: 'bench',
  defaultModelName: 'bench',
  turns: [FINAL],
  next: 0,
  generate() {
    return play(this.turns[this.next++] ?? FINAL);
  },
};

async function muster() {
  const { createAgent } = await import(pathToFileURL(spec.dist).href);
  const turnsPerRun = 8;
  const agent = createAgent({
    model,
    mcp: { strictConfig: true },
    mcpServers: { echo: spec.echo, big: spec.big },
    policy: { allow: ['mcp_connect:*', 'mcp__*'] },
    limits: { maxIterations: turnsPerRun + 1 },
  });
  try {
    await agent.initialize();
    const name = (server, tool) => {
      const status = agent.mcp.list().find((s) => s.name === server);
      const found = status?.tools.find((t) => t.originalName === tool)?.name;
      if (found === undefined)
        throw new Error(`muster: ${server} has no ${tool} (${status?.status})`);
      return found;
    };
    const run = async (turns) => {
      model.turns = turns;
      model.next = 0;
      let sessionId = '';
      for await (const ev of agent.run({ input: 'bench', stream: false })) {
        if (ev.type === 'tool.completed' && ev.isError)
          throw new Error(`muster call failed: ${ev.content}`);
        if (ev.type === 'session.started') sessionId = ev.sessionId;
      }
      await agent.sessions.delete(sessionId);
    };
    const echo = name('echo', 'echo');
    for (let done = 0; done < spec.calls; done += turnsPerRun)
      await run(script(echo, ECHO_ARGS, Math.min(turnsPerRun, spec.calls - done)));
    echoMaxRssMb = peakMb();
    const big = script(name('big', 'big'), BIG_ARGS, 1);
    for (let i = 0; i < spec.bigCalls; i++) await run(big);
  } finally {
    await agent.close();
  }
}

const work = { node: async () => undefined, raw, peer, muster }[spec.kind];
if (work === undefined) throw new Error(`unknown kind ${spec.kind}`);
await work();
const maxRssMb = peakMb();
process.stdout.write(
  JSON.stringify({
    maxRssMb,
    echoMaxRssMb: echoMaxRssMb ?? maxRssMb,
    calls: spec.calls,
    bigCalls: spec.bigCalls,
  }),
);
