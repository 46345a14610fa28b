import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { CliContext } from './cli-context.js';
import { runSession } from './run-session.js';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('runSession', () => {
  it('removes its Ctrl-C handler when the setup fails (an invalid project mcp.json)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'muster-run-session-'));
    mkdirSync(join(dir, '.muster'));
    writeFileSync(join(dir, '.muster', 'mcp.json'), '{ "mcpServers": { "x": 1 } }');
    writeFileSync(join(dir, 'turns.json'), JSON.stringify([{ text: 'never' }]));
    const stderr = new PassThrough();
    let printed = '';
    stderr.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const ctx = new CliContext(
      {
        stdout: new PassThrough(),
        stderr,
        stdin: new PassThrough(),
        env: { MUSTER_HOME: join(dir, 'home') },
        cwd: dir,
        interactive: false,
      },
      new Command(),
    );
    const before = process.listenerCount('SIGINT');
    const code = await runSession(ctx, { model: 'scripted:turns.json' }, (agent, signal) =>
      agent.run({ input: 'hi', signal }),
    ).catch(() => 'threw');
    expect(process.listenerCount('SIGINT')).toBe(before);
    expect(code).toBe(2);
    expect(printed).toMatch(/error \[INVALID_CONFIGURATION\]/);
  });
});
