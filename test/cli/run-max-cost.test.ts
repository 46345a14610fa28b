import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMuster, useBuiltCli } from '../support/cli.js';
import { cliProject } from '../support/cli-project.js';
import type { CliProject } from '../support/cli-project.js';

// `muster run --max-cost <usd> --price <in,out>` (SPEC 12, 15.4): the built program, a scripted
// model with fixed token counts, and the basic stdio fixture server for the tool calls.

const cli = useBuiltCli();

let project: CliProject;
beforeAll(() => {
  project = cliProject({ basic: 'basic-server.mjs' });
});
afterAll(() => project.cleanup());

// at $2 in and $8 out per million tokens, a turn of 1000 in and 100 out costs $0.0028
const usage = { inputTokens: 1000, outputTokens: 100, totalTokens: 1100 };
const echo = { toolCalls: [{ name: 'mcp__basic__echo', arguments: { text: 'x' } }], usage };

function turns(name: string, list: readonly object[]): string {
  writeFileSync(join(project.dir, name), JSON.stringify(list));
  return `scripted:${name}`;
}

function muster(args: readonly string[]) {
  return runMuster(cli.bin, args, { cwd: project.dir, env: project.env, inProcess: true });
}

/** `muster run` with the echo tool allowed, priced at $2 / $8 per million tokens, within `maxCost`. */
function runWithin(model: string, maxCost: string, before: readonly string[] = []) {
  return muster([
    ...before,
    'run',
    'Work.',
    '--model',
    model,
    '--allow',
    'mcp__basic__echo',
    '--price',
    '2,8',
    '--max-cost',
    maxCost,
  ]);
}

describe('muster run --max-cost', () => {
  it('stops the run that spends it, exit 11 (BUDGET_EXHAUSTED), after warning at 80 %', async () => {
    const model = turns('spend.json', [echo, echo, echo, { text: 'never asked' }]);
    const run = await runWithin(model, '0.005');
    expect(run.code, run.stderr).toBe(11);
    expect(run.stderr).toContain('budget --max-cost is 80 % spent ($0.0056 of $0.005)');
    expect(run.stderr).toMatch(/error \[BUDGET_EXHAUSTED\]/);
    // the second turn's call never ran
    expect(run.stderr.match(/> mcp__basic__echo/g)).toHaveLength(1);
  }, 60_000);

  it('with --json, a run within it reports its cost', async () => {
    const model = turns('within.json', [echo, { text: 'done', usage }]);
    const run = await runWithin(model, '1', ['--json']);
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as { usage: { costUsd: number } };
    expect(doc.usage.costUsd).toBe(0.0056);
  }, 60_000);

  it('refuses a budget that is not a positive amount, or one without --price (exit 2)', async () => {
    for (const bad of ['0', '-1', 'free', 'NaN', 'Infinity']) {
      const run = await muster(['run', 'x', '--model', 'scripted:none.json', '--max-cost', bad]);
      expect(run.code, bad).toBe(2);
      expect(run.stderr, bad).toContain('--max-cost');
    }
    const unpriced = await muster(['run', 'x', '--model', 'scripted:none.json', '--max-cost', '1']);
    expect(unpriced.code).toBe(2);
    expect(unpriced.stderr).toContain('--price');
    const badPrice = await muster(['run', 'x', '--model', 'scripted:none.json', '--price', '2,-8']);
    expect(badPrice.code).toBe(2);
    expect(badPrice.stderr).toContain('--price');
  }, 60_000);
});
