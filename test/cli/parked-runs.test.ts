import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import type { Wait } from '../../src/session/index.js';
import { runMuster, useBuiltCli } from '../support/cli.js';
import type { CliRun } from '../support/cli.js';
import { cliProject } from '../support/cli-project.js';
import type { CliProject } from '../support/cli-project.js';
import { fixturePath } from '../support/mcp-fixtures.js';

// Parked runs across processes (SPEC 15.1), each step a separate `muster` process on the same
// SQLite file: `run --park` parks a call, `sessions waits` lists it, `decide` decides it,
// `sessions resume` runs it. The server logs every request it reads, so the test counts how
// often the tool really ran.

const cli = useBuiltCli();

let project: CliProject | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

interface Parked {
  project: CliProject;
  sessionId: string;
  wait: Wait;
  /** How many `tools/call` requests the server has read so far. */
  calls: () => number;
}

function muster(p: CliProject, args: readonly string[]): Promise<CliRun> {
  return runMuster(cli.bin, args, { cwd: p.dir, env: p.env, inProcess: true });
}

async function pendingWaits(p: CliProject, args: readonly string[] = []): Promise<Wait[]> {
  const run = await muster(p, ['--json', 'sessions', 'waits', ...args]);
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { waits: Wait[] }).waits;
}

/** The wait as the store holds it, read from the SQLite file directly (decided ones too). */
async function storedWait(p: CliProject, sessionId: string, waitId: string) {
  const store = new SqliteSessionStore({ path: join(p.home, 'sessions.sqlite') });
  try {
    return await store.waits.get(sessionId, waitId);
  } finally {
    store.close();
  }
}

/** A project whose user server counts calls, and a `muster run --park` that parked on `add`. */
async function parkedRun(): Promise<Parked> {
  const p = cliProject({});
  project = p;
  const log = join(p.dir, 'requests.log');
  writeFileSync(log, '');
  writeFileSync(
    join(p.home, 'mcp.json'),
    JSON.stringify({
      mcpServers: {
        basic: {
          command: process.execPath,
          args: [fixturePath('counting-server.mjs'), `--log=${log}`, '--log-requests'],
        },
      },
    }),
  );
  const model = p.turns('park.json', [
    { toolCalls: [{ name: 'mcp__basic__add', arguments: { a: 2, b: 3 } }] },
  ]);
  const run = await muster(p, ['--json', 'run', 'add 2 and 3', '--model', model, '--park']);
  expect(run.code, run.stderr).toBe(0);
  const doc = JSON.parse(run.stdout) as {
    sessionId: string;
    status: string;
    waits: Wait[];
    resume: string;
  };
  expect(doc).toMatchObject({
    status: 'parked',
    resume: `muster sessions resume ${doc.sessionId}`,
    waits: [
      {
        sessionId: doc.sessionId,
        kind: 'approval',
        toolName: 'mcp__basic__add',
        arguments: { a: 2, b: 3 },
        status: 'pending',
      },
    ],
  });
  const calls = () =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line.endsWith(' tools/call')).length;
  return { project: p, sessionId: doc.sessionId, wait: doc.waits[0]!, calls };
}

describe('parked runs from the command line', () => {
  it('parks in one process, is listed and decided in others, and resumes: the tool runs once', async () => {
    const { project: p, sessionId, wait, calls } = await parkedRun();
    expect(calls()).toBe(0);

    const table = await muster(p, ['sessions', 'waits']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      new RegExp(
        `${sessionId}\\s+${wait.id}\\s+approval\\s+mcp__basic__add\\s+\\{"a":2,"b":3\\}\\s+\\d+s ago\\s+in [67]d`,
      ),
    );
    expect(await pendingWaits(p, ['--session', sessionId, '--kind', 'approval'])).toEqual([wait]);
    expect(await pendingWaits(p, ['--kind', 'elicitation'])).toEqual([]);

    // resumed before the decision: it parks again, prints what to do, and runs nothing
    const unused = p.turns('unused.json', [{ text: 'not asked' }]);
    const early = await muster(p, ['sessions', 'resume', sessionId, '--model', unused]);
    expect(early.code, early.stderr).toBe(0);
    expect(early.stderr).toContain(`muster decide ${sessionId} ${wait.id} --allow`);
    expect(early.stderr).toContain(`Then continue it: muster sessions resume ${sessionId}`);
    expect(calls()).toBe(0);

    const decided = await muster(p, [
      'decide',
      sessionId,
      wait.id,
      '--allow',
      '--reason',
      'ok by ana',
    ]);
    expect(decided.code, decided.stderr).toBe(0);
    expect(decided.stdout).toContain(`allowed mcp__basic__add {"a":2,"b":3} (wait ${wait.id}`);
    expect(decided.stdout).toContain(`Continue the run: muster sessions resume ${sessionId}`);
    expect(await pendingWaits(p)).toEqual([]);

    const model = p.turns('resume.json', [{ text: 'The sum is 5.' }]);
    const resumed = await muster(p, ['sessions', 'resume', sessionId, '--model', model]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('The sum is 5.\n');
    expect(resumed.stderr).toContain('allow mcp__basic__add (approval: ok by ana)');
    expect(calls()).toBe(1);

    const shown = await muster(p, ['--json', 'sessions', 'show', sessionId]);
    const state = JSON.parse(shown.stdout) as {
      status: string;
      messages: { role: string; content: unknown; decidedBy?: unknown }[];
    };
    expect(state.status).toBe('completed');
    expect(state.messages.find((m) => m.role === 'tool')).toMatchObject({
      content: '5',
      decidedBy: { waitId: wait.id, decision: 'allow', reason: 'ok by ana' },
    });
  }, 120_000);

  it('refuses bad decisions with exit 2 or 7, writing nothing', async () => {
    const { project: p, sessionId, wait, calls } = await parkedRun();
    const refused = async (args: string[], code: number, error: RegExp) => {
      const run = await muster(p, ['decide', sessionId, ...args]);
      expect(run.code, run.stderr).toBe(code);
      expect(run.stderr).toMatch(error);
      expect(run.stdout).toBe('');
      expect(await pendingWaits(p)).toEqual([wait]);
    };
    await refused(
      [wait.id, '--allow', '--deny'],
      2,
      /error \[INVALID_CONFIGURATION\]: muster decide takes one decision, not --allow and --deny/,
    );
    await refused([wait.id], 2, /error \[INVALID_CONFIGURATION\]: muster decide needs a decision/);
    await refused(
      [wait.id, '--answer', '{"x":'],
      2,
      /error \[INVALID_CONFIGURATION\]: --answer takes JSON/,
    );
    await refused(
      [wait.id, '--answer', '{"x":1}'],
      2,
      /Wait '.+' is an approval: decide it with --allow, --deny or --redirect <text>, not --answer/,
    );
    await refused([wait.id, '--allow', '--fingerprint', 'abc'], 2, /--fingerprint takes/);
    await refused([wait.id, '--allow', '--fingerprint', '0'.repeat(64)], 7, /error \[WAIT_STALE\]/);
    await refused(['wait_nope', '--allow'], 7, /error \[WAIT_NOT_FOUND\]: .*'wait_nope'/);

    // with --json the one document on stdout is the typed error
    const json = await muster(p, [
      '--json',
      'decide',
      sessionId,
      wait.id,
      '--deny',
      '--redirect',
      'x',
    ]);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'INVALID_CONFIGURATION' } });

    const first = await muster(p, ['decide', sessionId, wait.id, '--deny', '--reason', 'first']);
    expect(first.code, first.stderr).toBe(0);
    const second = await muster(p, ['decide', sessionId, wait.id, '--allow', '--reason', 'second']);
    expect(second.code).toBe(7);
    expect(second.stderr).toMatch(/error \[WAIT_NOT_FOUND\]: .*already decided/);
    expect(await storedWait(p, sessionId, wait.id)).toMatchObject({
      status: 'decided',
      decision: { decision: 'deny', reason: 'first' },
    });
    expect(calls()).toBe(0);
  }, 120_000);

  it('refuses --park where nothing is asked (exit 2, naming --park)', async () => {
    const p = cliProject({});
    project = p;
    const model = p.turns('t.json', [{ text: 'never' }]);
    const run = await muster(p, ['run', 'hi', '--model', model, '--park', '--default', 'allow']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /error \[INVALID_CONFIGURATION\]: --park parks the calls that --default ask leaves open/,
    );
  }, 60_000);
});
