import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { runMuster, useBuiltCli } from '../support/cli.js';
import type { CliRun } from '../support/cli.js';
import { cliProject } from '../support/cli-project.js';
import type { CliProject } from '../support/cli-project.js';

// `muster sessions list|show|resume` over the SQLite file the runs wrote, including a run
// killed with SIGKILL mid-call and resumed by a new process.

const cli = useBuiltCli();

let project: CliProject | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

interface Summary {
  id: string;
  status: string;
  messageCount: number;
}
interface State {
  id: string;
  status: string;
  messages: { role: string; content: unknown; isError?: boolean }[];
  finalContent?: string;
}

function muster(p: CliProject, args: readonly string[]): Promise<CliRun> {
  return runMuster(cli.bin, args, { cwd: p.dir, env: p.env, inProcess: true });
}

async function listed(p: CliProject): Promise<Summary[]> {
  const run = await muster(p, ['--json', 'sessions', 'list']);
  expect(run.code).toBe(0);
  return (JSON.parse(run.stdout) as { sessions: Summary[] }).sessions;
}

async function shown(p: CliProject, id: string): Promise<State> {
  const run = await muster(p, ['--json', 'sessions', 'show', id]);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as State;
}

describe('muster sessions', () => {
  it('lists, shows and continues a session (--json checked)', async () => {
    project = cliProject({ basic: 'basic-server.mjs' });
    const first = project.turns('first.json', [
      { toolCalls: [{ name: 'mcp__basic__echo', arguments: { text: 'ping' } }] },
      { text: 'It said ping.' },
    ]);
    const run = await muster(project, [
      '--json',
      'run',
      'echo ping',
      '--model',
      first,
      '--default',
      'allow',
    ]);
    expect(run.code).toBe(0);
    const { sessionId } = JSON.parse(run.stdout) as { sessionId: string };

    expect(await listed(project)).toEqual([
      expect.objectContaining({ id: sessionId, status: 'completed', messageCount: 4 }),
    ]);
    const state = await shown(project, sessionId);
    expect(state).toMatchObject({
      id: sessionId,
      status: 'completed',
      finalContent: 'It said ping.',
    });
    expect(state.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);

    const human = await muster(project, ['sessions', 'show', sessionId]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('user: echo ping');
    expect(human.stdout).toMatch(/tool call mcp__basic__echo \{"text":"ping"\}/);
    expect(human.stdout).toMatch(/tool result mcp__basic__echo \[\S+\]: default: ping/);
    expect(human.stdout).toContain('assistant: It said ping.');
    const table = await muster(project, ['sessions', 'list']);
    expect(table.stdout).toMatch(new RegExp(`${sessionId}\\s+completed\\s+\\d+s\\s+4`));

    const again = project.turns('again.json', [{ text: 'Still here.' }]);
    const more = await muster(project, [
      'run',
      'and now?',
      '--model',
      again,
      '--session',
      sessionId,
    ]);
    expect(more.code).toBe(0);
    expect(more.stdout).toBe('Still here.\n');
    expect(await listed(project)).toEqual([
      expect.objectContaining({ id: sessionId, status: 'completed', messageCount: 6 }),
    ]);
  }, 90_000);

  it('resumes a session whose run was killed mid-call: the call is reported unknown', async () => {
    project = cliProject({ slow: 'slow-server.mjs' });
    const p = project;
    const model = p.turns('crash.json', [
      { toolCalls: [{ name: 'mcp__slow__sleep', arguments: { ms: 120_000 } }] },
      { text: 'not this process' },
    ]);
    const child = spawn(
      process.execPath,
      [
        cli.bin,
        'run',
        'sleep',
        '--model',
        model,
        '--allow',
        'mcp__slow__sleep',
        '--lease-ms',
        '1000',
      ],
      {
        cwd: p.dir,
        env: { PATH: process.env['PATH'] ?? '', ...p.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_c, s) => resolve(s)),
    );
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('> mcp__slow__sleep')) resolve();
      });
      child.once('exit', () => reject(new Error(`the run ended early: ${stderr}`)));
    });
    const sessionId = /session (session_\S+)/.exec(stderr)![1]!;
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(await listed(p)).toEqual([
      expect.objectContaining({ id: sessionId, status: 'running' }),
    ]);

    const resumeModel = p.turns('resume.json', [{ text: 'Resumed after the crash.' }]);
    // the dead run's lease (1 s) must lapse first: until then resume says the session is running
    let resumed: CliRun;
    const deadline = Date.now() + 30_000;
    do {
      resumed = await muster(p, [
        'sessions',
        'resume',
        sessionId,
        '--model',
        resumeModel,
        '--lease-ms',
        '1000',
      ]);
    } while (
      resumed.code === 7 &&
      resumed.stderr.includes('SESSION_ALREADY_RUNNING') &&
      Date.now() < deadline
    );
    expect(resumed.stderr).toMatch(/session .* \(continued\)/);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Resumed after the crash.\n');

    const state = await shown(p, sessionId);
    expect(state.status).toBe('completed');
    const result = state.messages.find((m) => m.role === 'tool');
    expect(result).toMatchObject({ isError: true });
    expect(String(result?.content)).toContain('TOOL_OUTCOME_UNKNOWN');
    expect(state.messages.at(-1)).toMatchObject({ role: 'assistant' });
  }, 90_000);

  it('says which session does not exist (exit 7)', async () => {
    project = cliProject({});
    const shownMissing = await muster(project, ['sessions', 'show', 'session_nope']);
    expect(shownMissing.code).toBe(7);
    expect(shownMissing.stderr).toMatch(/error \[SESSION_NOT_FOUND\]: No session 'session_nope'/);
    const model = project.turns('t.json', [{ text: 'x' }]);
    const resumeMissing = await muster(project, [
      'sessions',
      'resume',
      'session_nope',
      '--model',
      model,
    ]);
    expect(resumeMissing.code).toBe(7);
    expect((await muster(project, ['sessions', 'list'])).stdout).toMatch(/No sessions yet/);
  }, 60_000);
});
