// node bench/ab/matched.mjs AB_OUT.json: the position-matched ratios of a four-folder run,
//   AB_OUT=ab.json node bench/ab/run.mjs ROUNDS base head base-copy head-copy
// run.mjs reverses the order every round, so the 2nd and 3rd folders always run in the middle
// and the 1st and 4th at the ends, and where a folder runs moves its figures. Each head is
// compared with the base folder in its own positions: head / base-copy (middle) and
// head-copy / base (ends), and both pooled; the A/A figures are base-copy / base and
// head-copy / head. Each is the median of the per-round ratios.
import process from 'node:process';
import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node bench/ab/matched.mjs AB_OUT.json (a four-folder run)\n');
  process.exit(2);
}
const { dirs, samples } = JSON.parse(readFileSync(file, 'utf8'));
if (samples.length !== 4) {
  process.stderr.write(
    `expected 4 folders (base, head, base copy, head copy), got ${dirs.length}\n`,
  );
  process.exit(2);
}
const [base, head, baseCopy, headCopy] = samples;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ratios = (a, b, key) => a[key].map((v, i) => v / b[key][i]);
const f = (x) => x.toFixed(3);
process.stdout.write(
  'figure | head / base: middle, ends, pooled | A/A: base copy / base | A/A: head copy / head\n',
);
for (const key of Object.keys(base)) {
  const middle = ratios(head, baseCopy, key);
  const ends = ratios(headCopy, base, key);
  process.stdout.write(
    `${key} | ${f(median(middle))} ${f(median(ends))} ${f(median([...middle, ...ends]))} | ` +
      `${f(median(ratios(baseCopy, base, key)))} | ${f(median(ratios(headCopy, head, key)))}\n`,
  );
}
