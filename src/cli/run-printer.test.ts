import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../agent/index.js';
import type { CliIo } from './cli-io.js';
import { Output } from './output.js';
import { RunPrinter } from './run-printer.js';

const base = { sessionId: 's1', runId: 'r1', timestamp: '2026-01-01T00:00:00.000Z' };

/** A printer over real streams; `shown()` is what each stream received. */
function printer(interactive: boolean) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const io: CliIo = { stdout, stderr, stdin: new PassThrough(), env: {}, cwd: '/', interactive };
  const p = new RunPrinter(new Output(io, { json: false, color: false }));
  const read = (s: PassThrough) => String(s.read() ?? '');
  return { p, shown: () => ({ stdout: read(stdout), stderr: read(stderr) }) };
}

const delta = (content: string): AgentEvent => ({
  ...base,
  type: 'model.delta',
  kind: 'text',
  content,
});
const turn = (text: string, calls = 0): AgentEvent =>
  ({
    ...base,
    type: 'model.completed',
    iteration: 1,
    text,
    toolCalls: Array.from({ length: calls }, (_, i) => ({
      callId: `c${i}`,
      name: 't',
      arguments: {},
    })),
    stopReason: calls > 0 ? 'tool_calls' : 'stop',
  }) as AgentEvent;
const completedCall: AgentEvent = {
  ...base,
  type: 'tool.completed',
  callId: 'c0',
  toolName: 'mcp__basic__echo',
  isError: false,
  content: 'hi',
  executed: true,
  durationMs: 3,
};
const done = { ...base, type: 'session.completed', content: '', iterations: 2 } as AgentEvent;

describe('item-05: RunPrinter separates the text of successive model turns', () => {
  it('puts a blank line between turns on a pipe, and none within a turn', () => {
    const { p, shown } = printer(false);
    for (const e of [
      delta('Let me '),
      delta('look.'),
      turn('Let me look.', 1),
      completedCall,
      delta('Found '),
      delta('it.'),
      turn('Found it.'),
      done,
    ])
      p.show(e);
    const { stdout, stderr } = shown();
    expect(stdout).toBe('Let me look.\n\nFound it.\n');
    expect(stderr).toBe('< mcp__basic__echo: hi\n');
  });

  it('on a terminal ends the line before the tool lines, then leaves one blank line', () => {
    const { p, shown } = printer(true);
    for (const e of [delta('Checking.\n'), turn('Checking.\n', 1), completedCall]) p.show(e);
    for (const e of [delta('Done.'), turn('Done.'), done]) p.show(e);
    expect(shown().stdout).toBe('Checking.\n\nDone.\n');
  });

  it('adds nothing before the first text, nor after a turn without text', () => {
    const { p, shown } = printer(false);
    for (const e of [turn('', 1), completedCall, delta('Only this.'), turn('Only this.'), done])
      p.show(e);
    expect(shown().stdout).toBe('Only this.\n');
  });
});

describe('RunPrinter and calls that became tasks (SPEC 15.3)', () => {
  it('prints each status a task reports, with its id and the server message', () => {
    const { p, shown } = printer(false);
    const task = (status: string, statusMessage?: string): AgentEvent => ({
      ...base,
      type: 'tool.task',
      callId: 'c0',
      toolName: 'mcp__jobs__build',
      server: 'jobs',
      taskId: 'task-7',
      status,
      ...(statusMessage ? { statusMessage } : {}),
    });
    p.show(task('working', 'compiling'));
    p.show(task('completed'));
    const { stdout, stderr } = shown();
    const lines = (stdout + stderr).split('\n').filter((l) => l.includes('task-7'));
    expect(lines).toEqual([
      '  … mcp__jobs__build task task-7: working compiling',
      '  … mcp__jobs__build task task-7: completed',
    ]);
  });
});
