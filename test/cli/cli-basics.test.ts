import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../package/built-package.js';
import { buildCli, runMuster } from '../support/cli.js';

// The bin as it ships: its version, its help, and a usage error's exit code (docs/cli.md).

let cli: ReturnType<typeof buildCli>;
beforeAll(() => {
  cli = buildCli();
}, 120_000);
afterAll(() => cli.cleanup());

describe('the muster bin', () => {
  it('prints its version and help, and exits 2 on an unknown command', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    const v = await runMuster(cli.bin, ['--version']);
    expect(v).toMatchObject({ code: 0, stdout: `${version}\n` });
    const help = await runMuster(cli.bin, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: muster');
    const bad = await runMuster(cli.bin, ['frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown command 'frobnicate'");
    expect(bad.stdout).toBe('');
  });

  it('ends quietly when its reader stops early (EPIPE)', async () => {
    const { execFile } = await import('node:child_process');
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [cli.bin, 'mcp', '--help'], (error, _out, stderr) =>
        resolve({ code: error ? (error.code as number) : 0, stderr }),
      );
      child.stdout?.destroy();
    });
    expect(result.stderr).not.toContain('EPIPE');
    expect(result.code).toBe(0);
  });
});
