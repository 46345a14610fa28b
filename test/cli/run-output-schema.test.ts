import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMuster, useBuiltCli } from '../support/cli.js';
import { cliProject } from '../support/cli-project.js';
import type { CliProject } from '../support/cli-project.js';

// `muster run --output-schema <file>`: the built bin in a child process, a scripted model
// answering with JSON, and the basic stdio fixture server for a tool call before the answer.

const cli = useBuiltCli();

let project: CliProject;
beforeAll(() => {
  project = cliProject({ basic: 'basic-server.mjs' });
  writeFileSync(join(project.dir, 'city.schema.json'), JSON.stringify(CITY));
});
afterAll(() => project.cleanup());

const CITY = {
  type: 'object',
  properties: { name: { type: 'string' }, population: { type: 'integer', minimum: 0 } },
  required: ['name', 'population'],
  additionalProperties: false,
};
const PARIS = { name: 'Paris', population: 2102650 };

/** Writes scripted turns (which may answer with `output`: that JSON) and returns the model. */
function turns(name: string, list: readonly object[]): string {
  writeFileSync(join(project.dir, name), JSON.stringify(list));
  return `scripted:${name}`;
}

function muster(args: readonly string[]) {
  return runMuster(cli.bin, args, { cwd: project.dir, env: project.env, inProcess: true });
}

describe('muster run --output-schema', () => {
  it('prints only the validated value as JSON on stdout, not the model text, after a tool call', async () => {
    const model = turns('answer.json', [
      {
        text: 'Let me look that up. ',
        toolCalls: [{ name: 'mcp__basic__echo', arguments: { text: 'Paris' } }],
      },
      { output: PARIS },
    ]);
    const run = await muster([
      'run',
      'How many people live in Paris?',
      '--model',
      model,
      '--allow',
      'mcp__basic__echo',
      '--output-schema',
      'city.schema.json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${JSON.stringify(PARIS, null, 2)}\n`);
    expect(run.stderr).toMatch(/> mcp__basic__echo \{"text":"Paris"\}/);
  }, 60_000);

  it('with --json adds the value as output to the run document', async () => {
    const model = turns('json.json', [{ output: PARIS }]);
    const run = await muster([
      '--json',
      'run',
      'Paris?',
      '--model',
      model,
      '--output-schema',
      'city.schema.json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as { status: string; text: string; output: unknown };
    expect(doc.status).toBe('completed');
    expect(doc.output).toEqual(PARIS);
    expect(JSON.parse(doc.text)).toEqual(PARIS);
  }, 60_000);

  it('exits 10 naming --output-schema when the answer is still invalid after its repair turn', async () => {
    const model = turns('invalid.json', [
      { output: { name: 'Paris', population: 'many' } },
      { text: 'About two million people.' },
    ]);
    const args = ['run', 'Paris?', '--model', model, '--output-schema', 'city.schema.json'];
    const run = await muster(args);
    expect(run.code).toBe(10);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/error \[OUTPUT_INVALID\]/);
    expect(run.stderr).toContain('--output-schema city.schema.json');
    const json = await muster(['--json', ...args]);
    expect(json.code).toBe(10);
    const doc = JSON.parse(json.stdout) as {
      status: string;
      error: { code: string; details: { reason: string; repairs: number } };
    };
    expect(doc.status).toBe('failed');
    expect(doc.error).toMatchObject({
      code: 'OUTPUT_INVALID',
      details: { reason: 'output-not-json', repairs: 1 },
    });
  }, 60_000);

  it('refuses a missing file, a file that is not JSON and one that holds no object with exit 2 naming the flag and the file', async () => {
    const model = turns('unused.json', [{ output: PARIS }]);
    writeFileSync(join(project.dir, 'broken.json'), '{ "type": "object", ');
    writeFileSync(join(project.dir, 'list.json'), '[{ "type": "object" }]');
    for (const [file, why] of [
      ['missing.schema.json', /no such file/],
      ['broken.json', /is not JSON/],
      ['list.json', /holds an array, not an object/],
    ] as const) {
      const run = await muster(['run', 'hi', '--model', model, '--output-schema', file]);
      expect(run.code, file).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(
        `error [INVALID_CONFIGURATION]: --output-schema ${join(project.dir, file)}`,
      );
      expect(run.stderr).toMatch(why);
    }
  }, 60_000);

  it('refuses a schema that does not compile with exit 2 before the model is asked', async () => {
    writeFileSync(join(project.dir, 'odd.json'), JSON.stringify({ type: 'no-such-type' }));
    // an empty script: a model request would fail with MODEL_RESPONSE_INVALID (exit 8)
    const model = turns('none.json', []);
    const run = await muster(['run', 'hi', '--model', model, '--output-schema', 'odd.json']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/error \[INVALID_CONFIGURATION\].*not a valid JSON Schema/);
  }, 60_000);
});
