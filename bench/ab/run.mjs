// node bench/ab/run.mjs ROUNDS DIR_A DIR_B [...]: runs figures.mjs in each prepared folder in
// turn (the order reversed every round, so drift and warm caches fall on both sides), then
// prints each figure's median per folder and the median of the pairwise ratios to DIR_A.
// AB_CPU=1 pins every run to that CPU (taskset): the loop and pipeline figures vary less;
// the MCP figures should not be pinned (their stdio servers would share the CPU).
// BENCH_SCALE and AB_ONLY (loop,pipeline,mcp) are passed on to figures.mjs; AB_OUT=file.json
// keeps every round's figures.
import process from 'node:process';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const [rounds, ...dirs] = process.argv.slice(2);
if (!(Number(rounds) > 0) || dirs.length < 2) {
  process.stderr.write('usage: node bench/ab/run.mjs ROUNDS DIR_A DIR_B [...] (see prepare.sh)\n');
  process.exit(2);
}
const samples = dirs.map(() => ({}));
for (let r = 0; r < Number(rounds); r++) {
  const order = r % 2 === 0 ? [...dirs.keys()] : [...dirs.keys()].reverse();
  for (const k of order) {
    const command = ['node', '--import', 'tsx', 'figures.mjs'];
    if (process.env.AB_CPU) command.unshift('taskset', '-c', process.env.AB_CPU);
    const stdout = execFileSync(command[0], command.slice(1), {
      cwd: dirs[k],
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = stdout.split('\n').find((l) => l.startsWith('AB '));
    if (!line) throw new Error(`no figures from ${dirs[k]}`);
    for (const [key, value] of Object.entries(JSON.parse(line.slice(3))))
      (samples[k][key] ??= []).push(value);
  }
  process.stderr.write(`round ${r + 1} of ${rounds} done\n`);
}
if (process.env.AB_OUT) writeFileSync(process.env.AB_OUT, JSON.stringify({ dirs, samples }));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (x) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toPrecision(4));
process.stdout.write(`figure | ${dirs.join(' | ')}\n`);
for (const key of Object.keys(samples[0])) {
  const cells = samples.map((s, k) => {
    const values = s[key] ?? [];
    if (k === 0) return fmt(median(values));
    const ratios = values.map((v, i) => v / samples[0][key][i]);
    return `${fmt(median(values))} (x${median(ratios).toFixed(3)})`;
  });
  process.stdout.write(`${key} | ${cells.join(' | ')}\n`);
}
