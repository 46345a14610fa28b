// node bench/ab/normalized.mjs ab.json: each MCP agent figure (the agent's tool turn, the MCP
// part of a turn) divided by the same folder's direct call in the same round, then compared
// position-matched as matched.mjs does. The direct call (agent.mcp.callTool) takes no run
// path, so the quotient cancels what moved every figure of a folder in that round.
import process from 'node:process';
import { readFileSync } from 'node:fs';
const { dirs, samples } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const med = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const idx = Object.fromEntries(dirs.map((d, i) => [d, i]));
for (const kind of ['stdio', 'http', 'sdk'])
  for (const v of ['sequential', 'concurrent']) {
    for (const part of ['agent tool turn', 'mcp part of a turn']) {
      const k = `mcp ${kind} ${v}: ${part} µs/call`,
        d = `mcp ${kind} ${v}: direct µs/call`;
      const norm = (dir) => samples[idx[dir]][k].map((x, r) => x / samples[idx[dir]][d][r]);
      const ratio = (a, b) => med(norm(a).map((x, r) => x / norm(b)[r]));
      process.stdout.write(
        `${k.padEnd(52)} / direct: head/base-aa ${ratio('head-dist', 'base-dist-aa').toFixed(3)} head-b/base ${ratio('head-dist-b', 'base-dist').toFixed(3)} | A/A base-aa/base ${ratio('base-dist-aa', 'base-dist').toFixed(3)} head-b/head ${ratio('head-dist-b', 'head-dist').toFixed(3)}\n`,
      );
    }
  }
