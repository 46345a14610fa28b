import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIo } from './cli-io.js';
import type { SpinnerFactory } from './spinner.js';
import { withSpinner } from './spinner.js';

function io(interactive: boolean): CliIo {
  return {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    env: {},
    cwd: '/',
    interactive,
  };
}

function recording(): { factory: SpinnerFactory; events: string[] } {
  const events: string[] = [];
  return {
    events,
    factory: (text) => {
      events.push(`made ${text}`);
      return Promise.resolve({
        start: () => events.push('start'),
        stop: () => events.push('stop'),
      });
    },
  };
}

describe('withSpinner', () => {
  it('never makes a spinner when the command is not interactive', async () => {
    const { factory, events } = recording();
    await expect(
      withSpinner(io(false), { json: false }, 'x', async () => 7, factory),
    ).resolves.toBe(7);
    expect(events).toEqual([]);
  });

  it('never makes a spinner with --json, even on a TTY', async () => {
    const { factory, events } = recording();
    await expect(withSpinner(io(true), { json: true }, 'x', async () => 7, factory)).resolves.toBe(
      7,
    );
    expect(events).toEqual([]);
  });

  it('spins on a TTY around the wait and stops it when the wait fails', async () => {
    const { factory, events } = recording();
    const failing = withSpinner(
      io(true),
      { json: false },
      'Connecting',
      () => {
        events.push('work');
        return Promise.reject(new Error('boom'));
      },
      factory,
    );
    await expect(failing).rejects.toThrow('boom');
    expect(events).toEqual(['made Connecting', 'start', 'work', 'stop']);
  });
});
